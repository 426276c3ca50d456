import type { Logger as Pino } from 'pino';
import { createPino } from '../adapters/logging/pino-logger.js';
import { channelCredentialHeaders } from '../container/channels/index.js';
import { Gateway } from '../container/gateway.js';
import type { AppConfig } from '../container/config.js';
import type { HeadStart } from '../container/head-start.js';
import { followNpm } from './follow-npm.js';

/**
 * Starts the service (on what the entry opened first, if anything) and stops it gracefully on SIGTERM/SIGINT
 * (and, started by npx, when the process npx ran it under ends: follow-npm.ts).
 *
 * The handlers are in place before the start completes. The service answers requests before its
 * start has finished (the task queue's start, on a new database pg-boss's schema, comes after),
 * so a signal may come while it starts: the service then stops gracefully as soon as the start
 * is over, closing the database as any stop does (the embedded database otherwise goes through
 * PostgreSQL's crash recovery at the next start). A second signal during the start ends the
 * process at once, as a signal without a handler does.
 *
 * What it says of a signal is a log line (pino, JSON on stdout) as every other line of the
 * service, so that log collectors parse it: `received a signal while starting…` with `signal`
 * (one the entry held too, start-signals.ts), then the stop's `shutting down` with `signal`; so
 * is the line that says the process npx started it under has ended (follow-npm.ts).
 */
export const serve = async (
  config: AppConfig,
  options: {
    readonly pino?: Pino;
    readonly head?: HeadStart;
    /** Ends the entry's holding of signals (start-signals.ts) and returns the stop it was asked for meanwhile. */
    readonly heldSignal?: () => NodeJS.Signals | undefined;
  } = {},
): Promise<void> => {
  const pino = options.pino ?? createPino(config.logLevel, undefined, channelCredentialHeaders());
  const whileStarting = (signal: NodeJS.Signals): void =>
    pino.info({ signal }, 'received a signal while starting: shutting down once started (send it again to end at once)');
  let gateway: Gateway | undefined;
  // Taken over in the same turn as the handlers below are put in place: no signal falls between.
  let requested: NodeJS.Signals | undefined = options.heldSignal?.();
  if (requested !== undefined) whileStarting(requested);
  const stop = (signal: NodeJS.Signals): void => {
    if (requested !== undefined) {
      // The same signal again (re-armed below): what it would have done without a handler.
      process.removeListener('SIGTERM', onSigterm);
      process.removeListener('SIGINT', onSigint);
      process.kill(process.pid, signal);
      return;
    }
    requested = signal;
    if (gateway === undefined) {
      whileStarting(signal);
      process.once(signal, signal === 'SIGTERM' ? onSigterm : onSigint);
      return;
    }
    shutDown(gateway, signal);
  };
  const shutDown = (started: Gateway, signal: NodeJS.Signals): void => {
    // The stop's first line, `shutting down`, names the signal.
    started.stop(signal).then(
      // 0, or the code a stop for a restart set (stop-for-restart.ts).
      () => process.exit(),
      (error: unknown) => {
        pino.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSigterm = (): void => stop('SIGTERM');
  const onSigint = (): void => stop('SIGINT');
  // SIGHUP reloads the trigger and schedule files (problems are logged; the running set stays);
  // during the start there is nothing to reload yet, and it must not end the process either.
  const onSighup = (): void => {
    if (requested === undefined && gateway !== undefined) void gateway.reload('SIGHUP').catch(() => undefined);
  };
  process.once('SIGTERM', onSigterm);
  process.once('SIGINT', onSigint);
  process.on('SIGHUP', onSighup);
  // Started by npx (which runs the service through a shell that does not pass a signal on): stop
  // with it, as on SIGTERM, saying so in a log line.
  const unfollow = followNpm({
    stop: (message) => {
      pino.info({}, message);
      process.kill(process.pid, 'SIGTERM');
    },
  });
  try {
    gateway = await Gateway.start(config, pino, options.head);
  } catch (error) {
    unfollow();
    process.removeListener('SIGTERM', onSigterm);
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGHUP', onSighup);
    throw error;
  }
  if (requested !== undefined) shutDown(gateway, requested);
};
