import { expect } from 'chai';
import { keyedTaskId, orderedTaskId } from '../../../src/adapters/queue/task-ids.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('task ids (PgBossTaskQueue)', () => {
  it('orderedTaskId: UUIDv7s that sort in the order they were made, also thousands in one millisecond', () => {
    const ids = Array.from({ length: 10_000 }, () => orderedTaskId());
    for (const id of ids)
      expect(id)
        .to.match(UUID)
        .and.match(/^.{14}7/);
    expect(new Set(ids).size).to.equal(ids.length);
    expect([...ids].sort()).to.deep.equal(ids);
    // The random part differs from id to id, across many refills of the pool it is drawn from.
    expect(new Set(ids.map((id) => id.slice(-17))).size).to.equal(ids.length);
  });

  it('orderedTaskId: starts with the current time in milliseconds', () => {
    const before = Date.now();
    const id = orderedTaskId();
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms)
      .to.be.at.least(before)
      .and.at.most(Date.now() + 5);
  });

  it('keyedTaskId: the same id for the same queue and key, another for another queue or key', () => {
    expect(keyedTaskId('chat-message', 'telegram:update:1')).to.equal(keyedTaskId('chat-message', 'telegram:update:1'));
    expect(keyedTaskId('chat-message', 'telegram:update:1'))
      .to.match(UUID)
      .and.match(/^.{14}8/);
    expect(keyedTaskId('chat-message', 'telegram:update:2')).to.not.equal(keyedTaskId('chat-message', 'telegram:update:1'));
    expect(keyedTaskId('other', 'telegram:update:1')).to.not.equal(keyedTaskId('chat-message', 'telegram:update:1'));
    // queue and key are separated: ("ab", "c") is not ("a", "bc")
    expect(keyedTaskId('ab', 'c')).to.not.equal(keyedTaskId('a', 'bc'));
  });

  it('keyedTaskId: keys queued one after another do not get ids in that order (so the queue orders a group by more than ids)', () => {
    // The keys of the TaskQueue contract's case for a group queued with keys at the same moment.
    const ids = Array.from({ length: 20 }, (_, n) => keyedTaskId('ordered', `chat:update:${n}`));
    expect([...ids].sort()).to.not.deep.equal(ids);
    expect([...ids.slice(0, 10)].sort()).to.not.deep.equal(ids.slice(0, 10));
  });
});
