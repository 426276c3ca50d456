import { expect } from 'chai';
import type { Db } from 'pg-boss';
import { insertJobs } from 'pg-boss/dist/plans.js';
import { inOrder } from '../../../src/adapters/queue/pg-boss-task-queue.js';

/** A Db that records the statements it was asked to run and answers each row with its stamp. */
const recordingDb = (): Db & { readonly ran: string[] } => {
  const ran: string[] = [];
  return {
    ran,
    executeSql: async (text: string) => {
      ran.push(text);
      return { rows: [{ id: 'a', created_us: '1700000000000001' }] };
    },
  };
};

describe('PgBossTaskQueue: the ordered insert (inOrder)', () => {
  it("runs pg-boss's plain insert, which ends `RETURNING id`, and learns the newest stamp", async () => {
    const db = recordingDb();
    const told: bigint[] = [];
    await inOrder(db, ['a'], undefined, (newest) => told.push(newest)).executeSql(insertJobs('pgboss', { table: 'job', name: 'chat' }), ['[]']);
    expect(db.ran).to.have.length(1);
    expect(db.ran[0]).to.match(/RETURNING id, \(extract\(epoch FROM created_on\) \* 1000000\)::bigint::text AS created_us\s*$/);
    expect(told).to.deep.equal([1700000000000001n]);
  });

  it('refuses, before anything runs, the insert pg-boss wraps in a CTE for a queue with notify on', async () => {
    const db = recordingDb();
    const text = insertJobs('pgboss', { table: 'job', name: 'chat', notify: true });
    expect(text).to.include('RETURNING id, start_after');
    let error: unknown;
    try {
      await inOrder(db, ['a'], undefined, () => undefined).executeSql(text, ['[]']);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(Error).with.property('message').that.includes('tasks cannot be stored in order');
    expect(db.ran).to.deep.equal([]);
  });

  it('refuses an insert that does not answer its ids, before anything runs', async () => {
    const db = recordingDb();
    let error: unknown;
    try {
      await inOrder(db, ['a'], undefined, () => undefined).executeSql(insertJobs('pgboss', { table: 'job', name: 'chat', returnId: false }), ['[]']);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(Error);
    expect(db.ran).to.deep.equal([]);
  });
});
