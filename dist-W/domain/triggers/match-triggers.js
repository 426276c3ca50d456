import { passesWhen } from './trigger-filter.js';
/**
 * SPEC 6.1: the enabled triggers whose `watch_path` equals the called endpoint's path
 * without `/api` — or another path naming the same endpoint (a channel's alias path) — in
 * file order. Disabled triggers never match.
 */
export const matchTriggers = (triggers, watchPaths) => {
    const paths = typeof watchPaths === 'string' ? [watchPaths] : watchPaths;
    return triggers.filter((trigger) => trigger.enabled && paths.includes(trigger.watchPath));
};
/** Of the triggers matched by path, those whose `when` the request passes (issue 17.3), in order. */
export const filterTriggers = (matched, request) => matched.filter((trigger) => passesWhen(trigger.when, request));
//# sourceMappingURL=match-triggers.js.map