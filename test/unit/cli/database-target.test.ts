import { expect } from 'chai';
import { readFileSync, readlinkSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describeTarget, findDatabaseTarget, postgresLocation } from '../../../src/cli/database-target.js';
import { tempDir } from '../../support/gateway-process.js';

describe('the database a CLI command uses', () => {
  it('names PostgreSQL as host:port/database, never the user or the password', () => {
    const cases: Array<[string, string]> = [
      ['postgres://agw:s3cr3t-pw@db.internal:6543/gateway', 'db.internal:6543/gateway'],
      ['postgresql://agw:s3cr3t-pw@db.internal/gateway?sslmode=require', 'db.internal:5432/gateway'],
      ['postgres://agw:s3cr3t-pw@localhost/gateway?host=/var/run/postgresql', '/var/run/postgresql:5432/gateway'],
      ['postgres://agw:s3cr3t-pw@%2Fvar%2Frun%2Fpostgresql/gateway', '/var/run/postgresql:5432/gateway'],
      ['postgres://agw:s3cr3t-pw@127.0.0.1:5432/gate%20way', '127.0.0.1:5432/gate way'],
    ];
    for (const [url, location] of cases) {
      expect(postgresLocation(url)).to.equal(location);
      const line = describeTarget({ kind: 'postgresql', url });
      expect(line).to.equal(`using PostgreSQL at ${location}`);
      expect(line).to.not.include('s3cr3t');
      expect(line).to.not.include('agw:');
    }
  });

  it('says whether a running server holds the embedded database', async () => {
    const dataDir = await tempDir('target');
    const fresh = await findDatabaseTarget({ databaseUrl: undefined, dataDir });
    expect(fresh).to.deep.equal({ kind: 'embedded', dataDir, exists: false });
    expect(describeTarget(fresh)).to.equal(`using the embedded database in ${dataDir} (not in use by a server)`);

    // A live process (this one's parent) named in the lock file holds it.
    await writeFile(join(dataDir, 'embedded.pid'), String(process.ppid));
    const held = await findDatabaseTarget({ databaseUrl: undefined, dataDir });
    expect(held).to.deep.equal({ kind: 'server', dataDir, pid: process.ppid, socketPath: join(dataDir, 'admin.sock') });
    expect(describeTarget(held)).to.equal(`using the embedded database in ${dataDir} (through the running server, pid ${process.ppid})`);

    // As the lock file is written: the pid, then where it lives and when it started. A pid that
    // runs but started at another time was reused: the lock is a dead process's.
    if (process.platform === 'linux') {
      const where = (start: string) =>
        `${process.ppid}\n${JSON.stringify({ host: hostname(), boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), pidns: readlinkSync('/proc/self/ns/pid'), start })}\n`;
      const stat = readFileSync(`/proc/${process.ppid}/stat`, 'utf8');
      const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      await writeFile(join(dataDir, 'embedded.pid'), where(started));
      expect(await findDatabaseTarget({ databaseUrl: undefined, dataDir })).to.deep.equal(held);
      await writeFile(join(dataDir, 'embedded.pid'), where(String(Number(started) + 1)));
      expect(await findDatabaseTarget({ databaseUrl: undefined, dataDir })).to.deep.equal({ kind: 'embedded', dataDir, exists: false });
    }

    // A lock left by a dead process is no server; an existing database is said to exist.
    await writeFile(join(dataDir, 'embedded.pid'), '2147483646');
    await mkdir(join(dataDir, 'pglite'));
    await writeFile(join(dataDir, 'pglite', 'PG_VERSION'), '17\n');
    expect(await findDatabaseTarget({ databaseUrl: undefined, dataDir })).to.deep.equal({ kind: 'embedded', dataDir, exists: true });
  });

  it('uses PostgreSQL whenever DATABASE_URL is set, whatever DATA_DIR holds', async () => {
    const dataDir = await tempDir('target-pg');
    await writeFile(join(dataDir, 'embedded.pid'), String(process.ppid));
    expect(await findDatabaseTarget({ databaseUrl: 'postgres://h/db', dataDir })).to.deep.equal({ kind: 'postgresql', url: 'postgres://h/db' });
  });
});
