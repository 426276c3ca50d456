import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foreignOwnedEntries, foreignOwnedReason } from '../../../src/adapters/persistence/foreign-owned-files.js';

/*
 * Files of another account in DATA_DIR: everything the test writes is its own account's, so
 * "another account" is any other uid given as `me` — no root, no chown needed.
 */
describe('persistence: files of another account in DATA_DIR', () => {
  const mine = process.getuid?.() ?? 0;
  const other = mine + 4242;
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agw-foreign-'));
    await mkdir(join(dir, 'pglite', 'global'), { recursive: true });
    await writeFile(join(dir, 'pglite', 'global', 'pg_control'), 'x');
    await writeFile(join(dir, 'pglite', 'PG_VERSION'), '17');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('finds none when every entry is this account’s', async () => {
    expect(await foreignOwnedEntries(dir, mine)).to.equal(undefined);
  });

  it('counts every entry of another owner, the directory itself included, and names the first three, in order', async () => {
    const found = await foreignOwnedEntries(dir, other);
    expect(found).to.deep.equal({ count: 5, owners: [mine], first: ['the directory itself', 'pglite', join('pglite', 'PG_VERSION')] });
  });

  it('says how many, whose, the first few, and the chown that gives them back, in one line', async () => {
    const reason = await foreignOwnedReason(dir, other);
    expect(reason).to.equal(
      `5 entries in ${dir} belong to another account than this process's (uid ${other}): uid ${mine}${mine === 0 ? ' (root)' : ''} — the directory itself, pglite, pglite/PG_VERSION, …. ` +
        `A process run as that account wrote them (a command or the service run as root, a restore); give them back to this account: chown -R ${other} ${dir}`,
    );
  });

  it('says nothing when this process is root (it opens anything), has no accounts, or the directory cannot be read', async () => {
    expect(await foreignOwnedReason(dir, 0)).to.equal(undefined);
    expect(await foreignOwnedReason(dir, undefined)).to.equal(undefined);
    expect(await foreignOwnedReason(join(dir, 'missing'), other)).to.equal(undefined);
  });
});
