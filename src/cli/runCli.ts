
import { pino } from 'pino';
import { createPino } from '../adapters/logging/PinoLogger.js';
import { ConfigError, type AppConfig } from '../container/config.js';
import { configFromEnvironment } from '../container/environment.js';
import { StartupError } from '../container/StartupError.js';
import { isDomainError } from '../domain/errors/DomainError.js';
import { keysCommand } from './keysCommand.js';
import { triggersCommand } from './triggersCommand.js';
import { adminCommand } from './adminCommand.js';
import { withOpenDatabase } from './keyAdministration.js';
import { serve } from './serve.js';
import { UsageError } from './UsageError.js';
import { channelCredentialHeaders } from '../container/channels/index.js';

export const USAGE = `Usage: agent-gateway <command>

Commands:
  serve                              start the service (same as npm start)
  migrate                            apply pending database migrations
  keys create --name NAME [--json]   create an API key; the key is printed once
  keys list [--json]                 list API keys (never the keys themselves)
  keys revoke ID                     delete a key's record, revoking it at once
  triggers check [--file F]          validate the trigger file (TRIGGERS_FILE by default)
  admin set-password                 set the admin UI password (read from stdin)
  help                               show this text

Configuration comes from the environment and .env (see docs/configuration.md).
`;


/** Runs one CLI command; returns the process exit code. */
export const runCli = async (argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<number> => {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      out.write(USAGE);
      return command === undefined ? 2 : 0;
    }
    const config = configFromEnvironment();
    switch (command) {
      case 'serve':
        await serve(config);
        return 0;
      case 'migrate':
        return await migrate(config, out);
      case 'keys':
        return await keysCommand(rest, config, cliLogger(config), out);
      case 'admin':
        return await adminCommand(rest, config, cliLogger(config), out);
      case 'triggers':
        return await triggersCommand(rest, config, out);
      default:
        throw new UsageError(`Unknown command: ${command}`);
    }
  } catch (error) {
    return report(error);
  }
};

/** CLI logs go to stderr so that stdout stays clean for --json output. */
const cliLogger = (config: AppConfig) => createPino(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2), channelCredentialHeaders());

const migrate = async (config: AppConfig, out: NodeJS.WritableStream): Promise<number> => {
  const applied = await withOpenDatabase(config, cliLogger(config), (database) => database.migrate());
  out.write(applied.length === 0 ? 'Database is up to date\n' : `Applied ${applied.join(', ')}\n`);
  return 0;
};

const report = (error: unknown): number => {
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
    process.stderr.write(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (error instanceof ConfigError || error instanceof StartupError || isDomainError(error)) {
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
};

