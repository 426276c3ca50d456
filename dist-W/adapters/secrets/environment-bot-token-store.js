/**
 * The bot token of a channel whose platform has no registration by API call: the one its
 * variable sets, read once at start-up; no webhook secret is ever stored (the channel's
 * configured secret is the only one). Registering is refused.
 */
export class EnvironmentBotTokenStore {
    configured;
    constructor(configured) {
        this.configured = configured;
    }
    async current() {
        return this.configured;
    }
    async webhookSecret() {
        return undefined;
    }
    async register() {
        throw new Error('This channel has no registration: its bot token is set in its variable');
    }
}
//# sourceMappingURL=environment-bot-token-store.js.map