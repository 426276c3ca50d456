import { parseArgs } from 'node:util';
import type { Logger as Pino } from 'pino';
import type { AppConfig } from '../container/config.js';
import type { ApiKeySummary } from '../domain/auth/ApiKeyRecord.js';
import { withKeyAdministration } from './keyAdministration.js';
import { UsageError } from './UsageError.js';

const row = (key: ApiKeySummary) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
});

/** `keys create|list|revoke`. */
export const keysCommand = async (argv: string[], config: AppConfig, pino: Pino, out: NodeJS.WritableStream): Promise<number> => {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  switch (action) {
    case 'create': {
      if (values.name === undefined) throw new UsageError('keys create needs --name NAME');
      const created = await withKeyAdministration(config, pino, (admin) => admin.create(values.name as string));
      if (values.json) {
        out.write(`${JSON.stringify({ id: created.id, name: created.name, key: created.key, created_at: created.createdAt.toISOString() })}\n`);
      } else {
        out.write(`Created API key "${created.name}" (id ${created.id}).\n`);
        out.write(`Key (shown only now, store it safely):\n\n  ${created.key}\n\n`);
        out.write('Send it in the x-api-key header.\n');
      }
      return 0;
    }
    case 'list': {
      const keys = (await withKeyAdministration(config, pino, (admin) => admin.list())).map(row);
      if (values.json) out.write(`${JSON.stringify(keys)}\n`);
      else if (keys.length === 0) out.write('No API keys. Create one with: agent-gateway keys create --name NAME\n');
      else {
        out.write(['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED'].join('\t') + '\n');
        for (const key of keys) out.write([key.id, key.name, key.prefix, key.created_at, key.last_used_at ?? '-'].join('\t') + '\n');
      }
      return 0;
    }
    case 'revoke': {
      if (positionals.length !== 1) throw new UsageError('keys revoke needs exactly one key id');
      await withKeyAdministration(config, pino, (admin) => admin.revoke(positionals[0]));
      out.write(`Revoked key ${positionals[0]}\n`);
      return 0;
    }
    default:
      throw new UsageError(action === undefined ? 'keys needs create, list or revoke' : `Unknown keys command: ${action}`);
  }
};
