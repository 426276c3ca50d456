import { startEngine } from '../adapters/persistence/open-engine.js';
import { explainDatabaseFailure } from './explain-database-failure.js';
import { listenHttp } from './listen-http.js';
import { loadSchedules } from './load-schedules.js';
import { loadTriggers } from './load-triggers.js';
export const beginStart = async (config, logger) => {
    const triggers = await loadTriggers(config, logger);
    const schedules = await loadSchedules(config, logger);
    const http = await listenHttp(config);
    try {
        // What fails fast (a PostgreSQL server that refuses, a data directory that cannot be
        // locked) is awaited here, so that it stops start-up before the rest is loaded.
        const { opened } = await startEngine({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, create: config.databaseCreate });
        // Awaited by Gateway.start; until then a rejection is not unhandled.
        opened.catch(() => undefined);
        return { triggers, schedules, http, engine: opened };
    }
    catch (error) {
        await http.close(0);
        throw explainDatabaseFailure(error);
    }
};
//# sourceMappingURL=head-start.js.map