import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { databaseOfCommand } from './command-context.js';
import { withAdministration } from './database-access.js';
import { onDatabase } from './on-database.js';
import { readNewPassword } from './password-prompt.js';

/**
 * `admin set-password`: sets the admin UI's password and ends every admin session. The
 * password is read right after the database line — before the database or the server is
 * reached, and with only light modules loaded — so the prompt shows at once and nothing typed
 * is ever echoed by a terminal waiting for a slow start.
 */
export const setAdminPassword = async (_parsed: ParsedCommand, io: CliIo): Promise<number> => {
  const { config, target } = await databaseOfCommand(io);
  const password = await readNewPassword(io.input, io.err);
  // A password that cannot be set fails here, before the database is opened (or created).
  (await import('../application/auth/admin-authentication.js')).checkNewPassword(password);
  await onDatabase(io, target, {
    server: (client) => client.setAdminPassword(password),
    direct: async (direct) => {
      const { TOKENS } = await import('../container/tokens.js');
      await withAdministration(config, direct, io, async (container) => (await container.getAsync(TOKENS.AdminAuthentication)).setPassword(password));
    },
  });
  io.out.write('Admin password set; every admin session has ended. Open /settings to log in.\n');
  return 0;
};
