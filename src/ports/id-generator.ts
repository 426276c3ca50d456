/** Identifiers (UUID strings). */
export interface IdGenerator {
  /** A new unique one (v4). */
  next(): string;
  /**
   * The id of `name`: the same for the same name on every call and in every process (a platform's
   * delivery, redelivered after a stop, gets the id its first delivery got), never one `next` gives.
   */
  named(name: string): string;
}
