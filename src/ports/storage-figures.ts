/** The size of one of the service's tables. */
export interface TableSize {
  /** The table's name as the database knows it (`jobs`, `pgboss.job`). */
  readonly table: string;
  /**
   * Rows as the database estimates them from its statistics (never a count, which would read
   * the whole table); null while it has no estimate (a table not yet analyzed).
   */
  readonly rowsEstimate: number | null;
  /** Bytes on disk: the table with its indexes and TOAST (every partition of a partitioned table). */
  readonly bytes: number;
}

/** Figures about the storage the service uses, for operators (the admin health page). */
export interface StorageFigures {
  /**
   * The sizes of the service's own tables, in a fixed order. A table that does not exist (the
   * queue's, before the queue first started) is left out. Reads the catalog only: cheap
   * whatever the tables hold. Throws when the database cannot be asked.
   */
  tableSizes(): Promise<TableSize[]>;
}
