import { snapshotRequest } from '../../domain/templates/request-snapshot.js';
/** The lease (and stored position) of a channel's poller. */
export const pollerName = (channelId) => `${channelId}:updates`;
/**
 * Fetches a channel's deliveries by long polling, for gateways without a public HTTPS address
 * (the channels whose settings say `mode: 'polling'`). Exactly one replica polls a channel: the
 * holder of its lease, renewed with every poll; when the holder dies the lease expires and
 * another replica takes over from the stored position. Each delivery goes through the very
 * path of a verified webhook delivery (ReceiveMessagingUpdate.accept: de-duplicated by its id,
 * stored as a task, the webhook's triggers fired), then the position moves past it, so a
 * delivery taken in before a crash and fetched again runs nothing twice.
 */
export class PollMessagingUpdates {
    channels;
    receive;
    lease;
    clock;
    logger;
    delay;
    settings;
    holder;
    webhookWatchPaths;
    constructor(channels, receive, lease, clock, logger, delay, settings, 
    /** This replica's name on the leases (unique per process). */
    holder, 
    /** The watch paths of a channel's webhook endpoint (its own first): its triggers fire for polled deliveries too. */
    webhookWatchPaths) {
        this.channels = channels;
        this.receive = receive;
        this.lease = lease;
        this.clock = clock;
        this.logger = logger;
        this.delay = delay;
        this.settings = settings;
        this.holder = holder;
        this.webhookWatchPaths = webhookWatchPaths;
    }
    /** The channels this gateway polls. */
    get polled() {
        return this.channels.all.filter((channel) => channel.settings.mode === 'polling' && channel.platform.polling !== undefined);
    }
    /** Polls every polled channel until `signal` aborts, then gives the leases up. Never rejects. */
    async execute(signal) {
        await Promise.all(this.polled.map((channel) => this.#pollChannel(channel, channel.platform.polling, signal)));
    }
    async #pollChannel(channel, polling, signal) {
        const { platform } = channel;
        const name = pollerName(platform.id);
        const log = this.logger.child({ channel: platform.id, component: 'poller' });
        const [watchPath, ...sameEndpointAs] = this.webhookWatchPaths(platform.id);
        let failures = 0;
        let holding = false;
        while (!signal.aborted) {
            try {
                const token = await channel.credentials.current();
                if (token === undefined || !(await this.lease.acquire(name, this.holder, this.clock.now(), this.settings.leaseMs))) {
                    if (holding)
                        log.info({}, 'no longer polling (the lease went to another replica)');
                    holding = false;
                    await this.delay(this.settings.standbyMs, signal);
                    continue;
                }
                if (!holding) {
                    // A webhook still set makes the platform refuse polls.
                    await polling.stopWebhook(token, signal);
                    holding = true;
                    log.info({}, 'polling for updates');
                }
                const deliveries = await polling.poll(token, await this.lease.cursor(name), this.settings.waitSeconds, signal);
                for (const delivery of deliveries) {
                    await this.receive.accept(channel, platform.parse(delivery.body), {
                        watchPath,
                        sameEndpointAs,
                        request: () => snapshotRequest(delivery.body, {}, {}),
                    });
                    // Lost the lease meanwhile: the new holder fetches the rest (what was taken in is de-duplicated).
                    if (!(await this.lease.advance(name, this.holder, delivery.next, this.clock.now())))
                        break;
                }
                failures = 0;
            }
            catch (error) {
                if (signal.aborted)
                    break;
                failures++;
                // A conflict: another poller, or a webhook set again; the webhook is removed on the next turn.
                if (error.status === 409)
                    holding = false;
                const waitMs = this.settings.backoffMs(failures);
                log.warn({ err: error, failures, retryInMs: waitMs }, 'polling for updates failed');
                await this.delay(waitMs, signal);
            }
        }
        await this.lease.release(name, this.holder).catch((error) => log.warn({ err: error }, 'could not give the poller lease up'));
    }
}
//# sourceMappingURL=poll-messaging-updates.js.map