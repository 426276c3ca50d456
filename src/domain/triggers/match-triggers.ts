import type { Trigger } from './trigger.js';

/**
 * SPEC 6.1: the enabled triggers whose `watch_path` equals the called endpoint's path
 * without `/api` — or another path naming the same endpoint (a channel's alias path) — in
 * file order. Disabled triggers never match.
 */
export const matchTriggers = (triggers: readonly Trigger[], watchPaths: string | readonly string[]): Trigger[] => {
  const paths: readonly string[] = typeof watchPaths === 'string' ? [watchPaths] : watchPaths;
  return triggers.filter((trigger) => trigger.enabled && paths.includes(trigger.watchPath));
};
