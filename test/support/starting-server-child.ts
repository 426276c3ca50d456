/**
 * A stand-in for a server on the embedded database that is starting, run as its own process
 * (`node --import tsx starting-server-child.ts DATA_DIR`): it takes the database's lock file at
 * once (`locked` on stdout), and opens its admin socket when told to (a line on stdin; then
 * `listening`), as a server does at the end of its start. Its administration says on stdout what
 * it is asked, one line each (`revoked ID`, `listed keys`, `password set`, `migrations`,
 * `reloaded`, `listed deliveries`, `showed ID`, `replayed ID`). Ends when its stdin closes.
 */
import { createInterface } from 'node:readline';
import { adminSocketPath } from '../../src/adapters/http/admin-socket/admin-socket-path.js';
import { type AdminOperations, AdminSocketServer } from '../../src/adapters/http/admin-socket/admin-socket-server.js';
import { EmbeddedLock } from '../../src/adapters/persistence/embedded-lock.js';
import { MIGRATIONS } from '../../src/adapters/persistence/migrations/index.js';
import type { KeyAdministration } from '../../src/application/auth/api-key-administration.js';
import type { Delivery } from '../../src/application/triggers/delivery-history.js';
import { RecordingLogger } from '../fakes/recording-logger.js';

const dataDir = process.argv[2] as string;
const said = (line: string): void => void process.stdout.write(`${line}\n`);
const unused = async (): Promise<never> => {
  throw new Error('not used by this stand-in');
};
const keys: KeyAdministration = {
  create: unused,
  list: async () => {
    said('listed keys');
    return [];
  },
  revoke: async (id) => said(`revoked ${id}`),
};
const operations: AdminOperations = {
  setAdminPassword: async () => said('password set'),
  migrations: async () => {
    said('migrations');
    return { appliedAtStart: [], recorded: MIGRATIONS.map((migration) => migration.name) };
  },
  reload: async () => {
    said('reloaded');
    return { ok: true, problems: [], triggers: 2, schedules: 1 };
  },
  deliveries: {
    list: async () => {
      said('listed deliveries');
      return [];
    },
    show: async (id) => {
      said(`showed ${id}`);
      const request = { id, receivedAt: new Date(0), watchPath: '/webhook', triggers: [], replayOf: null, request: '{}' };
      return { request, runs: [] } as unknown as Delivery;
    },
  },
  replay: async (id) => {
    said(`replayed ${id}`);
    return { requestId: '20000000-0000-4000-8000-000000000002', fired: ['t'], skipped: [], skippedWhy: [] };
  },
};

const lock = new EmbeddedLock(dataDir);
await lock.acquire();
said('locked');
let server: AdminSocketServer | undefined;
const lines = createInterface({ input: process.stdin });
lines.on('line', async () => {
  server ??= await AdminSocketServer.listen(adminSocketPath(dataDir), keys, operations, new RecordingLogger());
  said('listening');
});
lines.on('close', async () => {
  await server?.close();
  await lock.release();
  process.exit(0);
});
