/**
 * One messaging channel's bot token: the registered one (persisted) or the configured default;
 * and the webhook secret a registration generated (when the channel's secret was not configured).
 */
export interface BotTokenStore {
  /** The token in force: the last registered one, else the configured one; undefined when neither exists. */
  current(): Promise<string | undefined>;
  /**
   * The webhook secret stored by the last registration, or undefined when it stored none
   * (nothing registered yet, or the channel's secret was configured when it ran).
   */
  webhookSecret(): Promise<string | undefined>;
  /**
   * Persists a newly registered token together with the webhook secret the platform was given
   * (undefined: none stored, the configured one is in force) and, when given, the address it
   * was registered at (kept as it was otherwise). Both replace what was stored
   * before, together: a reader never sees one registration's token with another's secret.
   * The token overrides the configured default from now on, restarts included; this instance
   * answers with it at once, other replicas within a few seconds.
   * @throws when the store fails (nothing is replaced then).
   */
  register(token: string, webhookSecret: string | undefined, webhookUrl?: string): Promise<void>;
  /**
   * The address the last registration pointed the platform's deliveries at (`webhookUrl` of
   * `register`), or undefined when none was stored: the host a later registration must keep.
   */
  webhookUrl(): Promise<string | undefined>;
  /**
   * The stored webhook secret, or `generate()`'s, stored now when there is none: of callers at
   * once (two registrations on two replicas), all get the one stored first — a registration then
   * gives the platform the secret every replica accepts, whichever of them finishes last.
   * @throws when the store fails, or for a channel without registration.
   */
  secretFor(generate: () => string): Promise<string>;
}
