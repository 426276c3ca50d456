import { join } from 'node:path';

/** Where a server on the embedded database serves key administration to the CLI. */
export const adminSocketPath = (dataDir: string): string => join(dataDir, 'admin.sock');
