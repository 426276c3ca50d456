import { expect } from 'chai';
import { mkdtemp, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FileIntakeJournal,
  type JournalFs,
  LeftJournalsNotStored,
  leftJournals,
  setAsideJournal,
  storeLeftJournals,
} from '../../../src/adapters/intake/file-intake-journal.js';
import { journaled } from '../../contract/intake-journal.contract.js';

/** A file system without hard links (SMB/CIFS, vfat/exFAT, some FUSE mounts): link() refused with `code`. */
const noHardLinks = (code: string, renameFails?: Error): JournalFs => ({
  open,
  link: async () => {
    throw Object.assign(new Error(`${code}: operation not permitted, link`), { code });
  },
  rename: async (from, to) => {
    if (renameFails !== undefined) throw renameFails;
    await rename(from, to);
  },
});

describe('intake journals set aside (renamed) to be stored while the journal takes requests again', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agw-set-aside-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('moves a journal holding entries aside whole; the journal starts empty and takes entries; the set-aside file lists them', async () => {
    const file = join(dir, 'requests-1.jsonl');
    const journal = new FileIntakeJournal(file);
    await journal.append(journaled(1));
    await journal.append(journaled(2));
    await journal.close();
    await setAsideJournal(file);
    await journal.open();
    expect((await journal.read()).entries).to.deep.equal([]);
    await journal.append(journaled(3));
    const left = await leftJournals(dir);
    expect(left).to.have.length(1);
    expect((await new FileIntakeJournal(left[0]).read()).entries).to.deep.equal([journaled(1), journaled(2)]);
    expect((await journal.read()).entries).to.deep.equal([journaled(3)]);
    await journal.close();
  });

  it('never replaces a set-aside file not stored yet, whatever its name (a clock set back)', async () => {
    const file = join(dir, 'requests-1.jsonl');
    const journal = new FileIntakeJournal(file);
    // Set-aside files of every name this process could pick in the next seconds, each holding an entry.
    const now = Date.now();
    for (let t = now - 10; t <= now + 1000; t += 1) for (let n = 0; n < 3; n++) await writeFile(join(dir, `left-${t}-${n}.jsonl`), 'kept\n');
    await journal.append(journaled(1));
    await journal.close();
    await setAsideJournal(file);
    const texts = await Promise.all((await leftJournals(dir)).map((left) => readFile(left, 'utf8')));
    expect(texts.filter((text) => text === 'kept\n')).to.have.length(1011 * 3);
    expect(texts.filter((text) => text !== 'kept\n')).to.have.length(1);
  });

  it('leaves an empty or missing journal where it is, and lists only set-aside files, oldest first', async () => {
    const empty = join(dir, 'requests-2.jsonl');
    await writeFile(empty, '');
    await setAsideJournal(empty);
    await setAsideJournal(join(dir, 'missing.jsonl'));
    expect(await readdir(dir)).to.deep.equal(['requests-2.jsonl']);
    for (const name of ['left-20-0.jsonl', 'left-3-1.jsonl', 'left-3-0.jsonl', 'journal.jsonl', 'left-x-1.jsonl']) await writeFile(join(dir, name), '');
    expect((await leftJournals(dir)).map((file) => file.slice(dir.length + 1))).to.deep.equal(['left-3-0.jsonl', 'left-3-1.jsonl', 'left-20-0.jsonl']);
    expect(await leftJournals(join(dir, 'none'))).to.deep.equal([]);
  });

  for (const code of ['EPERM', 'EOPNOTSUPP', 'ENOTSUP', 'ENOSYS'])
    it(`where hard links are refused (${code}), renames the journal over a name it reserved first: never over a set-aside file not stored yet`, async () => {
      const file = join(dir, 'requests-1.jsonl');
      const journal = new FileIntakeJournal(file);
      const now = Date.now();
      for (let t = now - 10; t <= now + 300; t += 1) for (let n = 0; n < 3; n++) await writeFile(join(dir, `left-${t}-${n}.jsonl`), 'kept\n');
      await journal.append(journaled(1));
      await journal.append(journaled(2));
      await journal.close();
      await setAsideJournal(file, noHardLinks(code));
      const left = await leftJournals(dir);
      const texts = await Promise.all(left.map((name) => readFile(name, 'utf8')));
      expect(texts.filter((text) => text === 'kept\n')).to.have.length(311 * 3);
      const moved = left.filter((_, i) => texts[i] !== 'kept\n');
      expect(moved).to.have.length(1);
      expect((await new FileIntakeJournal(moved[0]).read()).entries).to.deep.equal([journaled(1), journaled(2)]);
      // The journal starts empty and takes entries.
      await journal.open();
      await journal.append(journaled(3));
      expect((await journal.read()).entries).to.deep.equal([journaled(3)]);
      await journal.close();
    });

  it('where neither a link nor a rename works, fails and leaves the journal and the directory as they were', async () => {
    const file = join(dir, 'requests-1.jsonl');
    const journal = new FileIntakeJournal(file);
    await journal.append(journaled(1));
    await journal.close();
    const refused = Object.assign(new Error('EPERM: operation not permitted, rename'), { code: 'EPERM' });
    let failure: unknown;
    await setAsideJournal(file, noHardLinks('EPERM', refused)).catch((error: unknown) => (failure = error));
    expect(failure).to.equal(refused);
    expect(await readdir(dir)).to.deep.equal(['requests-1.jsonl']);
    expect((await journal.read()).entries).to.deep.equal([journaled(1)]);
  });

  it('a link refused for another reason fails the set-aside, the journal kept', async () => {
    const file = join(dir, 'requests-1.jsonl');
    const journal = new FileIntakeJournal(file);
    await journal.append(journaled(1));
    await journal.close();
    let code: string | undefined;
    await setAsideJournal(file, noHardLinks('EIO')).catch((error: NodeJS.ErrnoException) => (code = error.code));
    expect(code).to.equal('EIO');
    expect(await readdir(dir)).to.deep.equal(['requests-1.jsonl']);
  });

  it('stores every set-aside journal it can, though one before them fails each time: that one is kept, named, and the pass fails', async () => {
    const names = ['left-1-0.jsonl', 'left-2-0.jsonl', 'left-3-0.jsonl'];
    for (const [i, name] of names.entries()) {
      const journal = new FileIntakeJournal(join(dir, name));
      await journal.append(journaled(i + 1));
      await journal.close();
    }
    const stored: unknown[] = [];
    const failed: string[] = [];
    const broken = new Error('EIO: i/o error, read');
    let failure: unknown;
    await storeLeftJournals(
      dir,
      async (journal) => {
        const { entries } = await journal.read();
        if (entries[0].request.id === journaled(1).request.id) throw broken;
        stored.push(...entries);
      },
      (file, error) => failed.push(`${file.slice(dir.length + 1)}: ${(error as Error).message}`),
    ).catch((error: unknown) => (failure = error));
    expect(stored).to.deep.equal([journaled(2), journaled(3)]);
    expect(failed).to.deep.equal(['left-1-0.jsonl: EIO: i/o error, read']);
    expect(failure).to.be.instanceOf(LeftJournalsNotStored);
    expect((failure as LeftJournalsNotStored).files).to.deep.equal([join(dir, 'left-1-0.jsonl')]);
    expect((failure as LeftJournalsNotStored).errors).to.deep.equal([broken]);
    // The one that failed waits for the next pass; the others are removed.
    expect(await readdir(dir)).to.deep.equal(['left-1-0.jsonl']);
    // The next pass, once it can: stored, removed, and the pass succeeds.
    await storeLeftJournals(
      dir,
      async (journal) => void stored.push(...(await journal.read()).entries),
      () => expect.fail('nothing fails'),
    );
    expect(stored).to.deep.equal([journaled(2), journaled(3), journaled(1)]);
    expect(await readdir(dir)).to.deep.equal([]);
  });
});
