import type { BotTokenStore } from '../../ports/BotTokenStore.js';
import type { Database } from './Database.js';

const KEY = 'messaging.bot_token';
/** Replicas pick up a token registered on another replica within this time. */
const CACHE_MS = 5000;

/** The registered bot token in `settings`, else the configured MESSAGING_BOT_TOKEN. */
export class SqlBotTokenStore implements BotTokenStore {
  /** The pending or last read, shared by every caller while fresh (no stampede of reads when it expires). */
  #cached: { value: Promise<string | undefined>; at: number } | undefined;

  constructor(private readonly db: Database, private readonly configured: string | undefined) {}

  async current(): Promise<string | undefined> {
    if (this.#cached && Date.now() - this.#cached.at < CACHE_MS) return this.#cached.value;
    const read = this.db.execute<{ value: string }>('select value from settings where key = ?', [KEY]).then(([row]) => row?.value ?? this.configured);
    const entry = { value: read, at: Date.now() };
    this.#cached = entry;
    // A failed read is not kept: the next call reads again.
    read.catch(() => {
      if (this.#cached === entry) this.#cached = undefined;
    });
    return read;
  }

  async register(token: string): Promise<void> {
    await this.db.execute(
      'insert into settings (key, value, updated_at) values (?, ?, now()) on conflict (key) do update set value = excluded.value, updated_at = now()',
      [KEY, token],
    );
    this.#cached = { value: Promise.resolve(token), at: Date.now() };
  }
}
