/**
 * Signals that come before the service's own handlers are in place (serve.ts). The entry
 * (src/main.ts) holds them from its first lines: the port is bound and the embedded database
 * opening well before the rest of the service is loaded, and a SIGTERM there, with no handler,
 * ended the process at once — the embedded database then went through crash recovery at the
 * next start. A held SIGTERM or SIGINT is handed to serve(), which stops the service gracefully
 * once it has started; a second one ends the process at once, as a signal without a handler
 * does. SIGHUP (reload) has nothing to reload yet and is ignored. This module imports nothing.
 */
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

let received: NodeJS.Signals | undefined;

const onSignal = (signal: NodeJS.Signals): void => {
  if (signal === 'SIGHUP') return;
  if (received !== undefined) {
    releaseStartSignals();
    process.kill(process.pid, signal);
    return;
  }
  // Said by serve() when it takes the signal over, in a log line (there is no logger yet here).
  received = signal;
};

/** Holds SIGTERM, SIGINT and SIGHUP until releaseStartSignals. */
export const holdStartSignals = (): void => {
  for (const signal of SIGNALS) process.on(signal, onSignal);
};

/** Stops holding; returns the SIGTERM or SIGINT that came meanwhile, if one did. */
export const releaseStartSignals = (): NodeJS.Signals | undefined => {
  for (const signal of SIGNALS) process.removeListener(signal, onSignal);
  return received;
};
