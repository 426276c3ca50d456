import type { DatabaseTarget } from './database-target.js';

/** A terminal's input: Node's `process.stdin` when it is one (`isTTY`, `setRawMode`). */
export interface CliInput extends NodeJS.ReadableStream {
  readonly isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
}

/** The CLI's streams: results on `out`, everything else (the database line, prompts, errors) on `err`. */
export interface CliIo {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  readonly input: CliInput;
  /**
   * Test seam: awaited once a command that uses the database has looked for a server holding it
   * (and said which database on `err`), before it reaches the database — where a server that
   * starts meanwhile races the command (on-database.ts). Unset outside tests.
   */
  readonly afterLook?: (target: DatabaseTarget) => Promise<void>;
}
