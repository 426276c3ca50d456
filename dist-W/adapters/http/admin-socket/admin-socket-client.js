import { request } from 'node:http';
import { json } from 'node:stream/consumers';
import { DomainError } from '../../../domain/errors/domain-error.js';
const revive = (raw) => ({
    ...raw,
    createdAt: new Date(raw.createdAt),
    lastUsedAt: raw.lastUsedAt ? new Date(raw.lastUsedAt) : null,
});
/**
 * The running server's administration (AdminSocketServer) from another process: keys, the
 * admin password, the migrations. A connection that fails rejects with Node's error
 * (`ENOENT`: no socket, `ECONNREFUSED`: nobody listening); an error answer with the DomainError it was.
 */
export class AdminSocketClient {
    socketPath;
    constructor(socketPath) {
        this.socketPath = socketPath;
    }
    /** Whether a server answers on the socket. */
    async reachable() {
        try {
            await this.status();
            return true;
        }
        catch {
            return false;
        }
    }
    /** The answering server's process id. */
    async status() {
        const { pid } = await this.call('GET', '/status');
        return { pid: Number(pid) };
    }
    /** What the server applied at its start and what the database records now. */
    async migrations() {
        const answer = await this.call('GET', '/migrations');
        const names = (value) => (Array.isArray(value) ? value.map(String) : []);
        return { appliedAtStart: names(answer.appliedAtStart), recorded: names(answer.recorded) };
    }
    /** Has the server reload its trigger and schedule files. */
    async reload() {
        const answer = await this.call('POST', '/reload');
        return {
            ok: answer.ok === true,
            problems: Array.isArray(answer.problems) ? answer.problems.map(String) : [],
            triggers: Number(answer.triggers),
            schedules: Number(answer.schedules),
        };
    }
    async create(name) {
        return revive(await this.call('POST', '/keys', { name }));
    }
    async list() {
        const { keys } = (await this.call('GET', '/keys'));
        return keys.map((key) => revive(key));
    }
    async setAdminPassword(password) {
        await this.call('POST', '/admin-password', { password });
    }
    async revoke(id) {
        await this.call('DELETE', `/keys/${encodeURIComponent(id)}`);
    }
    /** The delivery log's list, as the server's JSON (times as ISO text); `query` is the filter's query string. */
    async deliveries(query) {
        const { deliveries } = (await this.call('GET', `/deliveries${query === '' ? '' : `?${query}`}`));
        return deliveries;
    }
    /** One stored request with its runs, as the server's JSON. */
    delivery(id) {
        return this.call('GET', `/deliveries/${encodeURIComponent(id)}`);
    }
    /** Replays a stored request on the server; the outcome as the server's JSON. */
    replay(id) {
        return this.call('POST', `/deliveries/${encodeURIComponent(id)}/replay`);
    }
    /** One request; an error answer (`{code, error}`, see AdminSocketServer) becomes the DomainError it was. */
    call(method, path, body) {
        return new Promise((resolve, reject) => {
            const req = request({ socketPath: this.socketPath, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
                json(res).then((parsed) => {
                    const answer = parsed;
                    if ((res.statusCode ?? 500) < 400)
                        resolve(answer);
                    else
                        reject(new DomainError(answer.code ?? 'internal', String(answer.error)));
                }, reject);
            });
            req.on('error', reject);
            req.setTimeout(10_000, () => req.destroy(new Error('admin socket timed out')));
            req.end(body === undefined ? undefined : JSON.stringify(body));
        });
    }
}
//# sourceMappingURL=admin-socket-client.js.map