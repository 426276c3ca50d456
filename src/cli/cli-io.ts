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
}
