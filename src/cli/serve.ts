import type { Logger as Pino } from 'pino';
import { Gateway } from '../container/gateway.js';
import type { AppConfig } from '../container/config.js';
import type { HeadStart } from '../container/head-start.js';

/** Starts the service (on what the entry opened first, if anything) and stops it gracefully on SIGTERM/SIGINT. */
export const serve = async (config: AppConfig, options: { readonly pino?: Pino; readonly head?: HeadStart } = {}): Promise<void> => {
  const gateway = await Gateway.start(config, options.pino, options.head);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`received ${signal}, shutting down\n`);
    gateway.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  // SIGHUP reloads the trigger and schedule files (problems are logged; the running set stays).
  process.on('SIGHUP', () => {
    if (!stopping) void gateway.reload('SIGHUP').catch(() => undefined);
  });
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
};
