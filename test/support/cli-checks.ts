import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CliIo } from '../../src/cli/cli-io.js';
import type { ParsedCommand } from '../../src/cli/command-line.js';

/*
 * The CLI's commands called in this process, as the command line calls them (`triggers check`,
 * `crons check`, `reload`): on a directory of their own, with what they write read back.
 */

export interface CommandOutput {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs a command's function with `values` as its parsed options (no positionals), on streams of
 * its own (an input that gives nothing): its exit code and what it wrote on `out` and on `err`.
 * `more` are the function's further arguments (`crons check`'s clock).
 */
export const runCommand = async <More extends unknown[]>(
  command: (parsed: ParsedCommand, io: CliIo, ...more: More) => Promise<number>,
  values: ParsedCommand['values'],
  ...more: More
): Promise<CommandOutput> => {
  const out = new PassThrough();
  const err = new PassThrough();
  const code = await command({ values, positionals: [] }, { out, err, input: new PassThrough() }, ...more);
  out.end();
  err.end();
  return { code, out: String(out.read() ?? ''), err: String(err.read() ?? '') };
};

export interface CliFilesDir {
  readonly dir: string;
  /** Sets these variables in process.env (deletes those given as undefined) until `restore`. */
  setEnv(values: Record<string, string | undefined>): void;
  /** Puts back the environment as it was and removes the directory. */
  restore(): Promise<void>;
}

/**
 * A new temporary directory for the CLI's files, and the environment its commands read pointed
 * into it until `restore`: DATA_DIR (`data` in it), TRIGGERS_FILE (TRIGGERS.json), CRONS_FILE
 * (CRONS.json), TRIGGERS_DIR, then `env`. `files` (name: text) are written into it.
 */
export const cliFilesDir = async (prefix: string, files: Record<string, string> = {}, env: Record<string, string> = {}): Promise<CliFilesDir> => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const saved: Record<string, string | undefined> = {};
  const setEnv = (values: Record<string, string | undefined>): void => {
    for (const [name, value] of Object.entries(values)) {
      if (!(name in saved)) saved[name] = process.env[name];
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  setEnv({ DATA_DIR: join(dir, 'data'), TRIGGERS_FILE: join(dir, 'TRIGGERS.json'), CRONS_FILE: join(dir, 'CRONS.json'), TRIGGERS_DIR: dir, ...env });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return {
    dir,
    setEnv,
    restore: async () => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
};
