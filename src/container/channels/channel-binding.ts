import type { z } from 'zod';
import type { Database } from '../../adapters/persistence/database.js';
import type { ChatChannel } from '../../application/messaging/messaging-channels.js';

/**
 * One messaging channel of the gateway, as the composition root knows it: what the routes,
 * the trigger file and the logs need before anything is loaded, its configuration, and how
 * its adapter is built. Adding a channel is one of these (and its line in `channels/index.ts`).
 */
export interface ChannelBinding<Id extends string = string, Settings = unknown> {
  /** The adapter's `id`: the `<channel>` of `/api/messaging/<channel>/…`. */
  readonly id: Id;
  /** Whether the platform's webhook is registered through `POST /api/messaging/<channel>/register`. */
  readonly registers: boolean;
  /** The adapter's `credentialHeaders`: kept out of trigger snapshots and logs. */
  readonly credentialHeaders: readonly string[];
  /** The body fields of its webhook that carry credentials (ChannelRoutes `webhookCredentialFields`): kept out of trigger snapshots. */
  readonly webhookCredentialFields?: readonly string[];
  /**
   * The platform signs its webhook's body and sends no secret header (ChannelRoutes
   * `webhookCallerKnownAfterBody`): the caller is known only once the body is read, so the
   * webhook (and its alias) refuses a compressed body with a 415 before reading it. Set only for
   * a platform that never compresses what it posts.
   */
  readonly webhookCallerKnownAfterBody?: true;
  /**
   * The request fields of its webhook that name the chat an update comes from (`body.…`), the
   * one to suggest first: a trigger on the webhook with no `when` on one of them fires for every
   * chat, and is warned about (chat-trigger-warnings.ts).
   */
  readonly chatIdFields: readonly string[];
  /** The channel's variables, validated: a problem names the variable (docs/configuration.md lists them). */
  readonly schema: z.ZodType<Settings, Readonly<Record<string, string | undefined>>>;
  /** The channel, built once the service starts (the adapter's modules are loaded then, not before). */
  create(settings: Settings, infra: { readonly database: Database }): Promise<ChatChannel>;
}
