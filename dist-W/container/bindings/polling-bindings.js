import { MikroOrmPollerLease } from '../../adapters/persistence/mikro-orm-poller-lease.js';
import { PollMessagingUpdates } from '../../application/messaging/poll-messaging-updates.js';
import { watchPathsOf } from '../../domain/auth/route-policy.js';
import { routeTable } from '../channels/index.js';
import { TOKENS } from '../tokens.js';
/** How long one poll waits on the platform's side (Telegram allows up to 50 s). */
const WAIT_SECONDS = 30;
/** How often a replica that does not poll looks whether the poller's lease became free. */
const STANDBY_MS = 10_000;
/** The wait after a first failure, doubled with each further one up to a minute. */
const BACKOFF_MS = 1000;
/** A wait that ends early when the poller is stopped. */
const abortableDelay = (ms, signal) => new Promise((resolve) => {
    if (signal.aborted)
        return resolve();
    const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
});
/** The webhook endpoint's watch paths of a channel: polled deliveries fire the triggers its webhook would. */
const webhookWatchPaths = (channelId) => {
    const route = routeTable().find((candidate) => candidate.name === `messaging-webhook:${channelId}`);
    return route === undefined ? [`/messaging/${channelId}/webhook`] : watchPathsOf(route);
};
/** Channels fetched by long polling (a channel's `mode: 'polling'`), one poller across replicas. */
export const bindPolling = (c) => {
    c.bind(TOKENS.PollMessagingUpdates).toResolvedValue((channels, receive, database, clock, logger, ids) => new PollMessagingUpdates(channels, receive, new MikroOrmPollerLease(database), clock, logger, abortableDelay, {
        waitSeconds: WAIT_SECONDS,
        // Renewed with every poll: a dead holder's lease is taken over after about two polls.
        leaseMs: WAIT_SECONDS * 2000 + 30_000,
        standbyMs: STANDBY_MS,
        backoffMs: (failures) => Math.min(BACKOFF_MS * 2 ** (failures - 1), 60_000),
    }, ids.next(), webhookWatchPaths), [TOKENS.MessagingChannels, TOKENS.ReceiveMessagingUpdate, TOKENS.Database, TOKENS.Clock, TOKENS.Logger, TOKENS.IdGenerator]);
};
//# sourceMappingURL=polling-bindings.js.map