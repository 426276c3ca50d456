import type { Trigger } from './Trigger.js';

/**
 * SPEC 6.1: the enabled triggers whose `watch_path` equals the called endpoint's path
 * without `/api`, in file order. Disabled triggers never match.
 */
export const matchTriggers = (triggers: readonly Trigger[], watchPath: string): Trigger[] =>
  triggers.filter((trigger) => trigger.enabled && trigger.watchPath === watchPath);
