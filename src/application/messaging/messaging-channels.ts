import { DomainError } from '../../domain/errors/domain-error.js';
import type { BotTokenStore } from '../../ports/bot-token-store.js';
import type { MessagingChannel } from '../../ports/messaging-channel.js';

export interface ChatChannelSettings {
  /** The webhook secret set in the configuration; undefined: the one the last registration stored, if any. Never logged. */
  readonly webhookSecret: string | undefined;
  /** Chats allowed to talk to the bot; any other gets one hint and never reaches the AI. */
  readonly allowedChatIds: ReadonlySet<string>;
  /** How deliveries arrive: pushed to the webhook (the default), or fetched by polling (where the platform has it). */
  readonly mode?: 'webhook' | 'polling';
  /** The names of the channel's variables (the ones the operator uses), for hints and warnings. */
  readonly variables: { readonly botToken: string; readonly webhookSecret: string; readonly allowedChats: string; readonly mode?: string };
}

/** A channel as the use cases see it: the platform, its credentials (configured or registered) and its settings. */
export interface ChatChannel {
  readonly platform: MessagingChannel;
  readonly credentials: BotTokenStore;
  readonly settings: ChatChannelSettings;
}

/** The channel registry: every messaging channel of this gateway, by id, in the order given. */
export class MessagingChannels {
  readonly #byId: ReadonlyMap<string, ChatChannel>;

  constructor(readonly all: readonly ChatChannel[]) {
    this.#byId = new Map(all.map((channel) => [channel.platform.id, channel]));
    if (this.#byId.size !== all.length) throw new Error('Two messaging channels share an id');
  }

  /** The channel with this id, or undefined. */
  find(id: string): ChatChannel | undefined {
    return this.#byId.get(id);
  }

  /** @throws DomainError `not_found` when no channel has this id. */
  get(id: string): ChatChannel {
    const channel = this.#byId.get(id);
    if (channel === undefined) throw new DomainError('not_found', `No messaging channel ${id}`);
    return channel;
  }
}
