import { createPino, PinoLogger } from '../adapters/logging/pino-logger.js';
import { ConfigError } from '../container/config.js';
import { configFromEnvironment } from '../container/environment.js';
import { beginStart } from '../container/head-start.js';
import { StartupError } from '../container/startup-error.js';
import { channelCredentialHeaders } from '../container/channels/index.js';
import { loadInSteps } from './load-in-steps.js';
import { failureText } from './terminal-text.js';
import { releaseStartSignals } from './start-signals.js';

/**
 * The service's start, loaded by src/main.ts once the Node.js version is known to be
 * supported. It reads the configuration, binds the port and starts opening the database
 * (head-start.ts) with only light modules loaded, then loads the rest of the service while
 * the embedded database boots on its own thread (a module at a time while the early intake
 * answers: load-in-steps.ts).
 *
 * A failed start prints one line (`PORT: …`, `DATABASE_URL: …`, or the configuration's
 * problems) and exits with code 1 — explicitly, so that no timer or handle left by a
 * dependency keeps the process alive: a supervisor must see it end.
 */
const fail = (error: unknown): never => {
  const known = error instanceof ConfigError || error instanceof StartupError;
  const text = known
    ? failureText(error.message, error instanceof ConfigError ? error : undefined)
    : `Error: ${failureText(error instanceof Error ? error.message : String(error))}`;
  process.stderr.write(`${text}\n`);
  process.exit(1);
};

try {
  const config = configFromEnvironment(process.cwd(), undefined, { checkEnvironment: true });
  const pino = createPino(config.logLevel, undefined, channelCredentialHeaders());
  const head = await beginStart(config, new PinoLogger(pino), pino);
  await import('reflect-metadata');
  // While the early intake answers (the embedded database opens meanwhile), the rest of the
  // service is loaded a module at a time, so that its requests are answered in between.
  if (head.early !== undefined) await loadInSteps(new URL('../load-steps.json', import.meta.url), new URL('../', import.meta.url));
  const { serve } = await import('./serve.js');
  await serve(config, { pino, head, heldSignal: releaseStartSignals });
} catch (error) {
  fail(error);
}
