import { join } from 'node:path';
/** Where a server on the embedded database serves key administration to the CLI. */
export const adminSocketPath = (dataDir) => join(dataDir, 'admin.sock');
//# sourceMappingURL=admin-socket-path.js.map