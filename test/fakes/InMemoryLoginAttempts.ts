import type { LoginAttempts } from '../../src/ports/LoginAttempts.js';

/** Atomic as the port requires: each count reads and writes in one synchronous step. */
export class InMemoryLoginAttempts implements LoginAttempts {
  readonly windows = new Map<string, { attempts: number; startedAt: number }>();

  async count(client: string, now: Date, windowMs: number): Promise<number> {
    const at = now.getTime();
    for (const [key, window] of this.windows) if (window.startedAt <= at - windowMs) this.windows.delete(key);
    const window = this.windows.get(client) ?? { attempts: 0, startedAt: at };
    window.attempts++;
    this.windows.set(client, window);
    return window.attempts;
  }

  async clear(client: string): Promise<void> {
    this.windows.delete(client);
  }
}
