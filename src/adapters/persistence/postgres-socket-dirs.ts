import { isAbsolute } from 'node:path';

/**
 * Where a local PostgreSQL server has its Unix socket by default (Debian, Ubuntu: `/var/run` is
 * a link to `/run`). Listed whatever DATABASE_URL says: the service's user reaches a server there
 * with `peer` authentication, Debian's default for local connections, without a password.
 */
export const DEFAULT_POSTGRES_SOCKET_DIRS: readonly string[] = ['/run/postgresql', '/var/run/postgresql'];

/**
 * The hosts a connection string names (DATABASE_URL: a postgres:// URL, checked at start-up):
 * the `host` parameters, which node-postgres prefers, and the URL's host, percent-decoded (a
 * directory may be written as `%2Fsome%2Fdir`); none when it is not a URL.
 */
const urlHosts = (databaseUrl: string): string[] => {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return [];
  }
  return [...url.searchParams.getAll('host').flatMap((host) => host.split(',')), decoded(url.hostname)];
};

/** Percent-decoded; as it is when it does not decode. */
const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * The directories where the gateway's PostgreSQL has, or may have, its Unix socket: the default
 * ones, DATABASE_URL's host when it is a directory (`postgres:///db?host=/some/dir`,
 * `postgres://%2Fsome%2Fdir/db`), and PGHOST when it is one (node-postgres's host when the URL
 * names none). More than the one connected to is harmless: the caller hides them
 * (JOB_SANDBOX=bwrap). Paths as given; links not resolved.
 */
export const postgresSocketDirs = (databaseUrl: string | undefined, pghost: string | undefined): string[] => {
  const candidates = [...DEFAULT_POSTGRES_SOCKET_DIRS, ...(databaseUrl === undefined ? [] : urlHosts(databaseUrl)), ...(pghost ?? '').split(',')];
  return [...new Set(candidates.map((dir) => dir.trim()).filter((dir) => dir !== '' && isAbsolute(dir)))];
};
