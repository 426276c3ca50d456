import { expect } from 'chai';
import { postgresSocketDirs } from '../../../src/adapters/persistence/postgres-socket-dirs.js';

/* The directories JOB_SANDBOX=bwrap hides so that an agent's command cannot reach the gateway's PostgreSQL through its Unix socket. */
describe('postgresSocketDirs', () => {
  const defaults = ['/run/postgresql', '/var/run/postgresql'];

  it('names the default socket directories whatever the database (the embedded one, a TCP server)', () => {
    expect(postgresSocketDirs(undefined, undefined)).to.deep.equal(defaults);
    expect(postgresSocketDirs('postgres://gateway:secret@db.example.com:5432/gateway', undefined)).to.deep.equal(defaults);
  });

  it("adds DATABASE_URL's socket directory: a host parameter (plain or percent-encoded) or a percent-encoded host", () => {
    expect(postgresSocketDirs('postgres:///gateway?host=/srv/pg', undefined)).to.deep.equal([...defaults, '/srv/pg']);
    expect(postgresSocketDirs('postgresql:///gateway?host=%2Fsrv%2Fpg&sslmode=disable', undefined)).to.deep.equal([...defaults, '/srv/pg']);
    expect(postgresSocketDirs('postgres://%2Fsrv%2Fpg/gateway', undefined)).to.deep.equal([...defaults, '/srv/pg']);
    expect(postgresSocketDirs('postgres://localhost/gateway?host=/srv/a,/srv/b', undefined)).to.deep.equal([...defaults, '/srv/a', '/srv/b']);
  });

  it('adds PGHOST when it is a directory (node-postgres connects there when the URL names no host), and nothing that is not a path', () => {
    expect(postgresSocketDirs('postgres:///gateway', '/srv/pg')).to.deep.equal([...defaults, '/srv/pg']);
    expect(postgresSocketDirs('postgres:///gateway', 'db.example.com')).to.deep.equal(defaults);
    expect(postgresSocketDirs('postgres://db.example.com/gateway?host=relative/dir', '')).to.deep.equal(defaults);
    expect(postgresSocketDirs('not a url', undefined)).to.deep.equal(defaults);
  });
});
