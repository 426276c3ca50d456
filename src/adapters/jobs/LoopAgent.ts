import { mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Job } from '../../domain/jobs/Job.js';
import type { AiClient, AiTool } from '../../ports/AiClient.js';
import type { ShellExecutor } from '../../ports/ShellExecutor.js';
import type { AgentOutcome, WorktreeAgent } from './WorktreeAgent.js';

const READ_LIMIT = 100 * 1024;
const COMMAND_TIMEOUT_MS = 120_000;

const SYSTEM = `You are a coding agent working in a git repository checked out in your working directory.
Use the tools to look at files, change them and run commands (tests, builds) until the task is done.
Paths are relative to the repository root; you cannot leave it. Do not commit: your changes are committed for you.
When you are done, answer with a short summary of what you changed.`;

/** Thrown for a path outside the worktree: the model gets the message back. */
class OutsideWorktree extends Error {}

/**
 * The built-in agent: a bounded tool loop over the AI port with tools confined to the job's
 * worktree — list, read and write files, run a shell command there.
 */
export class LoopAgent implements WorktreeAgent {
  constructor(
    private readonly ai: AiClient,
    private readonly shell: ShellExecutor,
    private readonly maxSteps: number,
    private readonly timeoutMs: number,
  ) {}

  async run(job: Job, dir: string, cancel: AbortSignal): Promise<AgentOutcome> {
    const log: string[] = [];
    const root = await realpath(dir);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([cancel, deadline]);
    try {
      const response = await this.ai.generate({
        system: SYSTEM,
        messages: [{ role: 'user', text: job.job }],
        tools: this.#tools(root, log, signal),
        maxSteps: this.maxSteps,
        provider: job.llmProvider ?? undefined,
        model: job.llmModel ?? undefined,
        signal,
      });
      log.push(response.text);
      return { ok: true, aborted: false, log: log.join('\n'), error: null };
    } catch (error) {
      const error_ = deadline.aborted ? `The agent did not finish within ${this.timeoutMs} ms` : (error as Error).message;
      return { ok: false, aborted: cancel.aborted, log: log.join('\n'), error: error_ };
    }
  }

  #tools(root: string, log: string[], signal: AbortSignal): AiTool[] {
    const inside = async (path: unknown): Promise<string> => {
      if (typeof path !== 'string' || path === '' || isAbsolute(path)) throw new OutsideWorktree('path must be relative to the repository root');
      const target = resolve(root, path);
      const rel = relative(root, target);
      if (rel.startsWith('..') || rel.split('/')[0] === '.git') throw new OutsideWorktree(`${path} is outside the repository`);
      // A symlink must not lead out either: check the deepest existing ancestor's real path.
      let existing = target;
      for (;;) {
        try {
          const real = await realpath(existing);
          if (relative(root, real).startsWith('..')) throw new OutsideWorktree(`${path} is outside the repository`);
          return target;
        } catch (error) {
          if (error instanceof OutsideWorktree) throw error;
          existing = dirname(existing);
        }
      }
    };
    const guarded = (name: string, run: (input: Record<string, unknown>) => Promise<unknown>) => async (input: Record<string, unknown>) => {
      log.push(`> ${name} ${JSON.stringify(input).slice(0, 200)}`);
      try {
        return await run(input);
      } catch (error) {
        return { error: (error as Error).message };
      }
    };
    const path = { type: 'object', properties: { path: { type: 'string', description: 'Path relative to the repository root' } }, required: ['path'] };
    return [
      {
        name: 'list_files',
        description: 'List the entries of a directory of the repository ("." for the root).',
        parameters: path,
        execute: guarded('list_files', async ({ path: p }) => {
          const entries = await readdir(p === '.' ? root : await inside(p), { withFileTypes: true });
          return entries.filter((e) => e.name !== '.git').map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
        }),
      },
      {
        name: 'read_file',
        description: 'Read a text file of the repository.',
        parameters: path,
        execute: guarded('read_file', async ({ path: p }) => (await readFile(await inside(p), 'utf8')).slice(0, READ_LIMIT)),
      },
      {
        name: 'write_file',
        description: 'Create or replace a text file of the repository.',
        parameters: { type: 'object', properties: { path: path.properties.path, content: { type: 'string' } }, required: ['path', 'content'] },
        execute: guarded('write_file', async ({ path: p, content }) => {
          const target = await inside(p);
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, String(content ?? ''));
          return { written: relative(root, target) };
        }),
      },
      {
        name: 'run_command',
        description: 'Run a shell command in the repository root (2 minute limit). Returns the exit code and output.',
        parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        execute: guarded('run_command', async ({ command }) => {
          const result = await this.shell.run(String(command), { cwd: root, timeoutMs: COMMAND_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, LANG: 'C.UTF-8' }, signal });
          return { exitCode: result.exitCode, timedOut: result.timedOut, output: result.output.slice(-20_000) };
        }),
      },
    ];
  }
}
