import { DomainError } from '../../domain/errors/domain-error.js';
/** The channel registry: every messaging channel of this gateway, by id, in the order given. */
export class MessagingChannels {
    all;
    #byId;
    constructor(all) {
        this.all = all;
        this.#byId = new Map(all.map((channel) => [channel.platform.id, channel]));
        if (this.#byId.size !== all.length)
            throw new Error('Two messaging channels share an id');
    }
    /** The channel with this id, or undefined. */
    find(id) {
        return this.#byId.get(id);
    }
    /** @throws DomainError `not_found` when no channel has this id. */
    get(id) {
        const channel = this.#byId.get(id);
        if (channel === undefined)
            throw new DomainError('not_found', `No messaging channel ${id}`);
        return channel;
    }
}
//# sourceMappingURL=messaging-channels.js.map