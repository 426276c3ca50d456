import { Database } from '../adapters/persistence/database.js';
import { explainDatabaseFailure } from './explain-database-failure.js';
/**
 * Opens the configured database (on `engine`, when its opening was started earlier); a
 * database that cannot be opened rejects with a StartupError naming the setting.
 */
export const openDatabase = async (config, logger, engine) => {
    try {
        return await Database.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, create: config.databaseCreate }, engine);
    }
    catch (error) {
        throw explainDatabaseFailure(error);
    }
};
//# sourceMappingURL=open-database.js.map