import type { Container } from 'inversify';
import { ScryptPasswordHasher } from '../../adapters/crypto/ScryptPasswordHasher.js';
import type { Database } from '../../adapters/persistence/Database.js';
import { MikroOrmAdminStore } from '../../adapters/persistence/MikroOrmAdminStore.js';
import { MikroOrmLoginAttempts } from '../../adapters/persistence/MikroOrmLoginAttempts.js';
import { AdminAuthentication } from '../../application/AdminAuthentication.js';
import { TOKENS } from '../tokens.js';

/** The admin UI's password and sessions: used by the HTTP app and by the CLI's `admin set-password`. */
export const bindAdminAuthentication = (c: Container): void => {
  c.bind(TOKENS.AdminAuthentication).toResolvedValue(
    (db: Database, crypto, ids, clock) =>
      new AdminAuthentication(new MikroOrmAdminStore(db), new MikroOrmLoginAttempts(db), new ScryptPasswordHasher(), crypto, ids, clock),
    [TOKENS.Database, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock],
  );
};
