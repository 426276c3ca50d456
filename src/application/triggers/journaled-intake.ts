import type { InboundRequest, InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { IntakeJournal } from '../../ports/intake-journal.js';
import type { Logger } from '../../ports/logger.js';
import type { DispatchTriggerRuns } from './dispatch-trigger-runs.js';

/** What a line holds besides the request's text, which it holds escaped (at most about twice over, three times for odd characters). */
const LINE_OVERHEAD_BYTES = 4 * 1024;

interface Segment {
  readonly journal: IntakeJournal;
  /** Requests durable in it and not stored in the database yet, in the order they were appended. */
  entries: InboundRequest[];
  /** Appends under way. */
  readonly appending: Set<Promise<unknown>>;
}

/** Bytes an entry of this request may take in a journal's line. */
const lineBytes = (request: InboundRequest): number => 3 * request.request.length + LINE_OVERHEAD_BYTES;

/**
 * Where a request that fires triggers is made durable before its answer on the embedded
 * database, when it can be: in a journal of JSON lines (an append flushed by `fdatasync`, shared
 * by the requests arriving together), instead of an insert on the database's one thread. The
 * requests are then stored in the database in the background, many per statement, and their runs
 * handed to the dispatch as FireTriggers hands them. Under load the database's thread no longer
 * sits on every caller's path: a caller waits for a flush of a file, not for a statement.
 *
 * Two journals take turns: requests are appended to one while those of the other are stored, and
 * that one is emptied once they are. What a crash leaves in either is stored at the next start
 * (ImportEarlyIntake, through `resume`), each request once (by its id).
 *
 * It takes a request only while it is resumed and the journal has room; FireTriggers stores one
 * it does not take in the database, as before. When storing fails, it takes no more until
 * `resume` has stored what the journals hold (the service tries at every background pass). When
 * a journal fails (a write or flush refused: a full disk), it takes no more either, while what it
 * took is still stored, until `resume` has the journals set aside and opened anew (the service
 * does so at its next background pass).
 */
export class JournaledIntake {
  #active: Segment;
  #standby: Segment;
  #taking = false;
  #failed = false;
  #stopped = false;
  #warned = false;
  #loop: Promise<void> | undefined;
  #resuming: Promise<void> | undefined;
  /** Requests made durable so far, and of those, how many the background has dealt with (stored, or failed to be). */
  #taken = 0;
  #done = 0;
  #waiters: Array<{ readonly upTo: number; readonly resolve: () => void }> = [];

  constructor(
    journals: readonly [IntakeJournal, IntakeJournal],
    private readonly requests: InboundRequestStore,
    private readonly dispatch: Pick<DispatchTriggerRuns, 'recorded'>,
    private readonly logger: Logger,
  ) {
    this.#active = { journal: journals[0], entries: [], appending: new Set() };
    this.#standby = { journal: journals[1], entries: [], appending: new Set() };
  }

  /** Whether it takes requests now. */
  get taking(): boolean {
    return this.#taking;
  }

  /**
   * Has it take requests once `storeLeftovers` has emptied both journals — stored what they hold
   * (what a stop, a crash or a failed store left; ImportEarlyIntake), or set it aside to be stored
   * (the service renames it, so that requests are taken at once): at start, and again after
   * storing failed — the service calls it on every background pass. Does nothing while it takes
   * requests or once stopped; a call while one is under way joins it. Rejects with
   * `storeLeftovers`'s failure, and takes nothing then (the next call tries again).
   */
  resume(storeLeftovers: () => Promise<void>): Promise<void> {
    this.#resuming ??= this.#resume(storeLeftovers).finally(() => {
      this.#resuming = undefined;
    });
    return this.#resuming;
  }

  async #resume(storeLeftovers: () => Promise<void>): Promise<void> {
    if (this.#taking || this.#stopped) return;
    // What is under way ends first: the appends, then the storing (failed, it stores no more).
    await Promise.allSettled([...this.#active.appending, ...this.#standby.appending]);
    while (this.#loop !== undefined) await this.#loop;
    await storeLeftovers();
    if (this.#stopped) return;
    this.#failed = false;
    this.#warned = false;
    this.#taking = true;
    this.logger.debug({}, 'requests that fire triggers are made durable in the intake journal before their answer');
  }

  /**
   * Makes the request durable in the journal and resolves true once it is (its caller may be
   * answered then); resolves false when it is not taken — not started, stopped, no room, the
   * journal failed —, and the caller stores it in the database instead.
   */
  async take(request: InboundRequest): Promise<boolean> {
    const segment = this.#active;
    if (!this.#taking || !segment.journal.hasRoom(lineBytes(request))) return false;
    const appended = segment.journal.append({ request });
    segment.appending.add(appended);
    try {
      await appended;
    } catch (error) {
      // Full (room taken meanwhile) or failed: a failed journal has no room any more. Then it
      // takes nothing until the next `resume` (which sets the journals aside and opens them anew),
      // so that a moment of full disk does not keep the journal off for good; what was taken
      // before is still stored. Said once.
      if (!segment.journal.hasRoom(0)) {
        this.#taking = false;
        if (!this.#warned) {
          this.#warned = true;
          this.logger.warn(
            { err: error },
            'the intake journal failed: requests are stored in the database before their answer until the next background pass opens the journals anew',
          );
        }
      }
      return false;
    } finally {
      segment.appending.delete(appended);
    }
    this.#taken++;
    if (this.#failed) {
      // Storing failed meanwhile: it stays in its journal, stored when the intake resumes.
      this.#done++;
      this.#wake();
      return true;
    }
    segment.entries.push(request);
    this.#kick();
    return true;
  }

  /** Resolves once every request taken so far is stored in the database (or failed to be). */
  imported(): Promise<void> {
    const upTo = this.#taken;
    if (this.#done >= upTo) return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiters.push({ upTo, resolve }));
  }

  /** Takes no more, for good; resolves once what was taken is stored (or failed to be). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#taking = false;
    await Promise.allSettled([...this.#active.appending, ...this.#standby.appending]);
    await this.imported();
  }

  #kick(): void {
    if (this.#loop !== undefined || this.#failed) return;
    this.#loop = this.#storeAll().finally(() => {
      this.#loop = undefined;
      if (this.#active.entries.length > 0) this.#kick();
    });
  }

  async #storeAll(): Promise<void> {
    while (this.#active.entries.length > 0) {
      // New requests go to the other journal while this one's are stored; it is emptied after.
      const segment = this.#active;
      this.#active = this.#standby;
      this.#standby = segment;
      await Promise.allSettled([...segment.appending]);
      const batch = segment.entries;
      segment.entries = [];
      const outcomes = await Promise.allSettled(batch.map((request) => this.requests.record(request)));
      for (const [i, outcome] of outcomes.entries()) {
        // Stored before (false): by an import of this journal that a stop cut short; queued then, or by the sweep.
        if (outcome.status !== 'fulfilled' || !outcome.value) continue;
        const { id, watchPath, receivedAt, runs } = batch[i];
        this.dispatch.recorded({ id, watchPath, receivedAt, runs });
      }
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed === undefined) {
        try {
          await segment.journal.clear();
        } catch (error) {
          this.#fail(error, 0);
        }
      } else this.#fail(failed.reason, outcomes.filter((outcome) => outcome.status === 'rejected').length);
      this.#done += batch.length;
      this.#wake();
      if (this.#failed) {
        // Nothing more is stored from the journals: what the other holds counts as dealt with too.
        this.#done += this.#active.entries.length;
        this.#active.entries = [];
        this.#wake();
        return;
      }
    }
  }

  /** Stops taking and storing: the journals are kept as they are, until `resume` stores them. */
  #fail(error: unknown, requests: number): void {
    this.#failed = true;
    this.#taking = false;
    this.logger.error(
      { err: error, requests },
      'storing the requests of the intake journal failed: they stay in it and are stored by the next background pass that can (or the next start); requests are stored in the database before their answer meanwhile',
    );
  }

  #wake(): void {
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiting) {
      if (this.#done >= waiter.upTo) waiter.resolve();
      else this.#waiters.push(waiter);
    }
  }
}

/**
 * The store as readers of the delivery log see it (the admin UI, the CLI through the server):
 * a request answered from the journal is listed and found once it is stored in the database,
 * and a read waits for the requests answered before it.
 */
export const afterJournaledRequests = (store: InboundRequestStore, intake: Pick<JournaledIntake, 'imported'>): InboundRequestStore => ({
  record: (request) => store.record(request),
  undispatched: (before, limit) => store.undispatched(before, limit),
  markDispatched: (ids) => store.markDispatched(ids),
  countUndispatched: () => store.countUndispatched(),
  find: async (id) => {
    await intake.imported();
    return store.find(id);
  },
  list: async (filter) => {
    await intake.imported();
    return store.list(filter);
  },
  deleteOlderThan: (cutoff, limit) => store.deleteOlderThan(cutoff, limit),
});
