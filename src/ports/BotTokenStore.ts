/**
 * One messaging channel's bot token: the registered one (persisted) or the configured default;
 * and the webhook secret a registration generated (when the channel's secret was not configured).
 */
export interface BotTokenStore {
  /** The token in force, or undefined when none is configured nor registered. */
  current(): Promise<string | undefined>;
  /**
   * The webhook secret stored by the last registration, or undefined when it stored none
   * (nothing registered yet, or the channel's secret was configured when it ran).
   */
  webhookSecret(): Promise<string | undefined>;
  /**
   * Persists a newly registered token together with the webhook secret the platform was given
   * (undefined: none stored, the configured one is in force). Both replace what was stored
   * before, at once; the token overrides the configured default from now on, restarts included.
   */
  register(token: string, webhookSecret: string | undefined): Promise<void>;
}
