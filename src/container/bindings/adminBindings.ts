import type { Container } from 'inversify';
import { ScryptPasswordHasher } from '../../adapters/crypto/ScryptPasswordHasher.js';
import type { Database } from '../../adapters/persistence/Database.js';
import { SqlAdminStore } from '../../adapters/persistence/SqlAdminStore.js';
import { SqlLoginAttempts } from '../../adapters/persistence/SqlLoginAttempts.js';
import { AdminAuthentication } from '../../application/AdminAuthentication.js';
import { TOKENS } from '../tokens.js';

/** The admin UI's password and sessions: used by the HTTP app and by the CLI's `admin set-password`. */
export const bindAdminAuthentication = (c: Container): void => {
  c.bind(TOKENS.AdminAuthentication).toResolvedValue(
    (db: Database, crypto, ids, clock) =>
      new AdminAuthentication(new SqlAdminStore(db), new SqlLoginAttempts(db), new ScryptPasswordHasher(), crypto, ids, clock),
    [TOKENS.Database, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock],
  );
};
