import type { Clock } from '../../src/ports/clock.js';

export class FixedClock implements Clock {
  constructor(public current: Date = new Date('2026-01-01T00:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
