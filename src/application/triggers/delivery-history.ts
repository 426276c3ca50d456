import { DomainError } from '../../domain/errors/domain-error.js';
import { isUuid } from '../../domain/ids/is-uuid.js';
import type { ActionRun } from '../../domain/triggers/action-run.js';
import type { ActionRunRepository } from '../../ports/action-run-repository.js';
import type { InboundRequest, InboundRequestFilter, InboundRequestStore } from '../../ports/inbound-request-store.js';

/** One trigger run of a delivery, with the records of its actions so far (none while it waits in the queue). */
export interface DeliveryRun {
  readonly trigger: string;
  readonly runId: string;
  readonly actions: readonly ActionRun[];
}

/** A stored request in full: what it was, which triggers it fired and how each of their actions went. */
export interface Delivery {
  readonly request: InboundRequest;
  readonly runs: readonly DeliveryRun[];
}

/** How many a list holds unless told otherwise. */
export const DEFAULT_DELIVERIES = 50;

/**
 * A list filter from text parameters (a query string, the CLI's options): `path` (the endpoint's
 * path, with or without `/api`: `/api/webhook` is `/webhook`, as the list shows it and a trigger's
 * watch_path writes it, which never starts with /api), `trigger`, `before` (a time) and
 * `before_id` (the id of the delivery received at `before`: the next page starts after it, in the
 * list's order), `limit` (default 50). Empty means absent.
 * @throws DomainError invalid_input naming the parameter that is malformed or repeated, or
 * `before_id` without `before`.
 */
export const parseDeliveryFilter = (raw: Readonly<Record<string, string | readonly string[] | undefined>>): InboundRequestFilter => {
  const one = (name: string): string | undefined => {
    const value = raw[name];
    if (Array.isArray(value)) throw new DomainError('invalid_input', `${name} may be given once`);
    return value === undefined || value === '' ? undefined : (value as string);
  };
  const given = one('path');
  const path = given === '/api' || given?.startsWith('/api/') ? given.slice(4) || '/' : given;
  const trigger = one('trigger');
  const before = one('before');
  const beforeDate = before === undefined ? undefined : new Date(before);
  // A year the database cannot hold (0000, +200000) is refused here, not by the database's error.
  if (beforeDate !== undefined && (Number.isNaN(beforeDate.getTime()) || beforeDate.getUTCFullYear() < 1 || beforeDate.getUTCFullYear() > 9999))
    throw new DomainError('invalid_input', 'before must be a time such as 2026-11-24T10:00:00Z');
  const beforeId = one('before_id');
  if (beforeId !== undefined && !isUuid(beforeId)) throw new DomainError('invalid_input', 'before_id must be the id of a delivery (a UUID)');
  if (beforeId !== undefined && beforeDate === undefined) throw new DomainError('invalid_input', 'before_id needs before: the received time of that delivery');
  const limit = one('limit');
  if (limit !== undefined && !(/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_DELIVERIES))
    throw new DomainError('invalid_input', `limit must be a whole number from 1 to ${MAX_DELIVERIES}`);
  return {
    ...(path === undefined ? {} : { watchPath: path }),
    ...(trigger === undefined ? {} : { trigger }),
    ...(beforeDate === undefined ? {} : { before: beforeDate }),
    ...(beforeId === undefined ? {} : { beforeId: beforeId.toLowerCase() }),
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
  constructor(
    private readonly requests: InboundRequestStore,
    private readonly actionRuns: ActionRunRepository,
  ) {}

  /** @throws DomainError invalid_input for a limit outside 1–500. */
  list(filter: InboundRequestFilter): Promise<InboundRequest[]> {
    if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > MAX_DELIVERIES)
      throw new DomainError('invalid_input', `limit must be a whole number from 1 to ${MAX_DELIVERIES}`);
    return this.requests.list(filter);
  }

  /** @throws DomainError not_found when no request with this id is stored (any more). */
  async show(id: string): Promise<Delivery> {
    const request = await this.requests.find(id);
    if (request === null) throw new DomainError('not_found', `No stored request with id ${id} (never stored, or removed by retention)`);
    const runs = await Promise.all(request.runs.map(async (run) => ({ ...run, actions: await this.actionRuns.forRun(run.runId) })));
    return { request, runs };
  }
}
