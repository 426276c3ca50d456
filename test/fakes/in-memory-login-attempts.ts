import type { LoginAttempts } from '../../src/ports/login-attempts.js';

/** Atomic as the port requires: each count reads and writes in one synchronous step. */
export class InMemoryLoginAttempts implements LoginAttempts {
  readonly windows = new Map<string, { attempts: number; startedAt: number }>();

  async count(client: string, now: Date, windowMs: number): Promise<number> {
    const at = now.getTime();
    this.#deleteEnded(now, windowMs, Number.MAX_SAFE_INTEGER);
    const window = this.windows.get(client) ?? { attempts: 0, startedAt: at };
    window.attempts++;
    this.windows.set(client, window);
    return window.attempts;
  }

  async clear(client: string): Promise<void> {
    this.windows.delete(client);
  }

  async deleteEnded(now: Date, windowMs: number, limit: number): Promise<number> {
    return this.#deleteEnded(now, windowMs, limit);
  }

  #deleteEnded(now: Date, windowMs: number, limit: number): number {
    const ended = [...this.windows]
      .filter(([, window]) => window.startedAt <= now.getTime() - windowMs)
      .sort(([, a], [, b]) => a.startedAt - b.startedAt)
      .slice(0, limit);
    for (const [client] of ended) this.windows.delete(client);
    return ended.length;
  }
}
