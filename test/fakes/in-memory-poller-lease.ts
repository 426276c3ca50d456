import type { PollerLease } from '../../src/ports/poller-lease.js';

/** PollerLease in memory, for unit tests (one process: no replicas). */
export class InMemoryPollerLease implements PollerLease {
  readonly rows = new Map<string, { holder: string | undefined; expiresAt: number; cursor: string | undefined }>();

  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const row = this.rows.get(name);
    if (row !== undefined && row.holder !== undefined && row.holder !== holder && row.expiresAt > now.getTime()) return false;
    this.rows.set(name, { holder, expiresAt: now.getTime() + ttlMs, cursor: row?.cursor });
    return true;
  }

  async cursor(name: string): Promise<string | undefined> {
    return this.rows.get(name)?.cursor;
  }

  async advance(name: string, holder: string, cursor: string, now: Date): Promise<boolean> {
    const row = this.rows.get(name);
    if (row === undefined || row.holder !== holder || row.expiresAt <= now.getTime()) return false;
    row.cursor = cursor;
    return true;
  }

  async release(name: string, holder: string): Promise<void> {
    const row = this.rows.get(name);
    if (row?.holder === holder) row.holder = undefined;
  }
}
