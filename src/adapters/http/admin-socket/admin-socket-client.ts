import { lstat } from 'node:fs/promises';
import { request } from 'node:http';
import { json } from 'node:stream/consumers';
import type { KeyAdministration } from '../../../application/auth/api-key-administration.js';
import type { CreatedApiKey } from '../../../application/auth/create-api-key.js';
import type { ApiKeySummary } from '../../../domain/auth/api-key-record.js';
import { DomainError, type ErrorCode } from '../../../domain/errors/domain-error.js';
import type { MigrationReport, ReloadReport } from './admin-socket-server.js';
import type { DirectoryIdentity } from '../../shared/directory-identity.js';

type Wire = Record<string, unknown>;

/**
 * An id as one path segment: encoded, and never a segment that lands on another route. Empty,
 * `/deliveries/` would be the list's route (the router ignores a trailing slash); `.` and `..`
 * are spelled `%2E` so that nothing on the way can resolve them as dot-segments.
 * @throws DomainError invalid_input for an empty id (no route takes one).
 */
const segment = (id: string): string => {
  if (id === '') throw new DomainError('invalid_input', 'The id is empty');
  return encodeURIComponent(id).replaceAll('.', '%2E');
};

const revive = <T extends { createdAt: Date; lastUsedAt: Date | null }>(raw: Wire): T =>
  ({
    ...raw,
    createdAt: new Date(raw.createdAt as string),
    lastUsedAt: raw.lastUsedAt ? new Date(raw.lastUsedAt as string) : null,
  }) as unknown as T;

/**
 * What stands at the admin socket's path is not the socket of the account expected (see
 * AdminSocketClient's `owners`): not a socket, or another account's. Its message is one line
 * naming the path, what was found and what to do.
 */
export class UntrustedAdminSocket extends Error {
  constructor(
    readonly socketPath: string,
    message: string,
  ) {
    super(message);
    this.name = 'UntrustedAdminSocket';
  }
}

/**
 * Rejects with UntrustedAdminSocket unless `path` is a socket owned by one of `owners` (uids);
 * with Node's error (`ENOENT`: none yet) when it cannot be read. lstat: a symbolic link is
 * refused, not followed.
 */
export const checkAdminSocket = async (path: string, owners: readonly number[]): Promise<void> => {
  const found = await lstat(path);
  if (!found.isSocket()) throw new UntrustedAdminSocket(path, `${path} is not a socket: it is not the server's admin socket; remove it and restart the server`);
  if (!owners.includes(found.uid)) {
    throw new UntrustedAdminSocket(
      path,
      `The admin socket ${path} is owned by uid ${found.uid}, not by ${owners.map((uid) => `uid ${uid}`).join(' or ')} (the account that runs the service): another account may have put it there; nothing was sent to it — check who can write its directory, remove it and restart the server`,
    );
  }
};

/**
 * The running server's administration (AdminSocketServer) from another process: keys, the
 * admin password, the migrations. A connection that fails rejects with Node's error
 * (`ENOENT`: no socket, `ECONNREFUSED`: nobody listening); an error answer with the DomainError it was.
 *
 * With `owners` (uids), every request first checks that the socket at the path is a socket one
 * of them owns (checkAdminSocket), so that nothing — a password, a key name — is sent to a
 * socket another account bound there, and no key it makes up is taken for the server's. A
 * socket's owner is set by the kernel to the account that bound it: it cannot be forged short
 * of being that account or root. Between the check and the connection the path could still
 * change, in a directory other accounts can write: the CLI uses the socket only in a private
 * DATA_DIR (private-data-dir.ts), where no other account can.
 */
export class AdminSocketClient implements KeyAdministration {
  constructor(
    private readonly socketPath: string,
    private readonly owners?: readonly number[],
  ) {}

  /** Whether a server answers on the socket. */
  async reachable(): Promise<boolean> {
    try {
      await this.status();
      return true;
    } catch {
      return false;
    }
  }

  /** The answering server's process id and the data directory it serves (undefined from a server of an older version). */
  async status(): Promise<{ pid: number; dataDir?: DirectoryIdentity }> {
    const { pid, dataDir } = await this.call('GET', '/status');
    const served = dataDir as Partial<Record<keyof DirectoryIdentity, unknown>> | undefined;
    return typeof served?.path === 'string' && typeof served.id === 'string'
      ? { pid: Number(pid), dataDir: { path: served.path, id: served.id } }
      : { pid: Number(pid) };
  }

  /** What the server applied at its start and what the database records now. */
  async migrations(): Promise<MigrationReport> {
    const answer = await this.call('GET', '/migrations');
    const names = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
    return { appliedAtStart: names(answer.appliedAtStart), recorded: names(answer.recorded) };
  }

  /** Has the server reload its trigger and schedule files. */
  async reload(): Promise<ReloadReport> {
    const answer = await this.call('POST', '/reload');
    return {
      ok: answer.ok === true,
      problems: Array.isArray(answer.problems) ? answer.problems.map(String) : [],
      triggers: Number(answer.triggers),
      schedules: Number(answer.schedules),
    };
  }

  async create(name: string): Promise<CreatedApiKey> {
    return revive<CreatedApiKey>(await this.call('POST', '/keys', { name }));
  }

  async list(): Promise<ApiKeySummary[]> {
    const { keys } = (await this.call('GET', '/keys')) as { keys: Wire[] };
    return keys.map((key) => revive<ApiKeySummary>(key));
  }

  async setAdminPassword(password: string): Promise<void> {
    await this.call('POST', '/admin-password', { password });
  }

  async revoke(id: string): Promise<void> {
    await this.call('DELETE', `/keys/${segment(id)}`);
  }

  /** The delivery log's list, as the server's JSON (times as ISO text); `query` is the filter's query string. */
  async deliveries(query: string): Promise<Wire[]> {
    const { deliveries } = (await this.call('GET', `/deliveries${query === '' ? '' : `?${query}`}`)) as { deliveries: Wire[] };
    return deliveries;
  }

  /** One stored request with its runs, as the server's JSON. */
  async delivery(id: string): Promise<Wire> {
    return this.call('GET', `/deliveries/${segment(id)}`);
  }

  /** Replays a stored request on the server; the outcome as the server's JSON. */
  async replay(id: string): Promise<Wire> {
    return this.call('POST', `/deliveries/${segment(id)}/replay`);
  }

  /** One request; an error answer (`{code, error}`, see AdminSocketServer) becomes the DomainError it was. */
  private async call(method: string, path: string, body?: unknown): Promise<Wire> {
    if (this.owners !== undefined) await checkAdminSocket(this.socketPath, this.owners);
    return new Promise((resolve, reject) => {
      const req = request({ socketPath: this.socketPath, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
        json(res).then((parsed) => {
          const answer = parsed as Wire;
          if ((res.statusCode ?? 500) < 400) resolve(answer);
          else reject(new DomainError((answer.code as ErrorCode | undefined) ?? 'internal', String(answer.error)));
        }, reject);
      });
      req.on('error', reject);
      req.setTimeout(10_000, () => req.destroy(new Error('admin socket timed out')));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
}
