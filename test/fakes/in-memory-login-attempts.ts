import type { LoginAttempts, LoginWindow } from '../../src/ports/login-attempts.js';

/** Atomic as the port requires: each take reads and writes in one synchronous step. Counts its calls, reads and writes apart. */
export class InMemoryLoginAttempts implements LoginAttempts {
  readonly windows = new Map<string, { attempts: number; startedAt: number }>();
  /** Calls that read only (`current`). */
  reads = 0;
  /** Calls that may write (`take`, `clear`, `deleteEnded`). */
  writes = 0;

  async current(client: string, now: Date, windowMs: number): Promise<LoginWindow | null> {
    this.reads++;
    const window = this.windows.get(client);
    if (window === undefined || window.startedAt <= now.getTime() - windowMs) return null;
    return { attempts: window.attempts, endsAt: new Date(window.startedAt + windowMs) };
  }

  async take(client: string, now: Date, windowMs: number, max: number): Promise<LoginWindow | null> {
    this.writes++;
    const at = now.getTime();
    const stored = this.windows.get(client);
    const window = stored === undefined || stored.startedAt <= at - windowMs ? { attempts: 0, startedAt: at } : stored;
    if (window.attempts >= max) return null;
    window.attempts++;
    this.windows.set(client, window);
    return { attempts: window.attempts, endsAt: new Date(window.startedAt + windowMs) };
  }

  async clear(client: string): Promise<void> {
    this.writes++;
    this.windows.delete(client);
  }

  async deleteEnded(now: Date, windowMs: number, limit: number): Promise<number> {
    this.writes++;
    const ended = [...this.windows]
      .filter(([, window]) => window.startedAt <= now.getTime() - windowMs)
      .sort(([, a], [, b]) => a.startedAt - b.startedAt)
      .slice(0, limit);
    for (const [client] of ended) this.windows.delete(client);
    return ended.length;
  }
}
