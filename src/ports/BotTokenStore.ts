/** The messaging bot's token: the registered one (persisted) or the configured default. */
export interface BotTokenStore {
  /** The token in force, or undefined when none is configured nor registered. */
  current(): Promise<string | undefined>;
  /** Persists a newly registered token; it overrides the configured default from now on, restarts included. */
  register(token: string): Promise<void>;
}
