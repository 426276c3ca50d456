import type { RequestSnapshot } from '../templates/request-snapshot.js';
import type { Trigger } from './trigger.js';
import { passesWhen } from './trigger-filter.js';

/**
 * SPEC 6.1: the enabled triggers whose `watch_path` equals the called endpoint's path
 * without `/api` — or another path naming the same endpoint (a channel's alias path) — in
 * file order. Disabled triggers never match.
 */
export const matchTriggers = (triggers: readonly Trigger[], watchPaths: string | readonly string[]): Trigger[] => {
  const paths: readonly string[] = typeof watchPaths === 'string' ? [watchPaths] : watchPaths;
  return triggers.filter((trigger) => trigger.enabled && paths.includes(trigger.watchPath));
};

/** Whether an enabled trigger watches one of the paths (matchTriggers not empty), without building the list. */
export const watchesAny = (triggers: readonly Trigger[], watchPaths: string | readonly string[]): boolean =>
  typeof watchPaths === 'string'
    ? triggers.some((trigger) => trigger.enabled && trigger.watchPath === watchPaths)
    : triggers.some((trigger) => trigger.enabled && watchPaths.includes(trigger.watchPath));

/** Of the triggers matched by path, those whose `when` the request passes (issue 17.3), in order. */
export const filterTriggers = (matched: readonly Trigger[], request: RequestSnapshot): Trigger[] =>
  matched.filter((trigger) => passesWhen(trigger.when, request));
