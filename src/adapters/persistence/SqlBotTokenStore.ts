import type { BotTokenStore } from '../../ports/BotTokenStore.js';
import type { Database } from './Database.js';

const KEY = 'messaging.bot_token';
/** Replicas pick up a token registered on another replica within this time. */
const CACHE_MS = 5000;

/** The registered bot token in `settings`, else the configured MESSAGING_BOT_TOKEN. */
export class SqlBotTokenStore implements BotTokenStore {
  #cached: { value: string | undefined; at: number } | undefined;

  constructor(private readonly db: Database, private readonly configured: string | undefined) {}

  async current(): Promise<string | undefined> {
    if (this.#cached && Date.now() - this.#cached.at < CACHE_MS) return this.#cached.value;
    const [row] = await this.db.execute<{ value: string }>('select value from settings where key = ?', [KEY]);
    const value = row?.value ?? this.configured;
    this.#cached = { value, at: Date.now() };
    return value;
  }

  async register(token: string): Promise<void> {
    await this.db.execute(
      'insert into settings (key, value, updated_at) values (?, ?, now()) on conflict (key) do update set value = excluded.value, updated_at = now()',
      [KEY, token],
    );
    this.#cached = { value: token, at: Date.now() };
  }
}
