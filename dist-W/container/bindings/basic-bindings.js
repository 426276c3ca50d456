import { NodeApiKeyCrypto } from '../../adapters/crypto/node-api-key-crypto.js';
import { PinoLogger } from '../../adapters/logging/pino-logger.js';
import { AI_PROVIDERS } from '../../adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../adapters/secrets/environment-secret-store.js';
import { RandomUuidGenerator } from '../../adapters/system/random-uuid-generator.js';
import { SystemClock } from '../../adapters/system/system-clock.js';
import { TOKENS } from '../tokens.js';
/**
 * What every capability shares and costs nothing to load: the configuration, logging, the
 * database, time and ids, key hashing, secrets. The service binds them with the rest
 * (core-bindings.ts); the CLI's administration container binds only these and what it uses.
 */
export const bindBasics = (c, config, infra) => {
    c.bind(TOKENS.Config).toConstantValue(config);
    c.bind(TOKENS.Pino).toConstantValue(infra.pino);
    c.bind(TOKENS.Logger).toConstantValue(new PinoLogger(infra.pino));
    c.bind(TOKENS.Database).toConstantValue(infra.database);
    c.bind(TOKENS.Clock).toConstantValue(new SystemClock());
    c.bind(TOKENS.IdGenerator).toConstantValue(new RandomUuidGenerator());
    c.bind(TOKENS.ApiKeyCrypto).toConstantValue(new NodeApiKeyCrypto());
    c.bind(TOKENS.SecretStore).toConstantValue(new EnvironmentSecretStore(infra.env, AI_PROVIDERS));
};
//# sourceMappingURL=basic-bindings.js.map