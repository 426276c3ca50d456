import type { Trigger } from '../../domain/triggers/trigger.js';
import type { LiveSet } from '../../ports/live-set.js';

/** The triggers as configured: a fixed list, or the live set a reload replaces. */
export type TriggerSource = readonly Trigger[] | LiveSet<readonly Trigger[]>;

/** The one snapshot to use for a unit of work. */
export const currentTriggers = (source: TriggerSource): readonly Trigger[] => ('current' in source ? source.current() : source);
