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
  credentialHeaders: ['x-slack-signature'] as readonly string[],
  /** The webhook's field naming the channel an event comes from (the chat-endpoint trigger warning's). */
  chatIdFields: ['body.event.channel'] as readonly string[],
  /**
   * What the webhook's bodies carry that works as a credential, kept out of what triggers see
   * (so out of stored deliveries, the admin pages and forwarded bodies). `token`: the app's
   * legacy verification token, in every event and interactivity payload; apps that still check
   * it take whoever holds it for Slack (the gateway checks the signature instead, and reads it
   * nowhere). `response_url` (`response_urls` of a modal's submission): an address that posts
   * into the channel for 30 minutes without any other credential; the gateway answers through
   * the Web API with its bot token and no feature reads it. Top-level, as events and slash
   * commands carry them, and in the JSON of an interactivity form's `payload` field.
   */
  webhookCredentialFields: ['token', 'response_url', 'payload.token', 'payload.response_url', 'payload.response_urls'] as readonly string[],
} as const;
