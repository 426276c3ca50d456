import { expect } from 'chai';
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { directoryIdentity } from '../../../src/adapters/shared/directory-identity.js';

describe('directoryIdentity (what the lock file records and the admin socket reports of a data directory)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'directory-identity-'));
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  it('is the same through a symbolic link (its real path), and another for another directory (a copy)', async () => {
    const original = join(root, 'data');
    const copy = join(root, 'copy');
    await mkdir(original);
    await mkdir(copy);
    await symlink(original, join(root, 'link'));
    const identity = await directoryIdentity(original);
    expect(identity.path).to.equal(await realpath(original));
    expect(identity.id).to.match(/^\d+:\d+$/);
    expect(await directoryIdentity(join(root, 'link'))).to.deep.equal(identity);
    expect((await directoryIdentity(copy)).id).to.not.equal(identity.id);
  });

  it('throws for a missing directory', async () => {
    const error = await directoryIdentity(join(root, 'missing')).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).to.have.property('code', 'ENOENT');
  });
});
