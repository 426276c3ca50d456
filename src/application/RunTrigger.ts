import type { ActionRun } from '../domain/triggers/ActionRun.js';
import { isDomainError } from '../domain/errors/DomainError.js';
import { renderCommand } from '../domain/templates/renderCommand.js';
import { renderPrompt } from '../domain/templates/renderPrompt.js';
import { renderText } from '../domain/templates/templateTokens.js';
import type { AgentAction, CommandAction, Trigger, TriggerAction, WebhookAction } from '../domain/triggers/Trigger.js';
import type { ActionRunRepository } from '../ports/ActionRunRepository.js';
import type { Clock } from '../ports/Clock.js';
import type { HttpForwarder } from '../ports/HttpForwarder.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { JobLauncher } from '../ports/JobLauncher.js';
import type { Logger } from '../ports/Logger.js';
import type { ShellExecutor } from '../ports/ShellExecutor.js';
import type { RequestSnapshot } from '../domain/templates/RequestSnapshot.js';
import { requestOf, type TriggerRunTask } from './FireTriggers.js';

export interface RunTriggerSettings {
  /** Working directory of command actions. */
  readonly triggersDir: string;
  /** Timeout of a command action without its own `timeout`. */
  readonly commandTimeoutMs: number;
}

type Outcome = Pick<ActionRun, 'status' | 'attempts' | 'error' | 'detail'>;

const LOGGED_OUTPUT = 500;

/**
 * Runs the actions of one fired trigger, one after another in file order: each starts
 * when the previous one has finished, whatever its outcome. Every action run is recorded.
 * When a task is run again (its worker died), actions already recorded are not repeated.
 */
export class RunTrigger {
  constructor(
    private readonly triggers: readonly Trigger[],
    private readonly runs: ActionRunRepository,
    private readonly shell: ShellExecutor,
    private readonly forwarder: HttpForwarder,
    private readonly jobs: JobLauncher,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: RunTriggerSettings,
  ) {}

  async execute(task: TriggerRunTask): Promise<void> {
    const log = this.logger.child({ trigger: task.trigger, runId: task.runId });
    const trigger = this.triggers.find((candidate) => candidate.name === task.trigger);
    if (!trigger) {
      log.warn({}, 'trigger is no longer configured; its queued run is dropped');
      return;
    }
    const done = new Set((await this.runs.forRun(task.runId)).map((run) => run.actionIndex));
    const request = requestOf(task);
    for (const [index, action] of trigger.actions.entries()) {
      if (done.has(index)) continue;
      const startedAt = this.clock.now();
      const outcome = await this.#perform(action, task.trigger, request).catch((error: unknown): Outcome => ({
        status: 'failed',
        attempts: 1,
        error: error instanceof Error ? error.message : String(error),
        detail: {},
      }));
      const run: ActionRun = { runId: task.runId, trigger: trigger.name, actionIndex: index, type: action.type, startedAt, finishedAt: this.clock.now(), ...outcome };
      await this.runs.save(run);
      const fields = { action: index, type: action.type, status: run.status, attempts: run.attempts, durationMs: run.finishedAt.getTime() - startedAt.getTime(), error: run.error ?? undefined, ...run.detail };
      if (run.status === 'succeeded') log.info(fields, 'trigger action finished');
      else log.warn(fields, run.status === 'not_runnable' ? 'trigger action not runnable' : 'trigger action failed');
    }
  }

  #perform(action: TriggerAction, trigger: string, request: RequestSnapshot): Promise<Outcome> {
    switch (action.type) {
      case 'command':
        return this.#command(action, request);
      case 'webhook':
        return this.#webhook(action, request);
      case 'agent':
        return this.#agent(action, trigger, request);
    }
  }

  async #command(action: CommandAction, request: RequestSnapshot): Promise<Outcome> {
    const command = renderCommand(action.command, request);
    const timeoutMs = action.timeoutSeconds !== undefined ? action.timeoutSeconds * 1000 : this.settings.commandTimeoutMs;
    const attempts = 1 + (action.retries ?? 0);
    for (let attempt = 1; ; attempt++) {
      const result = await this.shell.run(command, { cwd: this.settings.triggersDir, timeoutMs });
      const ok = result.exitCode === 0 && !result.timedOut;
      if (ok || attempt >= attempts) {
        return {
          status: ok ? 'succeeded' : 'failed',
          attempts: attempt,
          error: ok ? null : result.timedOut ? `timed out after ${timeoutMs} ms` : `exit code ${result.exitCode}`,
          detail: { exitCode: result.exitCode, commandMs: result.durationMs, output: result.output.slice(0, LOGGED_OUTPUT) },
        };
      }
    }
  }

  async #webhook(action: WebhookAction, request: RequestSnapshot): Promise<Outcome> {
    const result = await this.forwarder.send({
      url: action.url,
      method: action.method,
      headers: action.headers,
      json: action.method === 'POST' ? { ...action.vars, data: request.body ?? null } : undefined,
    });
    return { status: result.ok ? 'succeeded' : 'failed', attempts: result.attempts, error: result.ok ? null : (result.error ?? `HTTP ${result.status}`), detail: { httpStatus: result.status } };
  }

  async #agent(action: AgentAction, trigger: string, request: RequestSnapshot): Promise<Outcome> {
    try {
      // Request text reaches the model inside untrusted blocks, unless the trigger opted out.
      const job = action.unsafeRaw ? renderText(action.job, request) : renderPrompt(action.job, request, this.ids.next());
      const jobId = await this.jobs.launch({
        job,
        llmProvider: action.llmProvider,
        llmModel: action.llmModel,
        source: { kind: 'trigger', name: trigger },
      });
      return { status: 'succeeded', attempts: 1, error: null, detail: { jobId } };
    } catch (error) {
      if (isDomainError(error) && error.code === 'not_configured') {
        return { status: 'not_runnable', attempts: 0, error: error.message, detail: {} };
      }
      throw error;
    }
  }
}
