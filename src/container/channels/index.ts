import type { z } from 'zod';
import { apiRoutes, watchPathOf, type ApiRoute } from '../../domain/auth/route-policy.js';
import type { ChannelBinding } from './channel-binding.js';
import { slackBinding } from './slack.js';
import { telegramBinding } from './telegram.js';

/**
 * The messaging channels of the gateway, in order: their routes, trigger paths, configuration
 * and adapters come from here. A new channel is one binding in this list.
 */
export const CHANNEL_BINDINGS = [telegramBinding, slackBinding] as const;

/** The channel that also answers on today's paths `/api/messaging/webhook` and `/api/messaging/register` (SPEC 4.3, 4.4). */
export const ALIAS_CHANNEL = telegramBinding.id;

/** The route table: the fixed endpoints and every channel's. Loads no adapter. */
export const routeTable = (): ApiRoute[] => apiRoutes(CHANNEL_BINDINGS, ALIAS_CHANNEL);

/** Headers carrying some channel's credentials (lower-case): never in trigger snapshots nor logs. */
export const channelCredentialHeaders = (): string[] => [...new Set(CHANNEL_BINDINGS.flatMap((binding) => binding.credentialHeaders))];

/**
 * The fields naming the chat, by the watch path of each channel's webhook (the alias path's
 * too): what chatTriggerWarnings checks a chat endpoint's triggers against. Loads no adapter.
 */
export const chatIdFieldsByWatchPath = (
  bindings: readonly Pick<ChannelBinding, 'id' | 'registers' | 'webhookCredentialFields' | 'webhookCallerKnownAfterBody' | 'chatIdFields'>[] = CHANNEL_BINDINGS,
  aliasChannel: string = ALIAS_CHANNEL,
): ReadonlyMap<string, readonly string[]> => {
  const fields = new Map<string, readonly string[]>(bindings.map((binding) => [binding.id, binding.chatIdFields]));
  const byPath = new Map<string, readonly string[]>();
  for (const route of apiRoutes(bindings, aliasChannel)) {
    const own = route.channel === undefined || route.auth !== 'platform-secret' ? undefined : fields.get(route.channel);
    if (own !== undefined) byPath.set(watchPathOf(route), own);
  }
  return byPath;
};

type Bindings = (typeof CHANNEL_BINDINGS)[number];
/** Each channel's settings, by its id. */
export type ChannelsConfig = { readonly [B in Bindings as B['id']]: z.output<B['schema']> };
