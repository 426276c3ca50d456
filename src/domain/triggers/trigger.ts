/** A trigger of `config/TRIGGERS.json` (SPEC 2.2), validated. */
export interface Trigger {
  readonly name: string;
  /** The endpoint path without `/api`, e.g. `/webhook`. */
  readonly watchPath: string;
  readonly enabled: boolean;
  readonly actions: readonly TriggerAction[];
  /**
   * `concurrency: N`: at most N runs of this trigger at once across every replica; the others
   * wait, in the order they were fired. Absent: unlimited.
   */
  readonly concurrency?: number;
}

/** Starts an agent job with the rendered prompt (SPEC 2.3). */
export interface AgentAction {
  readonly type: 'agent';
  /** Its tokens' values reach the model inside untrusted-input blocks (renderPrompt). */
  readonly job: string;
  /** A provider name of the list the trigger file was validated against. */
  readonly llmProvider?: string;
  readonly llmModel?: string;
  /** `unsafe_raw: true`: values are spliced in as plain text, without the untrusted framing. */
  readonly unsafeRaw?: boolean;
}

/** Runs a shell command in the triggers directory; tokens are shell-escaped. */
export interface CommandAction {
  readonly type: 'command';
  readonly command: string;
  /** Seconds before the command is killed; the service default when absent. */
  readonly timeoutSeconds?: number;
  /** Extra attempts after a failure; 0 (no retry) when absent. */
  readonly retries?: number;
}

/** Sends an HTTP request (SPEC 6.1 outbound webhook rules). */
export interface WebhookAction {
  readonly type: 'webhook';
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly vars: Readonly<Record<string, unknown>>;
}

export type TriggerAction = AgentAction | CommandAction | WebhookAction;
