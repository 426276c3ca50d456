import { Gateway } from '../container/Gateway.js';
import type { AppConfig } from '../container/config.js';

/** Starts the service and stops it gracefully on SIGTERM/SIGINT. */
export const serve = async (config: AppConfig): Promise<void> => {
  const gateway = await Gateway.start(config);
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
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
};
