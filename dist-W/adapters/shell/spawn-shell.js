import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
export const DEFAULT_SHELL_SETTINGS = { shell: '/bin/sh', outputLimit: 64 * 1024 };
/** A shell that could not start; an environment too large for the system is named as such. */
const startFailure = (error) => error.code === 'E2BIG'
    ? new Error('the command could not start: its environment (the request values it was given) is larger than the system allows (E2BIG)', { cause: error })
    : error;
/** Carries the start mark's path to the shell (a variable: a path is never spliced into the script). */
const MARK_VARIABLE = 'AGW_START_MARK';
/**
 * Put before a command that has a start mark: creates the mark, or stops with 125 and says why;
 * then drops the variable, so that the command sees exactly its own environment. On the
 * command's first line, so that the shell's messages keep naming the command's own lines.
 */
const MARK_START = `{ true >"$${MARK_VARIABLE}"; } 2>/dev/null || { echo "agent-gateway: the start mark $${MARK_VARIABLE} could not be written; the command was not run" >&2; exit 125; }; unset ${MARK_VARIABLE}; `;
/**
 * Runs `command` with `settings.shell -c` in a process group of its own, so that a timeout or an
 * abort kills everything the command started. The command's environment is exactly
 * `options.env`: the caller's own is never passed on. Rejects only when the shell cannot start.
 */
export const runShell = (command, options, settings = DEFAULT_SHELL_SETTINGS) => {
    const started = performance.now();
    return new Promise((resolve, reject) => {
        let child;
        try {
            const [script, env] = options.startMark === undefined ? [command, { ...options.env }] : [`${MARK_START}${command}`, { ...options.env, [MARK_VARIABLE]: options.startMark }];
            child = spawn(settings.shell, ['-c', script], { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        }
        catch (error) {
            return reject(startFailure(error));
        }
        let output = '';
        // One decoder per stream: a character split across two chunks is still decoded whole.
        const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
        let timedOut = false;
        let aborted = false;
        const collect = (decoder) => (chunk) => {
            if (output.length < settings.outputLimit)
                output += decoder.write(chunk).slice(0, settings.outputLimit - output.length);
        };
        child.stdout.on('data', collect(decoders.stdout));
        child.stderr.on('data', collect(decoders.stderr));
        const killGroup = () => {
            try {
                process.kill(-child.pid, 'SIGKILL');
            }
            catch {
                child.kill('SIGKILL');
            }
        };
        const timer = setTimeout(() => {
            timedOut = true;
            killGroup();
        }, options.timeoutMs);
        const onAbort = () => {
            aborted = true;
            killGroup();
        };
        if (options.signal?.aborted)
            onAbort();
        else
            options.signal?.addEventListener('abort', onAbort, { once: true });
        const done = () => {
            clearTimeout(timer);
            options.signal?.removeEventListener('abort', onAbort);
        };
        child.once('error', (error) => {
            done();
            reject(startFailure(error));
        });
        child.once('close', (code) => {
            done();
            const killed = timedOut || aborted;
            resolve({ exitCode: killed ? null : code, timedOut, aborted, durationMs: Math.round(performance.now() - started), output });
        });
    });
};
//# sourceMappingURL=spawn-shell.js.map