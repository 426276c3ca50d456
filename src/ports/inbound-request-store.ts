/** A request that fired triggers: stored once, however many triggers it fired. */
export interface InboundRequest {
  readonly id: string;
  /** The called endpoint's path without `/api`. */
  readonly watchPath: string;
  readonly receivedAt: Date;
  /**
   * The RequestSnapshot as JSON text. Text, not a JSON value: a database JSON type would refuse
   * NUL characters and lone surrogates that a valid JSON body may hold, and would reorder keys.
   */
  readonly request: string;
  /** Names of the triggers the request fired, in file order. */
  readonly triggers: readonly string[];
  /** The trigger runs it started, one per fired trigger, in the same order (empty for records older than the delivery log). */
  readonly runs: readonly TriggerRunRef[];
  /** The request this one replays (an operator re-fired that stored request), or null. */
  readonly replayOf: string | null;
}

/** One trigger run a request started: its runs' records are ActionRunRepository.forRun(runId). */
export interface TriggerRunRef {
  readonly trigger: string;
  readonly runId: string;
}

/** Which stored requests to list: all filters optional, combined with AND. */
export interface InboundRequestFilter {
  /** Exactly this watch path (the endpoint's path without `/api`). */
  readonly watchPath?: string;
  /** Requests that fired the trigger with this name. */
  readonly trigger?: string;
  /**
   * The next page of a list: received strictly before this time; with `beforeId`, instead, after
   * the request (`before`, `beforeId`) in the list's order (received time, then id, both
   * descending): requests received in the same millisecond as the last one shown are on the next
   * page, each once.
   */
  readonly before?: Date;
  /** The id of the last request shown (a lower-case UUID); only with `before`, its received time. */
  readonly beforeId?: string;
  /** At most this many (1–500). */
  readonly limit: number;
}

/** The requests that fired triggers, read by each trigger run instead of a copy per trigger. */
export interface InboundRequestStore {
  /**
   * Stores the request durably, before its caller is answered. A request with runs is stored
   * *undispatched*: its runs are queued afterwards (DispatchTriggerRuns), which `markDispatched`
   * records. Storing an id that is already stored keeps the first record and resolves to false
   * (true when this call stored it). Throws when the request cannot be stored.
   */
  record(request: InboundRequest): Promise<boolean>;
  /**
   * Requests with runs not known to be queued yet, received before `before`, oldest first, at
   * most `limit`, without their `request` text (empty string): what a stop between storing and
   * queueing left behind.
   */
  undispatched(before: Date, limit: number): Promise<InboundRequest[]>;
  /** Records that the runs of these requests are queued. Ids not stored are ignored. */
  markDispatched(ids: readonly string[]): Promise<void>;
  /** How many stored requests have runs not known to be queued yet (the dispatch's backlog). */
  countUndispatched(): Promise<number>;
  /** The request with this id; null when none is stored (never stored, or since removed). */
  find(id: string): Promise<InboundRequest | null>;
  /**
   * Stored requests matching the filter, newest first (received time, then id, both descending:
   * a stable order, which `before` with `beforeId` pages through), without their `request` text
   * (empty string) to keep a list light; `find` gives the whole record.
   */
  list(filter: InboundRequestFilter): Promise<InboundRequest[]>;
  /**
   * Retention: deletes up to `limit` requests received before `cutoff`, oldest first, and
   * returns how many (fewer than `limit`: none is left). Queued trigger runs read their
   * request: the cutoff must lie further back than a task can wait in the queue. An
   * undispatched request is kept whatever its age: its runs are still to be queued; so is one an
   * approval still waits on, or approved (the run it queued reads it).
   */
  deleteOlderThan(cutoff: Date, limit: number): Promise<number>;
}
