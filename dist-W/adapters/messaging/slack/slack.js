/**
 * What the gateway knows of the Slack channel before its adapter is loaded (routes, trigger
 * paths, the headers kept out of snapshots and logs). Imports nothing.
 */
export const SLACK = {
    id: 'slack',
    title: 'Slack',
    /** Slack is told the Events API address in the app's settings (Event Subscriptions), not by an API call. */
    registers: false,
    /** The request signature Slack sends with every event (its timestamp is no secret). */
    credentialHeaders: ['x-slack-signature'],
};
//# sourceMappingURL=slack.js.map