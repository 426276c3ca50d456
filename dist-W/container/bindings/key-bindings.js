import { MikroOrmKeyRepository } from '../../adapters/persistence/mikro-orm-key-repository.js';
import { ApiKeyAdministration } from '../../application/auth/api-key-administration.js';
import { AuthenticateApiKey } from '../../application/auth/authenticate-api-key.js';
import { CreateApiKey } from '../../application/auth/create-api-key.js';
import { ListApiKeys } from '../../application/auth/list-api-keys.js';
import { RevokeApiKey } from '../../application/auth/revoke-api-key.js';
import { TOKENS } from '../tokens.js';
/** API keys: the repository (started: it follows the database's change notifications) and the key use cases. */
export const bindKeys = (c) => {
    c.bind(TOKENS.KeyRepository)
        .toResolvedValue(async (db) => {
        const keys = new MikroOrmKeyRepository(db);
        await keys.start();
        return keys;
    }, [TOKENS.Database])
        .onDeactivation((keys) => keys.stop());
    c.bind(TOKENS.AuthenticateApiKey).toResolvedValue((...deps) => new AuthenticateApiKey(...deps), [TOKENS.KeyRepository, TOKENS.ApiKeyCrypto, TOKENS.Clock, TOKENS.Logger]);
    c.bind(TOKENS.CreateApiKey).toResolvedValue((...deps) => new CreateApiKey(...deps), [TOKENS.KeyRepository, TOKENS.ApiKeyCrypto, TOKENS.IdGenerator, TOKENS.Clock]);
    c.bind(TOKENS.ListApiKeys).toResolvedValue((keys) => new ListApiKeys(keys), [TOKENS.KeyRepository]);
    c.bind(TOKENS.RevokeApiKey).toResolvedValue((keys) => new RevokeApiKey(keys), [TOKENS.KeyRepository]);
    c.bind(TOKENS.KeyAdministration).toResolvedValue((...deps) => new ApiKeyAdministration(...deps), [TOKENS.CreateApiKey, TOKENS.ListApiKeys, TOKENS.RevokeApiKey]);
};
//# sourceMappingURL=key-bindings.js.map