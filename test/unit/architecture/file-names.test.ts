import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** One file-name convention everywhere: kebab-case, the migrations (named like their class) aside. */
const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+)*$/;
const EXCEPTIONS = [/^src\/adapters\/persistence\/migrations\/Migration\d{14}_[a-z0-9_]+\.ts$/, /(^|\/)README\.md$/];

const entries = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? [path, ...entries(path)] : [path];
  });

describe('file names', () => {
  it('are kebab-case in src/, test/ and bench/, folders included (migrations are named like their class)', () => {
    const offenders = ['src', 'test', 'bench']
      .flatMap((top) => entries(join(ROOT, top)))
      .map((path) => relative(ROOT, path))
      .filter((path) => !path.split('/').includes('node_modules'))
      .filter((path) => !EXCEPTIONS.some((exception) => exception.test(path)))
      .filter((path) => !KEBAB.test(path.split('/').at(-1)!));
    expect(offenders).to.deep.equal([]);
  });
});
