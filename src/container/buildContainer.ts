import { Container } from 'inversify';
import type { Logger as Pino } from 'pino';
import { ApiKeyAdministration } from '../application/ApiKeyAdministration.js';
import { AuthenticateApiKey } from '../application/AuthenticateApiKey.js';
import { CreateApiKey } from '../application/CreateApiKey.js';
import { CreateJob } from '../application/CreateJob.js';
import { ListApiKeys } from '../application/ListApiKeys.js';
import { RevokeApiKey } from '../application/RevokeApiKey.js';
import { NodeApiKeyCrypto } from '../adapters/crypto/NodeApiKeyCrypto.js';
import { createHttpApp } from '../adapters/http/HttpApp.js';
import { PinoLogger } from '../adapters/logging/PinoLogger.js';
import type { Database } from '../adapters/persistence/Database.js';
import { MikroOrmKeyRepository } from '../adapters/persistence/MikroOrmKeyRepository.js';
import { RandomUuidGenerator } from '../adapters/system/RandomUuidGenerator.js';
import { SystemClock } from '../adapters/system/SystemClock.js';
import type { AppConfig } from './config.js';
import { TOKENS } from './tokens.js';

/** What must exist before the container: opened asynchronously by the caller. */
export interface Infrastructure {
  readonly pino: Pino;
  readonly database: Database;
}

/**
 * The composition root: every port bound to its adapter, every use case built from
 * ports. Resolve with `getAsync` (some adapters start asynchronously); `unbindAllAsync`
 * stops them. Tests call it with their own infrastructure and rebind what they fake.
 */
export const buildContainer = (config: AppConfig, infra: Infrastructure): Container => {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(TOKENS.Config).toConstantValue(config);
  c.bind(TOKENS.Pino).toConstantValue(infra.pino);
  c.bind(TOKENS.Logger).toConstantValue(new PinoLogger(infra.pino));
  c.bind(TOKENS.Database).toConstantValue(infra.database);

  c.bind(TOKENS.Clock).toConstantValue(new SystemClock());
  c.bind(TOKENS.IdGenerator).toConstantValue(new RandomUuidGenerator());
  c.bind(TOKENS.ApiKeyCrypto).toConstantValue(new NodeApiKeyCrypto());
  c.bind(TOKENS.KeyRepository)
    .toResolvedValue(async (db: Database) => {
      const keys = new MikroOrmKeyRepository(db);
      await keys.start();
      return keys;
    }, [TOKENS.Database])
    .onDeactivation((keys) => (keys as MikroOrmKeyRepository).stop());

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
  c.bind(TOKENS.CreateJob).toConstantValue(new CreateJob());

  c.bind(TOKENS.HttpApp).toResolvedValue(
    (pino, authenticate, createJob) => createHttpApp({ pino, authenticate, createJob, bodyLimit: config.bodyLimit }),
    [TOKENS.Pino, TOKENS.AuthenticateApiKey, TOKENS.CreateJob],
  );
  return c;
};
