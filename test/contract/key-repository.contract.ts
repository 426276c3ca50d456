import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { ApiKeyRecord } from '../../src/domain/auth/api-key-record.js';
import { DomainError } from '../../src/domain/errors/domain-error.js';
import type { KeyRepository } from '../../src/ports/key-repository.js';

export interface KeyRepositoryHarness {
  readonly repository: KeyRepository;
  /** Deletes a record behind the repository's back (plain SQL from another connection), when the adapter has such a way. */
  readonly deleteElsewhere?: (id: string) => Promise<void>;
  /** Inserts a record behind the repository's back (plain SQL from another connection), when the adapter has such a way. */
  readonly insertElsewhere?: (record: ApiKeyRecord) => Promise<void>;
  /** Another repository on the same store (another replica), when the adapter has one. */
  readonly replica?: KeyRepository;
  /** Statements the repository sent to its store so far, when they can be counted. */
  readonly queries?: () => number;
  /**
   * Holds, from now on, the change notifications the repository gets (a notice still on its way),
   * and the answer of its next lookup of `digest` once its store has answered it (`queried`): a
   * lookup that read a record and is answered later, with what happened meanwhile not yet
   * notified. `answer` lets that lookup's answer through; `release` lets everything through
   * (also the notifications), and `reset` does too. When the adapter has such a way.
   */
  readonly holdLookup?: (digest: string) => HeldLookup;
  /** Empties the store between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** A lookup held by KeyRepositoryHarness.holdLookup. */
export interface HeldLookup {
  /** Resolves once the store answered the held lookup (its answer not yet given to the repository). */
  readonly queried: Promise<void>;
  /** Gives the held lookup its answer. */
  answer(): void;
  /** Gives the held lookup its answer, and the repository the notifications held since. */
  release(): void;
}

let counter = 0;
const record = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => {
  counter++;
  const n = String(counter).padStart(12, '0');
  return {
    id: `10000000-0000-4000-8000-${n}`,
    name: `key ${counter}`,
    keyHash: n.padStart(64, 'a'),
    prefix: 'agw_abcd',
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)),
    lastUsedAt: null,
    ...overrides,
  };
};

/**
 * How long a change made elsewhere (another connection's notice, LISTEN/NOTIFY) may take to be
 * seen: the property is that it is seen; the bound only ends a test that would otherwise wait
 * forever, generous enough for a loaded machine.
 */
const SEEN_WITHIN_MS = 15_000;

