import type { ShellOptions, ShellRun } from '../../../ports/shell-executor.js';

// The messages between SpawnerShellExecutor and its spawner process (IPC, JSON).

/** Run a command (`id` names it in the reply), or kill the one running under `id`. */
export type SpawnerRequest =
  | {
      readonly type: 'run';
      readonly id: number;
      readonly command: string;
      readonly cwd: string;
      readonly timeoutMs: number;
      readonly env: Readonly<Record<string, string>>;
      readonly startMark?: string;
      readonly startAttempt?: number;
      readonly keep?: ShellOptions['keep'];
      readonly sandboxReport?: boolean;
    }
  | { readonly type: 'abort'; readonly id: number };

/** A command's outcome, or why it could not start (the error's message and system code). */
export type SpawnerReply =
  | { readonly id: number; readonly run: ShellRun }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } };
