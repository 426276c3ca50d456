import type { Container } from 'inversify';
import type { Database } from '../../adapters/persistence/database.js';
import { MikroOrmKeyRepository } from '../../adapters/persistence/mikro-orm-key-repository.js';
import { FileKeyDigestSnapshot } from '../../adapters/intake/file-key-digest-snapshot.js';
import { SnapshottedKeyRepository } from '../../application/auth/snapshotted-key-repository.js';
import type { Logger } from '../../ports/logger.js';
import type { AppConfig } from '../config.js';
import { earlyIntakeFiles } from '../early-intake-files.js';
import { ApiKeyAdministration } from '../../application/auth/api-key-administration.js';
import { AuthenticateApiKey } from '../../application/auth/authenticate-api-key.js';
import { CreateApiKey } from '../../application/auth/create-api-key.js';
import { ListApiKeys } from '../../application/auth/list-api-keys.js';
import { RevokeApiKey } from '../../application/auth/revoke-api-key.js';
import { TOKENS } from '../tokens.js';

/**
 * API keys: the repository (started: it follows the database's change notifications) and the key
 * use cases. On the embedded database the repository keeps the snapshot of the keys' digests
 * current, which the early intake of the service's next start reads (early-intake-start.ts).
 */
export const bindKeys = (c: Container): void => {
  c.bind(TOKENS.KeyRepository)
    .toResolvedValue(
      async (db: Database, config: AppConfig, logger: Logger) => {
        const keys = new MikroOrmKeyRepository(db);
        await keys.start();
        return db.engine === 'pglite' ? new SnapshottedKeyRepository(keys, new FileKeyDigestSnapshot(earlyIntakeFiles(config.dataDir).keys), logger) : keys;
      },
      [TOKENS.Database, TOKENS.Config, TOKENS.Logger],
    )
    .onDeactivation((keys) => ((keys instanceof SnapshottedKeyRepository ? keys.keys : keys) as MikroOrmKeyRepository).stop());
  c.bind(TOKENS.AuthenticateApiKey).toResolvedValue(
    (...deps: ConstructorParameters<typeof AuthenticateApiKey>) => new AuthenticateApiKey(...deps),
    [TOKENS.KeyRepository, TOKENS.ApiKeyCrypto, TOKENS.Clock, TOKENS.Logger],
  );
  c.bind(TOKENS.CreateApiKey).toResolvedValue(
    (...deps: ConstructorParameters<typeof CreateApiKey>) => new CreateApiKey(...deps),
    [TOKENS.KeyRepository, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock],
  );
  c.bind(TOKENS.ListApiKeys).toResolvedValue((keys) => new ListApiKeys(keys), [TOKENS.KeyRepository]);
  c.bind(TOKENS.RevokeApiKey).toResolvedValue((keys) => new RevokeApiKey(keys), [TOKENS.KeyRepository]);
  c.bind(TOKENS.KeyAdministration).toResolvedValue(
    (...deps: ConstructorParameters<typeof ApiKeyAdministration>) => new ApiKeyAdministration(...deps),
    [TOKENS.CreateApiKey, TOKENS.ListApiKeys, TOKENS.RevokeApiKey],
  );
};
