import type { Logger } from '../../ports/logger.js';

/** What pg-boss emits as `warning`: a message and the figures behind it. */
export interface QueueWarning {
  readonly message: string;
  readonly data?: unknown;
}

/** Ten minutes: a backlog or a slow query is still reported six times an hour while it lasts. */
export const WARNING_REPEAT_MS = 10 * 60_000;

/**
 * The figures to log: a slow query's parameter values are left out (they can be a task's data,
 * a request body with its tokens); how many there were is kept.
 */
const figuresOf = (data: unknown): unknown => {
  if (!data || typeof data !== 'object' || !('values' in data)) return data;
  const { values, ...rest } = data as { values: unknown };
  return { ...rest, values: Array.isArray(values) ? `${values.length} left out` : 'left out' };
};

/** A warning's kind: its message without its figures (the backlog's size, a query's seconds). */
const kindOf = (message: string): string => message.replace(/\d+(\.\d+)?/g, '#');

/**
 * Logs pg-boss's warnings, each kind at most once per `repeatMs`. pg-boss repeats a warning at
 * every supervision while its cause lasts: a backlog of tasks being drained was 27 identical
 * lines in seven minutes. The first of a kind is logged at once; the repeats that follow within
 * `repeatMs` are counted, and the next one logged after it says how many were left out.
 */
export class RepeatedWarnings {
  readonly #logger: Logger;
  readonly #repeatMs: number;
  readonly #now: () => number;
  /** Per kind: when it was last logged and how many have come since. */
  readonly #seen = new Map<string, { loggedAt: number; leftOut: number }>();

  /** `now`: milliseconds on a monotonic clock, so that a change of the system's time neither hides warnings nor repeats them. */
  constructor(logger: Logger, repeatMs: number = WARNING_REPEAT_MS, now: () => number = () => performance.now()) {
    this.#logger = logger;
    this.#repeatMs = repeatMs;
    this.#now = now;
  }

  report(warning: unknown): void {
    const { message, data } = (warning ?? {}) as Partial<QueueWarning>;
    const text = typeof message === 'string' ? message : 'task queue warning';
    const kind = kindOf(text);
    const now = this.#now();
    const seen = this.#seen.get(kind);
    if (seen && now - seen.loggedAt < this.#repeatMs) {
      seen.leftOut++;
      return;
    }
    const fields: Record<string, unknown> = { warning: { message: text, data: figuresOf(data) } };
    if (seen && seen.leftOut > 0) fields.repeatsLeftOut = seen.leftOut;
    this.#seen.set(kind, { loggedAt: now, leftOut: 0 });
    this.#logger.warn(fields, 'task queue warning');
  }
}
