import { isUtf8 } from 'node:buffer';
import { shownInput } from '../../domain/errors/shown-input.js';
import { type BoundedFile, readBoundedFile } from '../shared/bounded-file.js';
import { jsonFault } from '../shared/json-fault.js';

/** Where a value stands in a JSON document: object keys and array indexes from the top. */
export type JsonPath = ReadonlyArray<string | number>;

/**
 * A configuration file read and parsed: its value, or why it could not be, or that it does not
 * exist. `duplicates` are the keys written twice in one object (JSON.parse keeps the last one
 * silently), by their path.
 */
export type ConfigJson =
  | { readonly kind: 'missing' }
  | { readonly kind: 'problem'; readonly problem: string }
  | { readonly kind: 'parsed'; readonly value: unknown; readonly duplicates: readonly JsonPath[] };

/**
 * The keys of valid JSON `text` written a second (or further) time in the same object, by their
 * path, in the order they come (`{"a": 1, "a": 2}` gives [["a"]]). Keys are compared as JSON.parse
 * reads them, escapes decoded (`"en\u0061bled"` is `"enabled"`). Iterative: nesting any depth
 * JSON.parse accepts is fine.
 */
export const duplicateKeys = (text: string): JsonPath[] => {
  type Frame = { kind: 'object'; keys: Set<string>; key: string | undefined; expectKey: boolean } | { kind: 'array'; index: number };
  const stack: Frame[] = [];
  const found: JsonPath[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i += text[i] === '\\' ? 2 : 1);
      i++;
      const top = stack.at(-1);
      if (top?.kind === 'object' && top.expectKey) {
        const key = JSON.parse(text.slice(start, i)) as string;
        if (top.keys.has(key)) found.push([...stack.slice(0, -1).map((frame) => (frame.kind === 'object' ? (frame.key as string) : frame.index)), key]);
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      continue;
    }
    if (c === '{') stack.push({ kind: 'object', keys: new Set(), key: undefined, expectKey: true });
    else if (c === '[') stack.push({ kind: 'array', index: 0 });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack.at(-1);
      if (top?.kind === 'object') top.expectKey = true;
      else if (top?.kind === 'array') top.index += 1;
    }
    i++;
  }
  return found;
};

/**
 * One line per key written twice, as the file's other problems are written: `where(index)` names
 * the entry (`config/TRIGGERS.json: trigger #0 "deploy"`), then the field as the validators name
 * it (`enabled`, `actions[0].approval`, `when.body.ref.regex`), then "given twice".
 */
export const duplicateKeyProblems = (duplicates: readonly JsonPath[], file: string, where: (index: number) => string): string[] =>
  duplicates.map((path) => {
    const field = path
      .slice(typeof path[0] === 'number' ? 1 : 0)
      .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${part}`))
      .join('');
    return `${typeof path[0] === 'number' ? where(path[0]) : file}: ${shownInput(field, 200)}: given twice; JSON keeps only the last one, so write each field once`;
  });

/**
 * Whether the `size - 1` bytes after the lead byte at `at` complete a UTF-8 character: each a
 * continuation byte (0x80–0xBF), the second narrowed after E0 (no overlong form), ED (no
 * surrogate), F0 (no overlong form) and F4 (nothing past U+10FFFF), as the Unicode standard's
 * table of well-formed sequences says.
 */
const wellFormedAfterLead = (bytes: Buffer, at: number, size: number): boolean => {
  for (let i = 1; i < size; i++) {
    const byte = bytes[at + i] as number;
    if (byte < 0x80 || byte > 0xbf) return false;
  }
  if (size < 3) return true;
  const [lead, second] = [bytes[at] as number, bytes[at + 1] as number];
  if (lead === 0xe0) return second >= 0xa0;
  if (lead === 0xed) return second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90;
  if (lead === 0xf4) return second <= 0x8f;
  return true;
};

/**
 * Where the first byte sequence that is not UTF-8 stands (`line 3 column 14`, the column counted
 * in characters (code points) up to it, as lineAndColumn counts a JSON fault's), for a file that
 * isUtf8 refused.
 */
const firstNonUtf8 = (bytes: Buffer): string => {
  let start = 0;
  let line = 1;
  for (;;) {
    const end = bytes.indexOf(0x0a, start);
    const row = bytes.subarray(start, end === -1 ? bytes.length : end);
    if (!isUtf8(row)) {
      // Character by character (its length from its lead byte, its other bytes checked in place:
      // an isUtf8 call per character took ~2 s on a 16 MiB line) up to the first that is none.
      // Counted in characters (code points) as an editor shows them: an emoji counts one.
      // A byte-order mark opening the file is no column (an editor shows none; the text is read without it).
      let at = line === 1 && row[0] === 0xef && row[1] === 0xbb && row[2] === 0xbf ? 3 : 0;
      let characters = 0;
      for (;;) {
        const lead = row[at] as number;
        const size = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
        if (size === 0 || at + size > row.length || !wellFormedAfterLead(row, at, size)) break;
        at += size;
        characters++;
      }
      return `line ${line} column ${characters + 1}`;
    }
    if (end === -1) return `line ${line}`;
    start = end + 1;
    line++;
  }
};

/** The largest configuration file read: thousands of entries fit; more is a file named by mistake (a log, a dump). */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

/** Why a configuration file's bytes were not read (readBoundedFile). */
const notRead = (read: Exclude<BoundedFile, { kind: 'bytes' }>): string => {
  if (read.kind === 'directory') return 'is a directory, not a file';
  if (read.kind === 'pipe') return 'is not a regular file (a FIFO or a socket, which would be waited on for good): write the configuration to a file';
  return read.size === undefined
    ? `is more than the ${MAX_CONFIG_FILE_BYTES} bytes a configuration file may have`
    : `is ${read.size} bytes, more than the ${MAX_CONFIG_FILE_BYTES} a configuration file may have`;
};

/**
 * Reads a JSON configuration file (triggers, schedules). A byte-order mark, which editors on
 * Windows write, is skipped; a file that is not UTF-8 (saved as Latin-1 or UTF-16) is refused,
 * naming where: read as UTF-8 each such byte became U+FFFD, so a command, a prompt or a header
 * would run other than written, without a word. A problem names the file as `shown`.
 */
export const readConfigJson = async (path: string, shown: string): Promise<ConfigJson> => {
  let bytes: Buffer;
  try {
    const read = await readBoundedFile(path, MAX_CONFIG_FILE_BYTES);
    if (read.kind !== 'bytes') return { kind: 'problem', problem: `${shown}: ${notRead(read)}` };
    bytes = read.bytes;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'problem', problem: `${shown}: cannot be read (${(error as Error).message})` };
  }
  if (!isUtf8(bytes))
    return {
      kind: 'problem',
      problem: `${shown}: not UTF-8 text (the bytes at ${firstNonUtf8(bytes)} are none; a file saved as Latin-1 or UTF-16?): save it as UTF-8`,
    };
  let text = bytes.toString('utf8');
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  try {
    const value: unknown = JSON.parse(text);
    return { kind: 'parsed', value, duplicates: duplicateKeys(text) };
  } catch (error) {
    // Named by place, never by the file's text (jsonFault): a header value written without its quotes is a secret.
    const where = jsonFault(error, text, 'file');
    return { kind: 'problem', problem: `${shown}: not valid JSON${where === undefined ? '' : ` (${where})`}` };
  }
};
