import { AI_PROVIDER_NAMES } from '../adapters/ai/aiProviders.js';
import { API_ROUTES, watchPathOf } from '../domain/auth/routePolicy.js';
import type { TriggerCatalog } from '../domain/triggers/validateTriggers.js';

/** What trigger files are checked against: the endpoints of the route table and the AI provider registry. Loads nothing heavy. */
export const triggerCatalog = (): TriggerCatalog => ({ watchPaths: API_ROUTES.map(watchPathOf), llmProviders: AI_PROVIDER_NAMES });
