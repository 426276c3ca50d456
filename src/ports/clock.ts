/** The current time, injected so the core and its tests control it. */
export interface Clock {
  now(): Date;
}
