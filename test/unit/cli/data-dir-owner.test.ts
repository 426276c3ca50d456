import { expect } from 'chai';
import { actAsDataDirOwner, CannotActAsOwner, type OwnerOf, type ProcessIdentity } from '../../../src/cli/data-dir-owner.js';

/** A process whose account changes are recorded, in order; `refuse` makes setuid throw as a root without CAP_SETUID does. */
const fakeProcess = (uid: number, refuse?: string): ProcessIdentity & { readonly calls: string[] } => {
  const calls: string[] = [];
  return {
    calls,
    getuid: () => uid,
    setgroups: (groups) => void calls.push(`setgroups ${groups.join(',')}`),
    setgid: (id) => void calls.push(`setgid ${id}`),
    setuid: (id) => {
      if (refuse !== undefined) throw Object.assign(new Error(refuse), { code: 'EPERM' });
      calls.push(`setuid ${id}`);
    },
  };
};

const ownedBy =
  (uid: number, gid: number): OwnerOf =>
  async () => ({ uid, gid });
const missing: OwnerOf = async () => undefined;

describe('cli: actAsDataDirOwner (sudo on the service account’s embedded database)', () => {
  it('run as root on a DATA_DIR another account owns, takes that account: its group alone, then its uid', async () => {
    const proc = fakeProcess(0);
    expect(await actAsDataDirOwner('/srv/data', proc, ownedBy(1001, 1002))).to.equal(1001);
    // The group before the uid: once the uid is not root, the groups can no longer change.
    expect(proc.calls).to.deep.equal(['setgroups 1002', 'setgid 1002', 'setuid 1001']);
  });

  it('changes nothing when not root, when DATA_DIR is root’s, or when it does not exist yet', async () => {
    for (const [proc, ownerOf] of [
      [fakeProcess(1000), ownedBy(1001, 1001)],
      [fakeProcess(0), ownedBy(0, 0)],
      [fakeProcess(0), missing],
    ] as const) {
      expect(await actAsDataDirOwner('/srv/data', proc, ownerOf)).to.equal(undefined);
      expect(proc.calls).to.deep.equal([]);
    }
  });

  it('changes nothing on a system without accounts (no setuid)', async () => {
    expect(await actAsDataDirOwner('/srv/data', { getuid: () => 0 }, ownedBy(1001, 1001))).to.equal(undefined);
  });

  it('a refused switch stops the command with one line naming DATA_DIR, the owner and how to run it instead', async () => {
    const error = await actAsDataDirOwner('/srv/data', fakeProcess(0, 'Operation not permitted'), ownedBy(1001, 1001)).then(
      () => expect.fail('the switch was refused'),
      (failure: unknown) => failure,
    );
    expect(error).to.be.instanceOf(CannotActAsOwner);
    expect((error as Error).message).to.equal(
      "DATA_DIR: /srv/data belongs to uid 1001, and this command, run as root, could not switch to that account before opening its embedded database (Operation not permitted); files it wrote as root would keep the service from opening the database: run it as that account, e.g. sudo -u '#1001' agent-gateway …",
    );
  });

  it('reads the owner from the disk by default: a missing DATA_DIR changes nothing', async () => {
    const proc = fakeProcess(0);
    expect(await actAsDataDirOwner('/nonexistent/agw-data-dir-owner', proc)).to.equal(undefined);
    expect(proc.calls).to.deep.equal([]);
  });
});
