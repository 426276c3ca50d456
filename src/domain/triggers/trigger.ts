import type { TriggerCondition } from './trigger-filter.js';

/** A trigger of `config/TRIGGERS.json` (SPEC 2.2), validated. */
export interface Trigger {
  readonly name: string;
  /** The endpoint path without `/api`, e.g. `/webhook`. */
  readonly watchPath: string;
  readonly enabled: boolean;
  /** `when`: tests on the request, all of which must pass for the trigger to fire; absent = always. */
  readonly when?: readonly TriggerCondition[];
  readonly actions: readonly TriggerAction[];
  /**
   * `concurrency: N`: at most N runs of this trigger at once across every replica; the others
   * wait, in the order they were fired. Absent: unlimited.
   */
  readonly concurrency?: number;
}

/** What every action type may carry. */
export interface ActionOptions {
  /**
   * `approval: true`: the run stops before this action until a person approves it (admin UI);
   * denied or expired, it never runs and neither do the actions after it.
   */
  readonly approval?: boolean;
}

/** Starts an agent job with the rendered prompt (SPEC 2.3). */
export interface AgentAction extends ActionOptions {
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
export interface CommandAction extends ActionOptions {
  readonly type: 'command';
  readonly command: string;
  /** Seconds before the command is killed; the service default when absent. */
  readonly timeoutSeconds?: number;
  /** Extra attempts after a failure; 0 (no retry) when absent. */
  readonly retries?: number;
}

/** Sends an HTTP request (SPEC 6.1 outbound webhook rules). */
export interface WebhookAction extends ActionOptions {
  readonly type: 'webhook';
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly vars: Readonly<Record<string, unknown>>;
}

export type TriggerAction = AgentAction | CommandAction | WebhookAction;
