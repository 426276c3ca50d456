import { DatabaseOpenError } from '../adapters/persistence/database-open-error.js';
import { StartupError } from './startup-error.js';
/**
 * A database that cannot be opened, as the StartupError naming the setting to look at:
 * `DATABASE_URL: cannot connect to 127.0.0.1:5432 (ECONNREFUSED)`,
 * `DATA_DIR: The embedded database in … is in use by process N`. Anything else unchanged.
 */
export const explainDatabaseFailure = (error) => {
    if (!(error instanceof DatabaseOpenError))
        return error;
    if (error.source === 'dataDir')
        return new StartupError('DATA_DIR', error.message, { cause: error });
    const hint = error.missingDatabase !== undefined ? '; create it, or set DATABASE_CREATE=true to have it created' : '';
    return new StartupError('DATABASE_URL', `${error.message}${hint}`, { cause: error });
};
//# sourceMappingURL=explain-database-failure.js.map