import { isWellFormedApiKey } from '../../domain/auth/api-key-format.js';
import type { RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { filterTriggers, matchTriggers } from '../../domain/triggers/match-triggers.js';
import type { Trigger } from '../../domain/triggers/trigger.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { IntakeJournal } from '../../ports/intake-journal.js';
import type { Logger } from '../../ports/logger.js';

/** What a journal entry holds besides the body: ids, the headers, the line's own fields. */
const ENTRY_OVERHEAD_BYTES = 32 * 1024;

/** EarlyIntake.take after stop: the request was neither stored nor run; its caller should send it again. */
export class EarlyIntakeStopped extends Error {
  constructor() {
    super('early intake stopped: the service took over');
  }
}

/** A request EarlyIntake agreed to take in: the key it presented, known to the snapshot. */
export interface AdmittedKey {
  readonly keyId: string;
  readonly keyHash: string;
}

/**
 * Intake while the embedded database opens (a second or more after a crash: its recovery). The
 * service binds its port first and holds every request until it can serve it; this takes in,
 * meanwhile, the requests it can handle without the database — the plain webhook's, which only
 * fire triggers — instead of holding them: each is stored in the IntakeJournal, durably, and its
 * caller answered as the service would answer it. Once the database is open the journal's
 * requests are stored there and their runs queued (ImportEarlyIntake).
 *
 * It takes a request in only when all of this holds, else the request waits for the service:
 * - its key is in the snapshot of the stored keys' digests (a key added since waits); the key is
 *   checked again against the database before the request is stored, so a key revoked since the
 *   snapshot was written has its requests answered but never run;
 * - no trigger watching the endpoint has a `concurrency` (their lanes keep the order of requests
 *   across the service, which needs the task queue at the moment of the answer).
 * The triggers are those of the file as the service read it at this start, and a trigger's
 * `when` is tested as FireTriggers tests it.
 */
export class EarlyIntake {
  #stopped = false;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Whether a trigger watching the endpoint keeps order (`concurrency`): then nothing is taken in. */
  readonly #ordered: boolean;

  constructor(
    private readonly triggers: readonly Trigger[],
    /** The endpoint's watch paths, its own first (FireTriggersInput). */
    private readonly watchPaths: readonly string[],
    /** The snapshot's keys, digest → key id. */
    private readonly keys: ReadonlyMap<string, string>,
    private readonly crypto: Pick<ApiKeyCrypto, 'digest'>,
    private readonly journal: IntakeJournal,
    private readonly ids: Pick<IdGenerator, 'next'>,
    /** The task queue's id for a new run (TaskQueue.newTaskId): the run is queued under it later. */
    private readonly newTaskId: () => string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.#ordered = matchTriggers(triggers, watchPaths).some((trigger) => trigger.concurrency !== undefined);
  }

  /**
   * The key's id and digest when a request presenting `presented`, with a body of `bodyBytes`,
   * can be taken in now; undefined when it must wait for the service (stopped, key missing,
   * malformed or not in the snapshot, an ordered trigger, no room left in the journal). Costs one
   * digest; answers without waiting.
   */
  admit(presented: string | undefined, bodyBytes: number): AdmittedKey | undefined {
    if (this.#stopped || this.#ordered || presented === undefined || !isWellFormedApiKey(presented)) return undefined;
    // Room for the stored request: its body written twice over at most (escaped in the request's
    // text, and that text in the journal's line), and its headers.
    if (!this.journal.hasRoom(2 * bodyBytes + ENTRY_OVERHEAD_BYTES)) return undefined;
    const keyHash = this.crypto.digest(presented);
    const keyId = this.keys.get(keyHash);
    return keyId === undefined ? undefined : { keyId, keyHash };
  }

  /**
   * Fires the triggers the request fires, as FireTriggers would: stores the request in the
   * journal (when a trigger fired) and resolves with the names of those that fired, in file order,
   * once it is durable. Rejects when the journal cannot store it, and with EarlyIntakeStopped
   * when the service took over while the request's body was arriving (its journal may be read
   * already): the caller must not be told that it was accepted.
   */
  take(admitted: AdmittedKey, snapshot: RequestSnapshot): Promise<string[]> {
    if (this.#stopped) return Promise.reject(new EarlyIntakeStopped());
    const taking = this.#take(admitted, snapshot);
    this.#inFlight.add(taking);
    const forget = () => this.#inFlight.delete(taking);
    taking.then(forget, forget);
    return taking;
  }

  /** Takes nothing more in; resolves once every request taken in is in the journal (or failed to be). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.allSettled([...this.#inFlight]);
  }

  async #take(admitted: AdmittedKey, snapshot: RequestSnapshot): Promise<string[]> {
    const [watchPath] = this.watchPaths;
    const matched = filterTriggers(matchTriggers(this.triggers, this.watchPaths), snapshot);
    if (matched.length === 0) return [];
    const requestId = this.ids.next();
    const names = matched.map((trigger) => trigger.name);
    await this.journal.append({
      keyId: admitted.keyId,
      keyHash: admitted.keyHash,
      request: {
        id: requestId,
        watchPath,
        receivedAt: this.clock.now(),
        request: JSON.stringify(snapshot),
        triggers: names,
        runs: names.map((trigger) => ({ trigger, runId: this.newTaskId() })),
        replayOf: null,
      },
    });
    this.logger.info({ watchPath, triggers: names, requestId, early: true }, 'triggers fired');
    return names;
  }
}
