import { AI_PROVIDER_NAMES } from '../adapters/ai/ai-providers.js';
import { watchPathOf } from '../domain/auth/route-policy.js';
import type { TriggerCatalog } from '../domain/triggers/validate-triggers.js';
import { routeTable } from './channels/index.js';

/**
 * What trigger files are checked against: the authenticated endpoints of the route table (every
 * messaging channel's among them, and the alias paths), its public ones (`/ping`: no trigger may
 * watch them, since anyone could fire it) and the AI provider registry. Loads no adapter.
 */
export const triggerCatalog = (): TriggerCatalog => {
  const routes = routeTable();
  return {
    watchPaths: routes.filter((route) => route.auth !== 'public').map(watchPathOf),
    publicWatchPaths: routes.filter((route) => route.auth === 'public').map(watchPathOf),
    llmProviders: AI_PROVIDER_NAMES,
  };
};