const eventually = async (check: () => Promise<boolean>, withinMs = SEEN_WITHIN_MS): Promise<boolean> => {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** The behaviour every KeyRepository adapter must have. */
export const describeKeyRepositoryContract = (
  name: string,
  open: () => Promise<KeyRepositoryHarness>,
  capabilities: { readonly deletionElsewhere: boolean },
): void => {
  describe(`KeyRepository contract: ${name}`, function () {
    this.timeout(60_000);
    let harness: KeyRepositoryHarness;
    let keys: KeyRepository;

    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness.reset();
      keys = harness.repository;
    });
    after(async () => harness?.close());

    it('finds an added record by its digest, with every field', async () => {
      const added = record();
      await keys.add(added);
      expect(await keys.findByHash(added.keyHash)).to.deep.equal(added);
    });

    it('answers null for a digest nobody has', async () => {
      expect(await keys.findByHash('f'.repeat(64))).to.equal(null);
    });

    it('refuses a second record with the same digest or id as invalid input', async () => {
      const first = record();
      await keys.add(first);
      for (const duplicate of [record({ keyHash: first.keyHash }), record({ id: first.id })]) {
        const error = await keys.add(duplicate).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(DomainError);
        expect((error as DomainError).code).to.equal('invalid_input');
      }
      expect(await keys.list()).to.have.length(1);
    });

    it('lists records oldest first', async () => {
      const newer = record({ createdAt: new Date('2026-05-01T00:00:00Z') });
      const older = record({ createdAt: new Date('2026-02-01T00:00:00Z') });
      await keys.add(newer);
      await keys.add(older);
      expect((await keys.list()).map((r) => r.id)).to.deep.equal([older.id, newer.id]);
    });

    it('forgets a removed record at once, even after it was looked up', async () => {
      const added = record();
      await keys.add(added);
      expect(await keys.findByHash(added.keyHash)).not.to.equal(null);
      expect(await keys.remove(added.id)).to.equal(true);
      expect(await keys.findByHash(added.keyHash)).to.equal(null);
      expect(await keys.list()).to.deep.equal([]);
    });

    it('finds a record it added itself at once, also right after the digest was looked up and not found', async () => {
      const added = record();
      expect(await keys.findByHash(added.keyHash)).to.equal(null);
      await keys.add(added);
      expect(await keys.findByHash(added.keyHash)).to.deep.equal(added);
    });

    it('knows a record without its store once it has found it, and never knows one that is gone or never was', async () => {
      const added = record();
      await keys.add(added);
      expect(await keys.findByHash(added.keyHash)).to.deep.equal(added);
      // `undefined` is always correct; a repository that keeps records in memory knows a found one once it follows changes.
      const known = keys.knownByHash(added.keyHash);
      if (known !== undefined) expect(known, 'a key just found').to.deep.equal(added);
      expect(
        await eventually(async () => (await keys.findByHash(added.keyHash)) !== null && keys.knownByHash(added.keyHash) !== undefined),
        'a found key known from memory',
      ).to.equal(true);
      expect(keys.knownByHash('f'.repeat(64)), 'a digest nobody has').to.equal(undefined);
      expect(await keys.remove(added.id)).to.equal(true);
      expect(keys.knownByHash(added.keyHash), 'a key just removed').to.equal(undefined);
    });

    it('answers false when removing an id that does not exist', async () => {
      expect(await keys.remove('20000000-0000-4000-8000-000000000000')).to.equal(false);
    });

    it('records the last use, and ignores a missing record', async () => {
      const added = record();
      await keys.add(added);
      const at = new Date('2026-03-03T03:03:03Z');
      await keys.touch(added.id, at);
      await keys.touch('20000000-0000-4000-8000-000000000000', at);
      expect((await keys.list())[0].lastUsedAt).to.deep.equal(at);
    });

    if (!capabilities.deletionElsewhere) return;

    it('finds a record inserted behind its back (plain SQL) after its digest was looked up and not found', async () => {
      const added = record();
      for (let i = 0; i < 3; i++) expect(await keys.findByHash(added.keyHash)).to.equal(null);
      await harness.insertElsewhere!(added);
      expect(await eventually(async () => (await keys.findByHash(added.keyHash)) !== null)).to.equal(true);
    });

    it('finds a record added through another replica after its digest was looked up and not found', async () => {
      const added = record();
      expect(await keys.findByHash(added.keyHash)).to.equal(null);
      await harness.replica!.add(added);
      expect(await eventually(async () => (await keys.findByHash(added.keyHash)) !== null)).to.equal(true);
    });

    it('asks its store at most once for a flood of one unknown digest, one after the other and at once', async () => {
      const unknown = 'e'.repeat(64);
      const before = harness.queries!();
      for (let i = 0; i < 50; i++) expect(await keys.findByHash(unknown)).to.equal(null);
      expect(await Promise.all(Array.from({ length: 50 }, () => keys.findByHash(unknown)))).to.deep.equal(Array(50).fill(null));
      expect(harness.queries!() - before).to.be.at.most(1);
    });

    it('asks its store once for a known digest that many callers look up at once before it knows it', async () => {
      const added = record();
      const later = record();
      await harness.insertElsewhere!(added);
      await harness.insertElsewhere!(later);
      // Once the later record is found, the notice of the first one has been heard too (they come in order).
      expect(await eventually(async () => (await keys.findByHash(later.keyHash)) !== null)).to.equal(true);
      const before = harness.queries!();
      expect(await Promise.all(Array.from({ length: 50 }, () => keys.findByHash(added.keyHash)))).to.deep.equal(Array(50).fill(added));
      expect(harness.queries!() - before).to.equal(1);
      expect(keys.knownByHash(added.keyHash)).to.deep.equal(added);
    });

    it('asks its store nothing for unknown digests, each different, once it has answered one', async () => {
      await keys.add(record());
      await keys.findByHash('d'.repeat(64));
      const before = harness.queries!();
      for (let i = 0; i < 200; i++) expect(await keys.findByHash(createHash('sha256').update(`unknown ${i}`).digest('hex'))).to.equal(null);
      expect(harness.queries!() - before).to.equal(0);
    });

    it('still finds known keys, and forgets deleted ones, while it answers unknown digests from memory', async () => {
      const kept = record();
      const gone = record();
      await keys.add(kept);
      await keys.add(gone);
      await keys.findByHash('d'.repeat(64));
      expect(await keys.findByHash(kept.keyHash)).to.deep.equal(kept);
      await harness.deleteElsewhere!(gone.id);
      expect(await eventually(async () => (await keys.findByHash(gone.keyHash)) === null)).to.equal(true);
      expect(await keys.findByHash(kept.keyHash)).to.deep.equal(kept);
    });

    it('forgets a record removed while a lookup of it was under way: the lookup read it before the remove and got its answer after, before the remove was notified', async function () {
      if (harness.holdLookup === undefined) return this.skip();
      const added = record();
      const held = harness.holdLookup(added.keyHash);
      try {
        await keys.add(added);
        const lookup = keys.findByHash(added.keyHash);
        await held.queried;
        expect(await keys.remove(added.id)).to.equal(true);
        held.answer();
        expect(await lookup, 'the lookup that started before the remove').to.deep.equal(added);
        expect(keys.knownByHash(added.keyHash), 'known from memory after the remove').to.equal(undefined);
        expect(await keys.findByHash(added.keyHash), 'found after the remove').to.equal(null);
        expect(keys.knownByHash(added.keyHash), 'known from memory after the remove and a lookup').to.equal(undefined);
      } finally {
        held.release();
      }
    });

    it('forgets a record deleted behind its back (another process, plain SQL)', async () => {
      const added = record();
      await keys.add(added);
      expect(await keys.findByHash(added.keyHash)).not.to.equal(null);
      await harness.deleteElsewhere!(added.id);
      expect(await eventually(async () => (await keys.findByHash(added.keyHash)) === null)).to.equal(true);
      expect(keys.knownByHash(added.keyHash), 'known after findByHash forgot it').to.equal(undefined);
    });
  });
};
