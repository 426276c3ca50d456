// The spawner process: runs the commands SpawnerShellExecutor sends it (runShell) and answers
// with their outcomes. Started with an empty environment; each command gets exactly the one it
// is sent. When its parent disconnects or dies, it exits at once if no command runs; else it
// stays until the commands it runs have ended — their time limits still apply, and their output
// still has a reader (a command writing to a pipe whose reader is gone is killed by SIGPIPE) —
// and leaves the outcome of each that has a start mark beside it, for the service's next start
// to record (RunTrigger), then exits.
import { leaveOutcome } from '../left-outcome.ts';
import { runShell, type ShellSettings } from '../spawn-shell.ts';
import type { SpawnerReply, SpawnerRequest } from './spawner-protocol.ts';

const settings = JSON.parse(process.argv[2] ?? '{}') as ShellSettings;
const running = new Map<number, AbortController>();
/** The service let go of this process (it stopped, or it died): outcomes go beside the start marks. */
let alone = false;

const reply = (message: SpawnerReply): void => {
  if (process.connected) process.send?.(message);
};

const exitWhenIdle = (): void => {
  if (alone && running.size === 0) process.exit(0);
};

process.on('message', (request: SpawnerRequest) => {
  if (request.type === 'abort') {
    running.get(request.id)?.abort();
    return;
  }
  const { id, command, cwd, timeoutMs, env, startMark, startAttempt, keep, sandboxReport } = request;
  const controller = new AbortController();
  running.set(id, controller);
  runShell(command, { cwd, timeoutMs, env, startMark, startAttempt, keep, sandboxReport, signal: controller.signal }, settings)
    .then(
      (run) => {
        if (!alone) return reply({ id, run });
        if (startMark === undefined) return;
        try {
          leaveOutcome(startMark, run);
        } catch {
          // Not left (a full disk): the next start records the action as interrupted.
        }
      },
      (error: Error & { cause?: { code?: string }; code?: string }) => reply({ id, error: { message: error.message, code: error.cause?.code ?? error.code } }),
    )
    .finally(() => {
      running.delete(id);
      exitWhenIdle();
    });
});
process.on('disconnect', () => {
  alone = true;
  exitWhenIdle();
});
// A Ctrl-C, a closed terminal or a service manager signals the whole process group: the
// spawner goes on, for the service, stopping gracefully, still waits for the outcome of the
// commands running here (and, should it stop without them, they are finished as above).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
