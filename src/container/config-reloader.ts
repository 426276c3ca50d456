import { chatTriggerWarnings } from '../domain/triggers/chat-trigger-warnings.js';
import { codehostTriggerWarnings } from '../domain/triggers/codehost-trigger-warnings.js';
import type { Schedule } from '../domain/schedules/schedule.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import { withheldHeaderWarnings } from '../domain/triggers/withheld-header-warnings.js';
import type { Logger } from '../ports/logger.js';
import type { SecretStore } from '../ports/secret-store.js';
import type { AppConfig } from './config.js';
import { shownPath } from '../adapters/triggerfile/shown-path.js';
import { type ConfigFiles, readConfigFiles } from './config-files.js';
import type { Swappable } from './swappable.js';
import { channelCredentialHeaders, chatIdFieldsByWatchPath } from './channels/index.js';

/** A validated set as text to compare: a `when` regex (a RegExp, which JSON.stringify writes as `{}`) as its source and flags. */
const comparable = (entries: readonly unknown[]): string =>
  JSON.stringify(entries, (_key, value: unknown) => (value instanceof RegExp ? `/${value.source}/${value.flags}` : value));

/** A reload waiting for the running one to end, and the requests it answers. */
interface PendingReload {
  /** Each distinct reason of the requests, logged together. */
  readonly reasons: string[];
  /** True while every request only asked for a reload when the files changed (reloadIfChanged). */
  onlyIfChanged: boolean;
  readonly outcome: Promise<ReloadOutcome | undefined>;
}

/** What a reload did: the new counts, or every problem (the running set was kept). */
export interface ReloadOutcome {
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly triggers: number;
  readonly schedules: number;
}

/**
 * Reloads TRIGGERS_FILE and CRONS_FILE while the service runs (file change, SIGHUP, the CLI's
 * `reload`, a NOTIFY from another replica). Both files are read and checked as at start-up;
 * when both are valid, each set is replaced by its new snapshot at once, so a request is matched
 * against the old set or the new one, never a mix. When either is invalid — or gone while its
 * entries run — nothing changes, every
 * problem is logged at error level and kept for the admin UI until a reload succeeds.
 *
 * Reloads run one at a time, and requests made while one runs are coalesced: however many come
 * (a burst of SIGHUPs, file change events, `reload` calls), at most one more reload follows the
 * running one, reading the files as they are when it starts, and each of those requests is
 * answered with its outcome — a reload that started after the request, never the one running
 * when it came (which may have read the files before they changed).
 */
