import { createInterface } from 'node:readline';
import type { Logger as Pino } from 'pino';
import { AdminSocketClient } from '../adapters/http/adminSocket/AdminSocketClient.js';
import { adminSocketPath } from '../adapters/http/adminSocket/adminSocketPath.js';
import { EmbeddedLock } from '../adapters/persistence/EmbeddedLock.js';
import { buildContainer } from '../container/buildContainer.js';
import type { AppConfig } from '../container/config.js';
import { TOKENS } from '../container/tokens.js';
import { withOpenDatabase } from './keyAdministration.js';
import { UsageError } from './UsageError.js';

/** The password from stdin: typed without echo on a terminal, else the first line of the input. */
const readPassword = async (): Promise<string> => {
  if (!process.stdin.isTTY) {
    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) return line;
    return '';
  }
  process.stderr.write('Admin password: ');
  process.stdin.setRawMode(true);
  let password = '';
  try {
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return password;
        if (char === '\u0003') throw new UsageError('cancelled');
        if (char === '\u007f') password = password.slice(0, -1);
        else password += char;
      }
    }
    return password;
  } finally {
    process.stdin.setRawMode(false);
    process.stderr.write('\n');
  }
};

/** `admin set-password`: sets the admin UI's password (ending every session). */
export const adminCommand = async (argv: string[], config: AppConfig, pino: Pino, out: NodeJS.WritableStream): Promise<number> => {
  if (argv[0] !== 'set-password' || argv.length !== 1) throw new UsageError('admin needs set-password (the password is read from stdin)');
  const password = await readPassword();
  if (config.databaseUrl === undefined && (await new EmbeddedLock(config.dataDir).holder()) !== null) {
    await new AdminSocketClient(adminSocketPath(config.dataDir)).setAdminPassword(password);
  } else {
    await withOpenDatabase(config, pino, async (database) => {
      const container = buildContainer(config, { pino, database, env: process.env });
      try {
        await (await container.getAsync(TOKENS.AdminAuthentication)).setPassword(password);
      } finally {
        await container.unbindAllAsync();
      }
    });
  }
  out.write('Admin password set. Open /settings to log in.\n');
  return 0;
};
