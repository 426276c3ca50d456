/**
 * A stand-in for a server on the embedded database that is starting, run as its own process
 * (`node --import tsx starting-server-child.ts DATA_DIR`): it takes the database's lock file at
 * once (`locked` on stdout), and opens its admin socket when told to (a line on stdin; then
 * `listening`), as a server does at the end of its start. Its key administration says on stdout
 * what it is asked (`revoked ID`). Ends when its stdin closes.
 */
import { createInterface } from 'node:readline';
import { adminSocketPath } from '../../src/adapters/http/admin-socket/admin-socket-path.js';
import { type AdminOperations, AdminSocketServer } from '../../src/adapters/http/admin-socket/admin-socket-server.js';
import { EmbeddedLock } from '../../src/adapters/persistence/embedded-lock.js';
import type { KeyAdministration } from '../../src/application/auth/api-key-administration.js';
import { RecordingLogger } from '../fakes/recording-logger.js';

const dataDir = process.argv[2];
const unused = async (): Promise<never> => {
  throw new Error('not used by this stand-in');
};
const keys: KeyAdministration = {
  create: unused,
  list: async () => [],
  revoke: async (id) => void process.stdout.write(`revoked ${id}\n`),
};
const operations: AdminOperations = {
  setAdminPassword: unused,
  migrations: unused,
  reload: unused,
  deliveries: { list: unused, show: unused },
  replay: unused,
};

const lock = new EmbeddedLock(dataDir);
await lock.acquire();
process.stdout.write('locked\n');
let server: AdminSocketServer | undefined;
const lines = createInterface({ input: process.stdin });
lines.on('line', async () => {
  server ??= await AdminSocketServer.listen(adminSocketPath(dataDir), keys, operations, new RecordingLogger());
  process.stdout.write('listening\n');
});
lines.on('close', async () => {
  await server?.close();
  await lock.release();
  process.exit(0);
});
