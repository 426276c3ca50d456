import type { BotTokenStore } from '../../src/ports/BotTokenStore.js';

export interface BotRegistration {
  readonly token: string;
  readonly secret: string | undefined;
}

/**
 * BotTokenStore in memory; passes the same contract suite as the database adapter. Instances
 * given one `storage` share it, as replicas (or a restart) share the database.
 */
export class InMemoryBotTokenStore implements BotTokenStore {
  constructor(
    private readonly configured: string | undefined = undefined,
    readonly storage: { registered?: BotRegistration } = {},
  ) {}

  /** What the last registration stored; undefined before any. */
  get registered(): BotRegistration | undefined {
    return this.storage.registered;
  }

  async current(): Promise<string | undefined> {
    return this.storage.registered?.token ?? this.configured;
  }

  async webhookSecret(): Promise<string | undefined> {
    return this.storage.registered?.secret;
  }

  async register(token: string, webhookSecret: string | undefined): Promise<void> {
    this.storage.registered = { token, secret: webhookSecret };
  }
}
