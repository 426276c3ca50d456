import { sql } from '@mikro-orm/core';
import { SettingEntity } from './entities/setting-entity.js';
const TOKEN_KEY = 'messaging.bot_token';
const SECRET_KEY = 'messaging.webhook_secret';
/** Replicas pick up a token registered on another replica within this time. */
const CACHE_MS = 5000;
/**
 * The registered bot token and webhook secret in `settings`, else the configured
 * MESSAGING_BOT_TOKEN. "No stored secret" is kept as an empty value, so that a registration
 * replaces both rows in one statement. Reads are cached for a few seconds (every chat update
 * asks for the secret), shared by concurrent callers.
 */
export class MikroOrmBotTokenStore {
    db;
    configured;
    /** The pending or last read, shared by every caller while fresh (no stampede of reads when it expires). */
    #cached;
    constructor(db, configured) {
        this.db = db;
        this.configured = configured;
    }
    async current() {
        return (await this.#read()).token;
    }
    async webhookSecret() {
        return (await this.#read()).secret;
    }
    async register(token, webhookSecret) {
        // One multi-row `insert … on conflict do update`: both rows change together or neither does.
        await this.db.orm.em.fork().upsertMany(SettingEntity, [
            { key: TOKEN_KEY, value: token, updatedAt: sql.now() },
            { key: SECRET_KEY, value: webhookSecret ?? '', updatedAt: sql.now() },
        ]);
        this.#cached = { value: Promise.resolve({ token, secret: webhookSecret }), at: Date.now() };
    }
    #read() {
        if (this.#cached && Date.now() - this.#cached.at < CACHE_MS)
            return this.#cached.value;
        const read = this.db.orm.em
            .fork()
            .find(SettingEntity, { key: { $in: [TOKEN_KEY, SECRET_KEY] } })
            .then((rows) => {
            const value = (key) => rows.find((row) => row.key === key)?.value || undefined;
            return { token: value(TOKEN_KEY) ?? this.configured, secret: value(SECRET_KEY) };
        });
        const entry = { value: read, at: Date.now() };
        this.#cached = entry;
        // A failed read is not kept: the next call reads again.
        read.catch(() => {
            if (this.#cached === entry)
                this.#cached = undefined;
        });
        return read;
    }
}
//# sourceMappingURL=mikro-orm-bot-token-store.js.map