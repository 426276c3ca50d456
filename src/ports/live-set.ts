/**
 * Configuration that can be reloaded while the service runs (triggers, schedules): `current()`
 * is one immutable snapshot, replaced as a whole by a reload. Read it once per unit of work (a
 * request, a task), so that work never sees two sets or a half-loaded one.
 */
export interface LiveSet<T> {
  current(): T;
}
