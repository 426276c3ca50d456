import type { Container } from 'inversify';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.js';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmAdminStore } from '../../adapters/persistence/mikro-orm-admin-store.js';
import { MikroOrmLoginAttempts } from '../../adapters/persistence/mikro-orm-login-attempts.js';
import { NodeTimer } from '../../adapters/system/node-timer.js';
import { AdminAuthentication } from '../../application/auth/admin-authentication.js';
import { TOKENS } from '../tokens.js';

/** The admin UI's password and sessions: used by the HTTP app and by the CLI's `admin set-password`. */
export const bindAdminAuthentication = (c: Container): void => {
  c.bind(TOKENS.AdminAuthentication).toResolvedValue(
    (db: Database, crypto, ids, clock) =>
      new AdminAuthentication(new MikroOrmAdminStore(db), new MikroOrmLoginAttempts(db), new ScryptPasswordHasher(), crypto, ids, clock, new NodeTimer()),
    [TOKENS.Database, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock],
  );
};
