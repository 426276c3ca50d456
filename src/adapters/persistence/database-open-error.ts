/**
 * The database could not be opened, said in one line without secrets: for PostgreSQL the
 * server is named by host and port (never the URL, which may hold a password), for the
 * embedded database by its data directory.
 */
export class DatabaseOpenError extends Error {
  constructor(
    /** What the operator has to look at: the PostgreSQL server and database, or the embedded database's directory. */
    readonly source: 'postgresql' | 'dataDir',
    message: string,
    /** Set when the server answered but the database does not exist (and was not to be created). */
    readonly missingDatabase?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseOpenError';
  }
}