export class ConfigReloader {
  #problems: readonly string[] = [];
  /** The reload running now (settled, never rejected, once it ends); undefined when none runs. */
  #running: Promise<void> | undefined;
  /** The reload that follows the running one, with the requests it answers; undefined when none waits. */
  #next: PendingReload | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly triggers: Swappable<readonly Trigger[]>,
    private readonly schedules: Swappable<readonly Schedule[]>,
    private readonly secrets: SecretStore,
    private readonly logger: Logger,
    /** Called after the schedules were replaced (the scheduler re-plans). */
    private readonly onReloaded: () => void,
    /** Reads and checks both files (tests count the reads). */
    private readonly read: (config: AppConfig, secrets: SecretStore) => Promise<ConfigFiles> = readConfigFiles,
  ) {}

  /** The problems of the last failed reload; empty after a successful one. */
  get problems(): readonly string[] {
    return this.#problems;
  }

  reload(reason: string): Promise<ReloadOutcome> {
    // A request for a whole reload makes the waiting one whole: its outcome is a ReloadOutcome.
    return this.#request(reason, false) as Promise<ReloadOutcome>;
  }

  /**
   * Reloads only when the files no longer hold what runs (undefined when they do). Start-up
   * reads the files before its watcher and its NOTIFY listener are in place: a change in between
   * (a deploy writing the file, `agent-gateway reload` from another replica) would otherwise be
   * missed until the next one. Called once both are in place. Coalesced as reload() is: joining a
   * waiting whole reload, it is answered with that reload's outcome.
   */
  reloadIfChanged(reason: string): Promise<ReloadOutcome | undefined> {
    return this.#request(reason, true);
  }

  /** Starts a reload now when none runs; else joins (or sets up) the one reload that follows the running one. */
  #request(reason: string, onlyIfChanged: boolean): Promise<ReloadOutcome | undefined> {
    const waiting = this.#next;
    if (waiting !== undefined) {
      if (!waiting.reasons.includes(reason)) waiting.reasons.push(reason);
      waiting.onlyIfChanged &&= onlyIfChanged;
      return waiting.outcome;
    }
    if (this.#running === undefined) return this.#start([reason], onlyIfChanged);
    const pending: { reasons: string[]; onlyIfChanged: boolean } = { reasons: [reason], onlyIfChanged };
    const outcome = this.#running.then(() => {
      this.#next = undefined;
      return this.#start(pending.reasons, pending.onlyIfChanged);
    });
    this.#next = Object.assign(pending, { outcome });
    return outcome;
  }

  #start(reasons: readonly string[], onlyIfChanged: boolean): Promise<ReloadOutcome | undefined> {
    const reason = reasons.join(', ');
    const outcome = onlyIfChanged ? this.#reloadIfChanged(reason) : this.#reload(reason);
    const running = outcome.then(
      () => undefined,
      () => undefined,
    );
    this.#running = running;
    void running.then(() => {
      if (this.#running === running) this.#running = undefined;
    });
    return outcome;
  }

  async #reloadIfChanged(reason: string): Promise<ReloadOutcome | undefined> {
    const read = await this.read(this.config, this.secrets);
    const same =
      read.problems.length === 0 &&
      comparable(read.triggers) === comparable(this.triggers.current()) &&
      comparable(read.schedules) === comparable(this.schedules.current());
    // Applied as read: what was compared is what runs.
    return same ? undefined : this.#apply(reason, read);
  }

  async #reload(reason: string): Promise<ReloadOutcome> {
    return this.#apply(reason, await this.read(this.config, this.secrets));
  }

  #apply(reason: string, read: ConfigFiles): ReloadOutcome {
    // A file that is gone while its entries run is a file being replaced (a move, a deploy tool
    // writing it anew) or removed by mistake, not "none": refused like an invalid one. An empty
    // list (`[]`) removes them all.
    const vanished = [
      ...(read.triggersMissing && this.triggers.current().length > 0
        ? [`TRIGGERS_FILE: ${shownPath(this.config.triggersFile)} is gone; write [] to it to remove every trigger`]
        : []),
      ...(read.schedulesMissing && this.schedules.current().length > 0
        ? [`CRONS_FILE: ${shownPath(this.config.cronsFile)} is gone; write [] to it to remove every schedule`]
        : []),
    ];
    const files = vanished.length > 0 ? { ...read, problems: [...read.problems, ...vanished] } : read;
    if (files.problems.length > 0) {
      this.#problems = files.problems;
      this.logger.error(
        { reason, problems: files.problems, triggers: this.triggers.current().length, schedules: this.schedules.current().length },
        'configuration reload refused; the running triggers and schedules are kept',
      );
      return { ok: false, problems: files.problems, triggers: this.triggers.current().length, schedules: this.schedules.current().length };
    }
    this.triggers.replace(Object.freeze([...files.triggers]));
    this.schedules.replace(Object.freeze([...files.schedules]));
    this.#problems = [];
    this.onReloaded();
    this.logger.info({ reason, triggers: files.triggers.length, schedules: files.schedules.length }, 'configuration reloaded');
    for (const warning of chatTriggerWarnings(files.triggers, chatIdFieldsByWatchPath())) this.logger.warn({ reason }, warning);
    for (const warning of codehostTriggerWarnings(files.triggers)) this.logger.warn({ reason }, warning);
    for (const { trigger, field, header, message } of withheldHeaderWarnings(files.triggers, shownPath(this.config.triggersFile), channelCredentialHeaders()))
      this.logger.warn({ reason, file: this.config.triggersFile, trigger, field, header }, message);
    return { ok: true, problems: [], triggers: files.triggers.length, schedules: files.schedules.length };
  }
}
