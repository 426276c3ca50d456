import { Gateway } from '../container/gateway.js';
/**
 * Starts the service (on what the entry opened first, if anything) and stops it gracefully on SIGTERM/SIGINT.
 *
 * The handlers are in place before the start completes: a signal sent as soon as the service
 * logged that it listens (a supervisor's, a test's) finds them there and stops it gracefully,
 * instead of ending the process at once as a signal without a handler does. A signal during the
 * start still ends the process as it would without a handler.
 */
export const serve = async (config, options = {}) => {
    let gateway;
    let requested;
    const stop = (signal) => {
        if (requested !== undefined)
            return;
        requested = signal;
        if (gateway === undefined) {
            // Not started yet: what the signal would have done without a handler.
            process.removeListener('SIGTERM', onSigterm);
            process.removeListener('SIGINT', onSigint);
            process.kill(process.pid, signal);
            return;
        }
        process.stderr.write(`received ${signal}, shutting down\n`);
        gateway.stop().then(() => process.exit(0), (error) => {
            process.stderr.write(`shutdown failed: ${String(error)}\n`);
            process.exit(1);
        });
    };
    const onSigterm = () => stop('SIGTERM');
    const onSigint = () => stop('SIGINT');
    // SIGHUP reloads the trigger and schedule files (problems are logged; the running set stays);
    // during the start there is nothing to reload yet, and it must not end the process either.
    const onSighup = () => {
        if (requested === undefined && gateway !== undefined)
            void gateway.reload('SIGHUP').catch(() => undefined);
    };
    process.once('SIGTERM', onSigterm);
    process.once('SIGINT', onSigint);
    process.on('SIGHUP', onSighup);
    try {
        gateway = await Gateway.start(config, options.pino, options.head);
    }
    catch (error) {
        process.removeListener('SIGTERM', onSigterm);
        process.removeListener('SIGINT', onSigint);
        process.removeListener('SIGHUP', onSighup);
        throw error;
    }
};
//# sourceMappingURL=serve.js.map