import type { InboundRequest } from './inbound-request-store.js';

/**
 * A request answered before it was stored in the database: the request as it is to be stored,
 * and, for one taken in while the embedded database was still opening (EarlyIntake), the API key
 * it was accepted with, checked against the database again before the request is stored
 * (ImportEarlyIntake). One taken in by the running service (JournaledIntake) has none: its key
 * was checked against the database when it came.
 */
export interface JournaledRequest {
  readonly request: InboundRequest;
  readonly keyId?: string;
  /** The key's digest (lower-case hex SHA-256), as the key repository stores it; with keyId or not at all. */
  readonly keyHash?: string;
}

/** What `read` found: the entries, in the order they were appended, and how many lines it could not read. */
export interface JournalContents {
  readonly entries: readonly JournaledRequest[];
  /** Whole lines that were not an entry (a damaged file): skipped, and told to the operator. */
  readonly unreadable: number;
}

/**
 * Where requests answered before they are stored in the database wait for it: each is
 * durable once `append` resolves (its caller is answered only then), and stays until `clear`,
 * across any number of crashes. One process uses it at a time (the embedded database's lock).
 */
export interface IntakeJournal {
  /**
   * Stores the entry durably; rejects when it cannot, or when it would take the journal past its
   * largest size (the caller is then not told it was accepted).
   */
  append(entry: JournaledRequest): Promise<void>;
  /** Whether an entry of about `bytes` bytes fits now; false too once the journal failed. */
  hasRoom(bytes: number): boolean;
  /**
   * Every entry appended and not cleared, oldest first. An entry whose append never resolved
   * (cut short by a crash) may be missing; one whose append resolved never is.
   */
  read(): Promise<JournalContents>;
  /** Removes every entry (once they are stored elsewhere). */
  clear(): Promise<void>;
}
