import type { BotTokenStore } from '../../ports/bot-token-store.js';

/**
 * The bot token of a channel whose platform has no registration by API call: the one its
 * variable sets, read once at start-up; no webhook secret is ever stored (the channel's
 * configured secret is the only one). Registering is refused.
 */
export class EnvironmentBotTokenStore implements BotTokenStore {
  constructor(private readonly configured: string | undefined) {}

  async current(): Promise<string | undefined> {
    return this.configured;
  }

  async webhookSecret(): Promise<undefined> {
    return undefined;
  }

  async webhookUrl(): Promise<undefined> {
    return undefined;
  }

  async secretFor(): Promise<string> {
    throw new Error('This channel has no registration: its webhook secret is set in its variable');
  }

  async register(): Promise<void> {
    throw new Error('This channel has no registration: its bot token is set in its variable');
  }
}
