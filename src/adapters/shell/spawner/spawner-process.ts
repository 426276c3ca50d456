// The spawner process: runs the commands SpawnerShellExecutor sends it (runShell) and answers
// with their outcomes. Started with an empty environment; each command gets exactly the one it
// is sent. Exits when its parent disconnects or dies: commands still running are left to finish
// in their own process groups, as they were when the service itself started them and was killed.
import { runShell, type ShellSettings } from '../spawn-shell.ts';
import type { SpawnerReply, SpawnerRequest } from './spawner-protocol.ts';

const settings = JSON.parse(process.argv[2] ?? '{}') as ShellSettings;
const running = new Map<number, AbortController>();

const reply = (message: SpawnerReply): void => {
  if (process.connected) process.send?.(message);
};

process.on('message', (request: SpawnerRequest) => {
  if (request.type === 'abort') {
    running.get(request.id)?.abort();
    return;
  }
  const { id, command, cwd, timeoutMs, env, startMark, keep } = request;
  const controller = new AbortController();
  running.set(id, controller);
  runShell(command, { cwd, timeoutMs, env, startMark, keep, signal: controller.signal }, settings)
    .then(
      (run) => reply({ id, run }),
      (error: Error & { cause?: { code?: string }; code?: string }) => reply({ id, error: { message: error.message, code: error.cause?.code ?? error.code } }),
    )
    .finally(() => running.delete(id));
});
process.on('disconnect', () => process.exit(0));
// The spawner lives exactly as long as its service: a Ctrl-C, a closed terminal or a service
// manager signals the whole process group, and the service, stopping gracefully, still waits
// for the outcome of the commands running here.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);
