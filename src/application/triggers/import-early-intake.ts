import type { ApiKeyCrypto } from '../../ports/api-key-crypto.js';
import type { InboundRequestStore } from '../../ports/inbound-request-store.js';
import type { IntakeJournal } from '../../ports/intake-journal.js';
import type { KeyRepository } from '../../ports/key-repository.js';
import { type Headroom, NO_WAIT } from '../../ports/headroom.js';
import type { Logger } from '../../ports/logger.js';
import type { DispatchTriggerRuns } from './dispatch-trigger-runs.js';

/** What one import did. */
export interface ImportedIntake {
  /** Requests stored now, their runs handed to the dispatch. */
  readonly stored: number;
  /** Requests stored before (an import cut short by a stop): not stored nor queued again. */
  readonly earlier: number;
  /** Requests whose key is no longer stored (revoked, or never current): dropped, nothing runs. */
  readonly refused: number;
  /** Lines of the journal that were no entry (a damaged file): dropped, told in the log. */
  readonly unreadable: number;
}

/** Requests stored at once: their inserts share the store's writes. */
const CHUNK = 500;

/**
 * Stores the requests EarlyIntake took in while the embedded database opened, once it is open,
 * and hands their runs to the dispatch, as FireTriggers would have; then empties the journal.
 * Each request's key is checked against the key repository first: a request whose key is not
 * stored any more (revoked while the service was down, after the snapshot was written) is
 * dropped — answered, but nothing of it runs. A request stored already (an import that a stop cut
 * short) is not stored or queued twice: its runs were queued then, or are by the dispatch's sweep.
 * When storing fails, the journal is kept whole and the next import (the next pass, the next
 * start) takes it all again.
 */
export class ImportEarlyIntake {
  constructor(
    private readonly journal: IntakeJournal,
    private readonly keys: KeyRepository,
    private readonly crypto: Pick<ApiKeyCrypto, 'equal'>,
    private readonly requests: InboundRequestStore,
    private readonly dispatch: Pick<DispatchTriggerRuns, 'recorded'>,
    private readonly logger: Logger,
    /** Which requests the journal holds, as the log says it: `taken in while the database opened`. */
    private readonly source = 'taken in while the database opened',
    /**
     * Waited for before each chunk: the requests are durable in the journal and their runs would
     * wait for room anyway, so the import gives way to the callers being answered (after a
     * restart under load, the first seconds of the app's requests).
     */
    private readonly headroom: Headroom = NO_WAIT,
  ) {}

  async execute(): Promise<ImportedIntake> {
    const { entries, unreadable } = await this.journal.read();
    let stored = 0;
    let earlier = 0;
    let refused = 0;
    const lastUse = new Map<string, Date>();
    for (let start = 0; start < entries.length; start += CHUNK) {
      await this.headroom.wait();
      const outcomes = await Promise.all(
        entries.slice(start, start + CHUNK).map(async ({ request, keyId, keyHash }) => {
          // Without a key: taken in by the running service, whose key the database checked then.
          if (keyId !== undefined && keyHash !== undefined) {
            const key = await this.keys.findByHash(keyHash);
            if (key === null || key.id !== keyId || !this.crypto.equal(keyHash, key.keyHash)) {
              this.logger.warn(
                { requestId: request.id, keyId, triggers: request.triggers },
                'a request taken in while the database opened is dropped: its API key is no longer stored (nothing of it runs)',
              );
              return 'refused';
            }
            const last = lastUse.get(keyId);
            if (last === undefined || last < request.receivedAt) lastUse.set(keyId, request.receivedAt);
          }
          if (!(await this.requests.record(request))) return 'earlier';
          this.dispatch.recorded({ id: request.id, watchPath: request.watchPath, receivedAt: request.receivedAt, runs: request.runs });
          return 'stored';
        }),
      );
      for (const outcome of outcomes) {
        if (outcome === 'stored') stored++;
        else if (outcome === 'earlier') earlier++;
        else refused++;
      }
    }
    // The keys' last use, as authentication records it (best effort, as there).
    for (const [keyId, at] of lastUse)
      await this.keys.touch(keyId, at).catch((error: unknown) => this.logger.warn({ err: error, keyId }, 'could not record key use'));
    if (unreadable > 0)
      this.logger.error({ unreadable }, `lines of the journal of requests ${this.source} could not be read (a damaged file): their requests are lost`);
    if (entries.length > 0 || unreadable > 0) {
      await this.journal.clear();
      this.logger.info({ stored, earlier, refused }, `requests ${this.source} are stored`);
    }
    return { stored, earlier, refused, unreadable };
  }
}
