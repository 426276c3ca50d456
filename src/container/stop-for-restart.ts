/**
 * The embedded database's thread died: nothing that needs the database works any more, and
 * /healthz would go on answering 200. The service stops, gracefully as on SIGTERM (serve.ts),
 * with exit code 1, so that its supervisor (systemd's Restart=on-failure, a container's restart
 * policy) starts it again; the next start opens the database, recovering it as after a crash.
 */
export const stopForRestart = (): void => {
  process.exitCode = 1;
  process.kill(process.pid, 'SIGTERM');
};
