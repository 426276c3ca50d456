import type { BotTokenStore } from '../../src/ports/BotTokenStore.js';

export class InMemoryBotTokenStore implements BotTokenStore {
  constructor(public token: string | undefined = undefined, public secret: string | undefined = undefined) {}
  registrations = 0;
  async current(): Promise<string | undefined> {
    return this.token;
  }
  async webhookSecret(): Promise<string | undefined> {
    return this.secret;
  }
  async register(token: string, secret: string | undefined): Promise<void> {
    this.registrations++;
    this.token = token;
    this.secret = secret;
  }
}
