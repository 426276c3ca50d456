/** New unique identifiers (UUID v4 strings). */
export interface IdGenerator {
  next(): string;
}
