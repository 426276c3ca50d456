import { DomainError } from '../../domain/errors/domain-error.js';
/** How many a list holds unless told otherwise. */
export const DEFAULT_DELIVERIES = 50;
/**
 * A list filter from text parameters (a query string, the CLI's options): `path` (the endpoint's
 * path without `/api`), `trigger`, `before` (a time), `limit` (default 50). Empty means absent.
 * @throws DomainError invalid_input naming the parameter that is malformed or repeated.
 */
export const parseDeliveryFilter = (raw) => {
    const one = (name) => {
        const value = raw[name];
        if (Array.isArray(value))
            throw new DomainError('invalid_input', `${name} may be given once`);
        return value === undefined || value === '' ? undefined : value;
    };
    const path = one('path');
    const trigger = one('trigger');
    const before = one('before');
    const beforeDate = before === undefined ? undefined : new Date(before);
    if (beforeDate !== undefined && Number.isNaN(beforeDate.getTime()))
        throw new DomainError('invalid_input', 'before must be a time such as 2026-11-24T10:00:00Z');
    const limit = one('limit');
    if (limit !== undefined && !/^\d{1,6}$/.test(limit))
        throw new DomainError('invalid_input', `limit must be a whole number from 1 to ${MAX_DELIVERIES}`);
    return {
        ...(path === undefined ? {} : { watchPath: path }),
        ...(trigger === undefined ? {} : { trigger }),
        ...(beforeDate === undefined ? {} : { before: beforeDate }),
        limit: limit === undefined ? DEFAULT_DELIVERIES : Number(limit),
    };
};
/** The most a list may hold at once. */
export const MAX_DELIVERIES = 500;
/**
 * The delivery log: requests that fired triggers (webhooks, code-host and chat deliveries), kept
 * for the retention period, each with its trigger runs; newest first, filtered by path and trigger.
 */
export class DeliveryHistory {
    requests;
    actionRuns;
    constructor(requests, actionRuns) {
        this.requests = requests;
        this.actionRuns = actionRuns;
    }
    /** @throws DomainError invalid_input for a limit outside 1–500. */
    list(filter) {
        if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > MAX_DELIVERIES)
            throw new DomainError('invalid_input', `limit must be a whole number from 1 to ${MAX_DELIVERIES}`);
        return this.requests.list(filter);
    }
    /** @throws DomainError not_found when no request with this id is stored (any more). */
    async show(id) {
        const request = await this.requests.find(id);
        if (request === null)
            throw new DomainError('not_found', `No stored request with id ${id} (never stored, or removed by retention)`);
        const runs = await Promise.all(request.runs.map(async (run) => ({ ...run, actions: await this.actionRuns.forRun(run.runId) })));
        return { request, runs };
    }
}
//# sourceMappingURL=delivery-history.js.map