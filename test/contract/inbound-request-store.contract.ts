import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { InboundRequest, InboundRequestStore } from '../../src/ports/inbound-request-store.js';

export interface InboundRequestStoreHarness {
  readonly store: InboundRequestStore;
  close(): Promise<void>;
}

let n = 0;
/** A fresh request id per call, so tests share no rows. */
const nextId = (): string => `10000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

/** The behaviour every InboundRequestStore adapter must have. */
export const describeInboundRequestStoreContract = (name: string, open: () => Promise<InboundRequestStoreHarness>): void => {
  describe(`InboundRequestStore contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: InboundRequestStoreHarness;
    before(async () => {
      harness = await open();
    });
    after(async () => harness?.close());

    const request = (overrides: Partial<InboundRequest> = {}): InboundRequest => ({
      id: nextId(),
      watchPath: '/webhook',
      receivedAt: new Date('2026-11-24T10:00:00.123Z'),
      request: JSON.stringify({ body: { a: 1 }, query: {}, headers: {} }),
      triggers: ['deploy', 'notify'],
      runs: [],
      replayOf: null,
      ...overrides,
    });

    it('finds a recorded request by id with every field as recorded', async () => {
      const recorded = request();
      await harness.store.record(recorded);
      expect(await harness.store.find(recorded.id)).to.deep.equal(recorded);
    });

    it('stores every one of many requests recorded at once, each as recorded, the same id twice once', async () => {
      const many = Array.from({ length: 120 }, (_, i) =>
        request({ watchPath: `/burst/${i}`, request: JSON.stringify({ body: { i } }), runs: [{ trigger: 'deploy', runId: nextId() }] }),
      );
      const repeat = { ...many[7], watchPath: '/repeat' };
      const stored = await Promise.all([...many, repeat].map((each) => harness.store.record(each)));
      expect(stored.filter((fresh) => fresh).length, 'the repeat is told it stored nothing').to.equal(120);
      const found = await Promise.all(many.map((each) => harness.store.find(each.id)));
      expect(found).to.deep.equal(many);
    });

    it('finds nothing (null) for an id never recorded, or one that is no id at all', async () => {
      expect(await harness.store.find(nextId())).to.equal(null);
      expect(await harness.store.find('not-a-uuid')).to.equal(null);
    });

    it('keeps the request text exactly: escaped NUL and lone surrogates, quotes and placeholders, key order, a megabyte, emoji', async () => {
      const body = {
        z: 'a\u0000b',
        a: '\ud800 alone',
        q: `it's ? ?? $1 :x \\ " '); drop table inbound_requests; --`,
        m: [1, { y: 2, b: 3 }],
        e: '🎉 ünïcode',
        big: 'x'.repeat(1024 * 1024),
      };
      const recorded = request({ request: JSON.stringify({ body, query: { q: 'v' }, headers: { 'x-a': 'b' } }) });
      await harness.store.record(recorded);
      const found = await harness.store.find(recorded.id);
      expect(found?.request).to.equal(recorded.request);
      expect(Object.keys((JSON.parse(found!.request) as { body: object }).body)).to.deep.equal(['z', 'a', 'q', 'm', 'e', 'big']);
    });

    it('keeps the first record when an id is recorded again', async () => {
      const first = request();
      expect(await harness.store.record(first)).to.equal(true);
      expect(await harness.store.record({ ...first, watchPath: '/codehost/webhook', triggers: ['other'] })).to.equal(false);
      expect(await harness.store.find(first.id)).to.deep.equal(first);
    });

    it('deletes requests received before a cutoff in bounded batches, oldest first, keeping later ones', async () => {
      // Years before the other tests' requests, which this leaves alone.
      const oldest = request({ receivedAt: new Date('2020-01-01T00:00:00Z') });
      const old = request({ receivedAt: new Date('2020-02-01T00:00:00Z') });
      const later = request({ receivedAt: new Date('2020-12-01T00:00:00Z') });
      for (const one of [later, old, oldest]) await harness.store.record(one);
      const cutoff = new Date('2020-06-01T00:00:00Z');
      expect(await harness.store.deleteOlderThan(cutoff, 1)).to.equal(1);
      expect(await harness.store.find(oldest.id)).to.equal(null);
      expect(await harness.store.find(old.id)).to.deep.equal(old);
      expect(await harness.store.deleteOlderThan(cutoff, 5)).to.equal(1);
      expect(await harness.store.deleteOlderThan(cutoff, 5)).to.equal(0);
      expect(await harness.store.find(old.id)).to.equal(null);
      expect(await harness.store.find(later.id)).to.deep.equal(later);
    });

    describe('dispatch of the runs', () => {
      // Years before every other test's requests (the store is shared): these are the oldest undispatched.
      let at = Date.parse('2001-01-01T00:00:00Z');
      const early = (runs: InboundRequest['runs']): InboundRequest => request({ receivedAt: new Date((at += 1000)), runs });
      const run = (trigger = 'deploy') => ({ trigger, runId: nextId() });

      it('lists a request with runs as undispatched, oldest first, without its text, until it is marked dispatched', async () => {
        const first = early([run(), run('notify')]);
        const second = early([run()]);
        await harness.store.record(second);
        await harness.store.record(first);
        const listed = await harness.store.undispatched(new Date(at + 1), 2);
        expect(listed).to.deep.equal([
          { ...first, request: '' },
          { ...second, request: '' },
        ]);
        await harness.store.markDispatched([first.id, second.id, nextId(), 'not-a-uuid']);
        expect((await harness.store.undispatched(new Date(at + 1), 10)).map((one) => one.id)).to.not.include.members([first.id, second.id]);
        // marked, the request itself is unchanged
        expect(await harness.store.find(first.id)).to.deep.equal(first);
      });

      it('counts the requests with runs not yet dispatched', async () => {
        const before = await harness.store.countUndispatched();
        const a = early([run()]);
        const b = early([run(), run()]);
        await harness.store.record(a);
        await harness.store.record(b);
        await harness.store.record(early([]));
        expect(await harness.store.countUndispatched()).to.equal(before + 2);
        await harness.store.markDispatched([a.id, b.id]);
        expect(await harness.store.countUndispatched()).to.equal(before);
      });

      it('never lists a request that started no run, nor one received at or after the bound', async () => {
        const none = early([]);
        const bound = new Date(at + 1000);
        const atBound = request({ receivedAt: bound, runs: [run()] });
        await harness.store.record(none);
        await harness.store.record(atBound);
        const ids = (await harness.store.undispatched(bound, 500)).map((one) => one.id);
        expect(ids).to.not.include(none.id);
        expect(ids).to.not.include(atBound.id);
        await harness.store.markDispatched([atBound.id]);
      });

      it('keeps an undispatched request from retention whatever its age, and deletes it once dispatched', async () => {
        const waiting = early([run()]);
        await harness.store.record(waiting);
        // Only this test's request is older than this cutoff and dispatched-or-not in question.
        const cutoff = new Date(at + 1);
        await harness.store.deleteOlderThan(cutoff, 500);
        expect(await harness.store.find(waiting.id)).to.deep.equal(waiting);
        await harness.store.markDispatched([waiting.id]);
        await harness.store.deleteOlderThan(cutoff, 500);
        expect(await harness.store.find(waiting.id)).to.equal(null);
      });
    });

    it('keeps the fired trigger names in order, none included', async () => {
      const none = request({ triggers: [] });
      const three = request({ triggers: ['c', 'a', 'b'] });
      await harness.store.record(none);
      await harness.store.record(three);
      expect((await harness.store.find(none.id))?.triggers).to.deep.equal([]);
      expect((await harness.store.find(three.id))?.triggers).to.deep.equal(['c', 'a', 'b']);
    });

    it('keeps the trigger runs a request started and the request it replays', async () => {
      const original = request({
        runs: [
          { trigger: 'deploy', runId: nextId() },
          { trigger: 'notify', runId: nextId() },
        ],
      });
      const replay = request({ triggers: ['deploy'], runs: [{ trigger: 'deploy', runId: nextId() }], replayOf: original.id });
      await harness.store.record(original);
      await harness.store.record(replay);
      expect(await harness.store.find(original.id)).to.deep.equal(original);
      expect(await harness.store.find(replay.id)).to.deep.equal(replay);
    });

    describe('#list', () => {
      // A path of its own per test, so that the other tests' requests never show.
      let path = 0;
      const ownPath = (): string => `/list-${++path}-${Date.now()}`;

      it('lists newest first without the request text, at most `limit`', async () => {
        const watchPath = ownPath();
        const times = ['2026-11-24T10:00:00Z', '2026-11-24T12:00:00Z', '2026-11-24T11:00:00Z'];
        const stored = times.map((time) => request({ watchPath, receivedAt: new Date(time), runs: [{ trigger: 'deploy', runId: nextId() }] }));
        for (const one of stored) await harness.store.record(one);
        const listed = await harness.store.list({ watchPath, limit: 10 });
        expect(listed.map((one) => one.id)).to.deep.equal([stored[1].id, stored[2].id, stored[0].id]);
        expect(listed[0]).to.deep.equal({ ...stored[1], request: '' });
        expect((await harness.store.list({ watchPath, limit: 2 })).map((one) => one.id)).to.deep.equal([stored[1].id, stored[2].id]);
      });

      it('pages with `before`: strictly earlier requests only', async () => {
        const watchPath = ownPath();
        const first = request({ watchPath, receivedAt: new Date('2026-11-24T10:00:00Z') });
        const second = request({ watchPath, receivedAt: new Date('2026-11-24T11:00:00Z') });
        await harness.store.record(first);
        await harness.store.record(second);
        const page = await harness.store.list({ watchPath, before: second.receivedAt, limit: 10 });
        expect(page.map((one) => one.id)).to.deep.equal([first.id]);
      });

      it('pages with `before` and `beforeId` through many requests of one millisecond, each listed exactly once, in the list order', async () => {
        const watchPath = ownPath();
        const same = new Date('2026-11-24T10:00:00.123Z');
        const stored = [
          request({ watchPath, receivedAt: new Date('2026-11-24T10:00:00.124Z') }),
          // Recorded at once, as under load: one millisecond, ids in no order (as the service makes them).
          ...Array.from({ length: 23 }, () => request({ id: randomUUID(), watchPath, receivedAt: same })),
          request({ watchPath, receivedAt: new Date('2026-11-24T10:00:00.122Z') }),
        ];
        await Promise.all(stored.map((one) => harness.store.record(one)));
        const all = (await harness.store.list({ watchPath, limit: 500 })).map((one) => one.id);
        const byId = (a: InboundRequest, b: InboundRequest) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
        const expected = [stored[0], ...stored.slice(1, -1).sort(byId), stored.at(-1)!].map((one) => one.id);
        expect(all).to.deep.equal(expected);
        for (const limit of [1, 2, 5, 7]) {
          const paged: string[] = [];
          let page = await harness.store.list({ watchPath, limit });
          while (page.length > 0) {
            paged.push(...page.map((one) => one.id));
            const last = page.at(-1)!;
            page = await harness.store.list({ watchPath, before: last.receivedAt, beforeId: last.id, limit });
          }
          expect(paged, `pages of ${limit}`).to.deep.equal(expected);
        }
        // `before` alone: received strictly before that time, as before.
        expect((await harness.store.list({ watchPath, before: same, limit: 500 })).map((one) => one.id)).to.deep.equal([stored.at(-1)!.id]);
      });

      it('filters by a trigger the request fired, a hostile name matching nothing and changing nothing', async () => {
        const watchPath = ownPath();
        const deploy = request({ watchPath, triggers: ['deploy', 'notify'] });
        const other = request({ watchPath, triggers: ['other'] });
        await harness.store.record(deploy);
        await harness.store.record(other);
        expect((await harness.store.list({ watchPath, trigger: 'notify', limit: 10 })).map((one) => one.id)).to.deep.equal([deploy.id]);
        for (const hostile of [`x"] ' or 1=1 --`, '"]', 'deploy"', '%', '']) {
          expect(await harness.store.list({ watchPath, trigger: hostile, limit: 10 }), hostile).to.deep.equal([]);
        }
        expect(await harness.store.list({ watchPath, limit: 10 })).to.have.length(2);
      });

      it('lists every path without a path filter, and nothing for a path never called', async () => {
        const a = request({ watchPath: ownPath(), receivedAt: new Date('2099-01-01T00:00:00Z') });
        await harness.store.record(a);
        expect((await harness.store.list({ limit: 1 }))[0]?.id).to.equal(a.id);
        expect(await harness.store.list({ watchPath: ownPath(), limit: 10 })).to.deep.equal([]);
      });
    });
  });
};
