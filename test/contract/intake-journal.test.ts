import { expect } from 'chai';
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileIntakeJournal } from '../../src/adapters/intake/file-intake-journal.js';
import { InMemoryIntakeJournal } from '../fakes/in-memory-intake-journal.js';
import { tempDir } from '../support/gateway-process.js';
import { describeIntakeJournalContract, journaled } from './intake-journal.contract.js';

describeIntakeJournalContract('in-memory fake', async () => {
  const journal = new InMemoryIntakeJournal();
  return { journal, reopen: async () => journal };
});

describeIntakeJournalContract('a file of JSON lines', async () => {
  const file = join(await tempDir('intake-journal'), 'intake', 'journal.jsonl');
  return { journal: new FileIntakeJournal(file), reopen: async () => new FileIntakeJournal(file) };
});

describe('FileIntakeJournal', () => {
  it('leaves out a last line cut short by a crash (never acknowledged) and counts a damaged whole line as unreadable', async () => {
    const file = join(await tempDir('intake-journal-torn'), 'journal.jsonl');
    const journal = new FileIntakeJournal(file);
    await journal.append(journaled(1));
    await journal.close();
    await appendFile(file, '{"v":1,"keyId":"x"}\nnot json\n{"v":2,"keyId":"k","keyHash":"h","request":{}}\n');
    await journal.append(journaled(2));
    await journal.close();
    const whole = await readFile(file, 'utf8');
    // A crash in the middle of the next write: half a line, no line break.
    await writeFile(file, `${whole}${whole.split('\n')[0].slice(0, 40)}`);
    expect(await new FileIntakeJournal(file).read()).to.deep.equal({ entries: [journaled(1), journaled(2)], unreadable: 3 });
  });

  it('keeps its file owner-only, in a directory it makes owner-only', async () => {
    const dir = join(await tempDir('intake-journal-mode'), 'intake');
    const journal = new FileIntakeJournal(join(dir, 'journal.jsonl'));
    await journal.append(journaled(1));
    await journal.close();
    expect((await stat(dir)).mode & 0o777).to.equal(0o700);
    expect((await stat(join(dir, 'journal.jsonl'))).mode & 0o777).to.equal(0o600);
  });

  it('rejects an append it cannot keep, and every append after it (the file is in an unknown state)', async () => {
    const root = await tempDir('intake-journal-fail');
    // A file where its directory should be: the journal cannot be opened.
    await writeFile(join(root, 'intake'), '');
    const journal = new FileIntakeJournal(join(root, 'intake', 'journal.jsonl'));
    const first = await journal.append(journaled(1)).then(
      () => null,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(first).to.be.oneOf(['EEXIST', 'ENOTDIR']);
    // The way cleared: the journal still takes nothing more.
    await rm(join(root, 'intake'));
    let refused = false;
    await journal.append(journaled(2)).catch(() => (refused = true));
    expect(refused).to.equal(true);
  });
});
