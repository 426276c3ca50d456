import type { KeyAdministration } from '../application/auth/api-key-administration.js';
import type { ApiKeySummary } from '../domain/auth/api-key-record.js';
import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { databaseOfCommand } from './command-context.js';
import { withAdministration } from './database-access.js';
import { onDatabase } from './on-database.js';
import { terminalSafe } from './terminal-text.js';
import { BadArgument } from './usage-error.js';

/** Runs `work` on the keys wherever they are: through the running server, or on the database opened here (onDatabase). */
const withKeys = async <T>(io: CliIo, work: (keys: KeyAdministration) => Promise<T>): Promise<T> => {
  const { config, target } = await databaseOfCommand(io);
  return onDatabase(io, target, {
    server: (client) => work(client),
    direct: async (direct) => {
      const { TOKENS } = await import('../container/tokens.js');
      return withAdministration(config, direct, io, async (container) => work(await container.getAsync(TOKENS.KeyAdministration)));
    },
  });
};

const row = (key: ApiKeySummary) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
});

/** `keys create --name NAME [--json]`: the key is printed once. */
export const createKey = async ({ values }: ParsedCommand, io: CliIo): Promise<number> => {
  // A name that cannot be stored fails here, before the database is opened (or created).
  const [{ validateKeyName }, { isDomainError }] = await Promise.all([import('../domain/auth/key-name.js'), import('../domain/errors/domain-error.js')]);
  let name: string;
  try {
    name = validateKeyName(values.name);
  } catch (error) {
    // The command line's value: exit code 2 with the usage, as for a missing --name.
    throw isDomainError(error) ? new BadArgument(error.message) : error;
  }
  const created = await withKeys(io, (keys) => keys.create(name));
  if (values.json === true) {
    io.out.write(`${JSON.stringify({ id: created.id, name: created.name, key: created.key, created_at: created.createdAt.toISOString() })}\n`);
  } else {
    io.out.write(`Created API key "${terminalSafe(created.name)}" (id ${created.id}).\n`);
    io.out.write(`Key (shown only now, store it safely):\n\n  ${created.key}\n\n`);
    io.out.write('Send it in the x-api-key header.\n');
  }
  return 0;
};

/** `keys list [--json]`: never a key, only its display prefix. */
export const listKeys = async ({ values }: ParsedCommand, io: CliIo): Promise<number> => {
  const keys = (await withKeys(io, (admin) => admin.list())).map(row);
  if (values.json === true) io.out.write(`${JSON.stringify(keys)}\n`);
  else if (keys.length === 0) io.out.write('No API keys. Create one with: agent-gateway keys create --name NAME\n');
  else {
    io.out.write(`${['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED'].join('\t')}\n`);
    // A name may hold C1 controls or bidi overrides (only C0 and DEL are refused): shown escaped.
    for (const key of keys) io.out.write(`${[key.id, terminalSafe(key.name), key.prefix, key.created_at, key.last_used_at ?? '-'].join('\t')}\n`);
  }
  return 0;
};

/** `keys revoke ID`. */
export const revokeKey = async ({ positionals }: ParsedCommand, io: CliIo): Promise<number> => {
  const [id] = positionals as [string];
  await withKeys(io, (keys) => keys.revoke(id));
  io.out.write(`Revoked key ${id}\n`);
  return 0;
};
