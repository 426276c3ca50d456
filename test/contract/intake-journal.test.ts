import { expect } from 'chai';
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileIntakeJournal, JournalFull } from '../../src/adapters/intake/file-intake-journal.js';
import { fillingDisk } from '../fakes/filling-disk.js';
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

  it('cuts a line a crash left unfinished before it appends again: the next entry is not joined to it (and lost)', async () => {
    const file = join(await tempDir('intake-journal-reopen'), 'journal.jsonl');
    const first = new FileIntakeJournal(file);
    await first.append(journaled(1));
    await first.close();
    await appendFile(file, '{"v":1,"keyId":"half a li');
    const next = new FileIntakeJournal(file);
    await next.open();
    await next.append(journaled(2));
    expect(await next.read()).to.deep.equal({ entries: [journaled(1), journaled(2)], unreadable: 0 });
    await next.close();
  });

  it('takes nothing past its largest size: hasRoom says so first, and an append that would pass it is refused, nothing written', async () => {
    const file = join(await tempDir('intake-journal-full'), 'journal.jsonl');
    const size = Buffer.byteLength(`${JSON.stringify(journaled(1))}\n`) + 200;
    const journal = new FileIntakeJournal(file, 2 * size);
    await journal.open();
    expect(journal.hasRoom(size)).to.equal(true);
    await journal.append(journaled(1));
    await journal.append(journaled(2));
    expect(journal.hasRoom(size)).to.equal(false);
    let refused: unknown;
    await journal.append(journaled(3)).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(JournalFull);
    expect((await journal.read()).entries).to.deep.equal([journaled(1), journaled(2)]);
    // Room again once cleared; a full journal is not a failed one.
    await journal.clear();
    expect(journal.hasRoom(size)).to.equal(true);
    await journal.append(journaled(4));
    // A later process counts what the file holds.
    await journal.close();
    const later = new FileIntakeJournal(file, 2 * size);
    await later.open();
    expect(later.hasRoom(size)).to.equal(true);
    expect(later.hasRoom(2 * size)).to.equal(false);
    await later.close();
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

  it('after a write the disk refused (ENOSPC), takes nothing more; closed and opened again once there is room, appends again', async () => {
    const file = join(await tempDir('intake-journal-enospc'), 'journal.jsonl');
    const disk = fillingDisk();
    const journal = new FileIntakeJournal(file, undefined, disk.fs);
    await journal.open();
    await journal.append(journaled(1));
    disk.full = true;
    let code: string | undefined;
    await journal.append(journaled(2)).catch((error: NodeJS.ErrnoException) => (code = error.code));
    expect(code).to.equal('ENOSPC');
    expect(journal.hasRoom(0)).to.equal(false);
    // Room again: the file's state is unknown, nothing more is taken from it while it is open.
    disk.full = false;
    let refused = false;
    await journal.append(journaled(3)).catch(() => (refused = true));
    expect(refused).to.equal(true);
    // Closed (the service sets the file aside then) and opened: a new start.
    await journal.close();
    await journal.open();
    expect(journal.hasRoom(0)).to.equal(true);
    await journal.append(journaled(4));
    expect((await journal.read()).entries).to.deep.equal([journaled(1), journaled(4)]);
    await journal.close();
  });
});
