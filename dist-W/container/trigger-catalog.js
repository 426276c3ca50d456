import { AI_PROVIDER_NAMES } from '../adapters/ai/ai-providers.js';
import { watchPathOf } from '../domain/auth/route-policy.js';
import { routeTable } from './channels/index.js';
/**
 * What trigger files are checked against: the endpoints of the route table (every messaging
 * channel's among them, and the alias paths) and the AI provider registry. Loads no adapter.
 */
export const triggerCatalog = () => ({ watchPaths: routeTable().map(watchPathOf), llmProviders: AI_PROVIDER_NAMES });
//# sourceMappingURL=trigger-catalog.js.map