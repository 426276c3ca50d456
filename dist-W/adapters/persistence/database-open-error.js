/**
 * The database could not be opened, said in one line without secrets: for PostgreSQL the
 * server is named by host and port (never the URL, which may hold a password), for the
 * embedded database by its data directory.
 */
export class DatabaseOpenError extends Error {
    source;
    missingDatabase;
    constructor(
    /** What the operator has to look at: the PostgreSQL server and database, or the embedded database's directory. */
    source, message, 
    /** Set when the server answered but the database does not exist (and was not to be created). */
    missingDatabase, options) {
        super(message, options);
        this.source = source;
        this.missingDatabase = missingDatabase;
        this.name = 'DatabaseOpenError';
    }
}
//# sourceMappingURL=database-open-error.js.map