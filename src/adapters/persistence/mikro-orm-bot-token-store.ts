import { sql } from '@mikro-orm/core';
import type { BotTokenStore } from '../../ports/bot-token-store.js';
import type { Database } from './database.js';
import { SettingEntity } from './entities/setting-entity.js';

const TOKEN_KEY = 'messaging.bot_token';
const SECRET_KEY = 'messaging.webhook_secret';
const URL_KEY = 'messaging.webhook_url';
/** Replicas pick up a token registered on another replica within this time. */
const CACHE_MS = 5000;

interface Registration {
  readonly token: string | undefined;
  readonly secret: string | undefined;
}

/**
 * The registered bot token and webhook secret in `settings`, else the configured
 * MESSAGING_BOT_TOKEN. "No stored secret" is kept as an empty value, so that a registration
 * replaces both rows in one statement. Reads are cached for a few seconds (every chat update
 * asks for the secret), shared by concurrent callers.
 */
export class MikroOrmBotTokenStore implements BotTokenStore {
  /** The pending or last read, shared by every caller while fresh (no stampede of reads when it expires). */
  #cached: { value: Promise<Registration>; at: number } | undefined;

  constructor(
    private readonly db: Database,
    private readonly configured: string | undefined,
  ) {}

  async current(): Promise<string | undefined> {
    return (await this.#read()).token;
  }

  async webhookSecret(): Promise<string | undefined> {
    return (await this.#read()).secret;
  }

  async register(token: string, webhookSecret: string | undefined, webhookUrl?: string): Promise<void> {
    // One multi-row `insert … on conflict do update`: the rows change together or none does.
    await this.db.orm.em
      .fork()
      .upsertMany(SettingEntity, [
        { key: TOKEN_KEY, value: token, updatedAt: sql.now() },
        { key: SECRET_KEY, value: webhookSecret ?? '', updatedAt: sql.now() },
        ...(webhookUrl === undefined ? [] : [{ key: URL_KEY, value: webhookUrl, updatedAt: sql.now() }]),
      ]);
    this.#cached = { value: Promise.resolve({ token, secret: webhookSecret }), at: Date.now() };
  }

  async webhookUrl(): Promise<string | undefined> {
    const row = await this.db.orm.em.fork().findOne(SettingEntity, { key: URL_KEY });
    return row?.value || undefined;
  }

  async secretFor(generate: () => string): Promise<string> {
    const connection = this.db.orm.em.getConnection();
    // Stored only where none is (no row, or the empty value that says none): the first wins.
    await connection.execute(
      "insert into settings (key, value, updated_at) values (?, ?, now()) on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at where settings.value = ''",
      [SECRET_KEY, generate()],
    );
    const rows = (await connection.execute('select value from settings where key = ?', [SECRET_KEY])) as Array<{ value: string }>;
    this.#cached = undefined;
    const secret = rows[0]?.value;
    if (!secret) throw new Error('the webhook secret could not be stored');
    return secret;
  }

  #read(): Promise<Registration> {
    if (this.#cached && Date.now() - this.#cached.at < CACHE_MS) return this.#cached.value;
    const read = this.db.orm.em
      .fork()
      .find(SettingEntity, { key: { $in: [TOKEN_KEY, SECRET_KEY] } })
      .then((rows) => {
        const value = (key: string): string | undefined => rows.find((row) => row.key === key)?.value || undefined;
        return { token: value(TOKEN_KEY) ?? this.configured, secret: value(SECRET_KEY) };
      });
    const entry = { value: read, at: Date.now() };
    this.#cached = entry;
    // A failed read is not kept: the next call reads again.
    read.catch(() => {
      if (this.#cached === entry) this.#cached = undefined;
    });
    return read;
  }
}
