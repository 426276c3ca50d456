import { isWellFormedApiKey } from '../../domain/auth/api-key-format.js';
import type { RequestSnapshot } from '../../domain/templates/request-snapshot.js';
import { filterTriggers, matchTriggers } from '../../domain/triggers/match-triggers.js';
import type { Trigger } from '../../domain/triggers/trigger.js';
import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { Clock } from '../../ports/clock.js';
import type { IdGenerator } from '../../ports/id-generator.js';
import type { IntakeJournal } from '../../ports/intake-journal.js';
import type { Logger } from '../../ports/logger.js';

/** What a journal entry holds besides the body, the headers and the triggers' names: ids, the key, the line's own fields. */
const ENTRY_OVERHEAD_BYTES = 32 * 1024;

/**
 * The most bytes of the journal's line one byte of a JSON body can take, in quarters: the body is
 * written again as JSON.stringify writes its value, into the request's text, which the line
 * escapes again. A number takes at most 21 bytes for 4 (`1e20`, written as its 21 digits; from
 * 1e21 on it keeps an exponent); a string's bytes at most 2 each (a `"` or `\`, escaped once
 * more in the line; an escape such as `\u0000` grows by one byte at most); anything else stays as long or
 * shrinks (white space is dropped).
 */
const BODY_GROWTH_QUARTERS = 21;

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
  /** The most bytes the names of the triggers that may fire take in a line (each in `triggers` and in `runs`, with its run's id). */
  readonly #triggerBytes: number;
  /** The room held for each request admitted and not yet handed to the journal (admit, release). */
  readonly #reservations = new Map<AdmittedKey, number>();
  #reserved = 0;

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
    const watching = matchTriggers(triggers, watchPaths);
    this.#ordered = watching.some((trigger) => trigger.concurrency !== undefined);
    // A UTF-16 unit takes 3 bytes of UTF-8 at most.
    this.#triggerBytes = watching.reduce((sum, trigger) => sum + 2 * 3 * JSON.stringify(trigger.name).length + 128, 0);
  }

  /**
   * The key's id and digest when a request presenting `presented`, with a body of `bodyBytes`
   * and headers whose JSON text (JSON.stringify of the headers, all of them) takes `headersBytes`,
   * can be taken in now; undefined when it must wait for the service (stopped, key missing,
   * malformed or not in the snapshot, an ordered trigger, no room left in the journal). Costs one
   * digest; answers without waiting.
   *
   * The room of the request's entry at its largest is held for it from here, until `take` hands
   * it to the journal or `release` lets it go: a request admitted always fits in the journal,
   * however many are admitted at once and whatever their bodies (a body of numbers written
   * again takes up to 5¼ times its bytes). Call `release` for one that is not taken (a body
   * refused, a caller gone); it does nothing once the request was taken.
   */
  admit(presented: string | undefined, bodyBytes: number, headersBytes: number): AdmittedKey | undefined {
    if (this.#stopped || this.#ordered || presented === undefined || !isWellFormedApiKey(presented)) return undefined;
    // The body as the line holds it (BODY_GROWTH_QUARTERS), the headers' text escaped once more
    // in it, the triggers' names and the rest of the line.
    const room = Math.ceil((bodyBytes * BODY_GROWTH_QUARTERS) / 4) + 2 * headersBytes + this.#triggerBytes + ENTRY_OVERHEAD_BYTES;
    if (!this.journal.hasRoom(this.#reserved + room)) return undefined;
    const keyHash = this.crypto.digest(presented);
    const keyId = this.keys.get(keyHash);
    if (keyId === undefined) return undefined;
    const admitted = { keyId, keyHash };
    this.#reservations.set(admitted, room);
    this.#reserved += room;
    return admitted;
  }

  /** Lets go of the room held for a request admitted (admit); nothing once it was taken or let go. */
  release(admitted: AdmittedKey): void {
    const room = this.#reservations.get(admitted);
    if (room === undefined) return;
    this.#reservations.delete(admitted);
    this.#reserved -= room;
  }

  /**
   * Fires the triggers the request fires, as FireTriggers would: stores the request in the
   * journal (when a trigger fired) and resolves with the names of those that fired, in file order,
   * once it is durable. Rejects when the journal cannot store it, and with EarlyIntakeStopped
   * when the service took over while the request's body was arriving (its journal may be read
   * already): the caller must not be told that it was accepted.
   */
  take(admitted: AdmittedKey, snapshot: RequestSnapshot): Promise<string[]> {
    if (this.#stopped) {
      this.release(admitted);
      return Promise.reject(new EarlyIntakeStopped());
    }
    const taking = this.#take(admitted, snapshot);
    // The journal counts the entry from its append, which #take made before its first wait (or
    // nothing is stored): the room held for it is no longer needed.
    this.release(admitted);
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
