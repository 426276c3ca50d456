import type { BotTokenStore } from '../../src/ports/bot-token-store.js';

export interface BotRegistration {
  readonly token: string | undefined;
  readonly secret: string | undefined;
}

/**
 * BotTokenStore in memory; passes the same contract suite as the database adapter. Instances
 * given one `storage` share it, as replicas (or a restart) share the database.
 */
export class InMemoryBotTokenStore implements BotTokenStore {
  /** Registrations made through this instance. */
  registrations = 0;

  /**
   * `configured`: the configured token. `storedSecret`: a secret stored as by an earlier
   * registration of the configured token (a test's starting point).
   */
  constructor(
    private readonly configured: string | undefined = undefined,
    storedSecret: string | undefined = undefined,
    readonly storage: { registered?: BotRegistration; url?: string } = {},
  ) {
    if (storedSecret !== undefined && storage.registered === undefined) storage.registered = { token: configured, secret: storedSecret };
  }

  /** What the last registration stored; undefined before any. */
  get registered(): BotRegistration | undefined {
    return this.storage.registered;
  }

  /** The token in force (as `current()` answers). */
  get token(): string | undefined {
    return this.storage.registered?.token ?? this.configured;
  }

  /** The stored webhook secret (as `webhookSecret()` answers). */
  get secret(): string | undefined {
    return this.storage.registered?.secret;
  }

  async current(): Promise<string | undefined> {
    return this.token;
  }

  async webhookSecret(): Promise<string | undefined> {
    return this.secret;
  }

  async secretFor(generate: () => string): Promise<string> {
    const stored = this.storage.registered?.secret;
    if (stored !== undefined) return stored;
    const secret = generate();
    this.storage.registered = { token: this.storage.registered?.token, secret };
    return secret;
  }

  async register(token: string, webhookSecret: string | undefined, webhookUrl?: string): Promise<void> {
    this.registrations++;
    this.storage.registered = { token, secret: webhookSecret };
    if (webhookUrl !== undefined) this.storage.url = webhookUrl;
  }

  async webhookUrl(): Promise<string | undefined> {
    return this.storage.url;
  }
}
