import { apiRoutes } from '../../domain/auth/route-policy.js';
import { slackBinding } from './slack.js';
import { telegramBinding } from './telegram.js';
/**
 * The messaging channels of the gateway, in order: their routes, trigger paths, configuration
 * and adapters come from here. A new channel is one binding in this list.
 */
export const CHANNEL_BINDINGS = [telegramBinding, slackBinding];
/** The channel that also answers on today's paths `/api/messaging/webhook` and `/api/messaging/register` (SPEC 4.3, 4.4). */
export const ALIAS_CHANNEL = telegramBinding.id;
/** The route table: the fixed endpoints and every channel's. Loads no adapter. */
export const routeTable = () => apiRoutes(CHANNEL_BINDINGS, ALIAS_CHANNEL);
/** Headers carrying some channel's credentials (lower-case): never in trigger snapshots nor logs. */
export const channelCredentialHeaders = () => [...new Set(CHANNEL_BINDINGS.flatMap((binding) => binding.credentialHeaders))];
//# sourceMappingURL=index.js.map