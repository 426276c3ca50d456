import { randomBytes } from 'node:crypto';
import type { Database } from './database.js';

const KEY = 'triggers.fingerprint_key';

/**
 * The installation's fingerprint key (FingerprintKey), a row of `settings`: 32 random bytes in
 * base64url, made by the first service or tool that needs it and kept for good — every replica,
 * every restart reads the same one. A key replaced would make every recorded fingerprint look
 * changed (a pending approval would then run nothing).
 */
export class MikroOrmFingerprintKeyStore {
  constructor(private readonly db: Database) {}

  /** The stored key; stored first when there is none (two at once: the first stored wins, both read it). */
  async key(): Promise<string> {
    const connection = this.db.orm.em.getConnection();
    await connection.execute('insert into settings (key, value, updated_at) values (?, ?, now()) on conflict (key) do nothing', [
      KEY,
      randomBytes(32).toString('base64url'),
    ]);
    const rows = (await connection.execute('select value from settings where key = ?', [KEY])) as Array<{ value: string }>;
    const key = rows[0]?.value;
    if (!key) throw new Error('the fingerprint key could not be stored');
    return key;
  }
}
