import { access, writeFile } from 'node:fs/promises';
import type { Logger as Pino } from 'pino';
import { NodeApiKeyCrypto } from '../adapters/crypto/node-api-key-crypto.js';
import { earlyIntakeListener } from '../adapters/http/early-intake-listener.js';
import type { HttpServer } from '../adapters/http/http-server.js';
import { FileIntakeJournal } from '../adapters/intake/file-intake-journal.js';
import { FileKeyDigestSnapshot } from '../adapters/intake/file-key-digest-snapshot.js';
import { orderedTaskId } from '../adapters/queue/task-ids.js';
import { RandomUuidGenerator } from '../adapters/system/random-uuid-generator.js';
import { SystemClock } from '../adapters/system/system-clock.js';
import { EarlyIntake } from '../application/triggers/early-intake.js';
import { apiRoutes, watchPathsOf } from '../domain/auth/route-policy.js';
import type { Trigger } from '../domain/triggers/trigger.js';
import type { Logger } from '../ports/logger.js';
import { channelCredentialHeaders } from './channels/index.js';
import type { AppConfig } from './config.js';
import { earlyIntakeFiles } from './early-intake-files.js';

/** Most answered requests whose figures wait for the metrics (each a few numbers). */
const MAX_OBSERVED = 100_000;

/** One request answered by the early intake, for the metrics once they exist: route, method, status, seconds. */
export type EarlyObservation = readonly [string, string, number, number];

/** The early intake of a start, taken over by Gateway.start. */
export interface EarlyIntakeStart {
  readonly intake: EarlyIntake;
  readonly journal: FileIntakeJournal;
  /** The figures of the requests it answered, for the metrics (the first MAX_OBSERVED). */
  readonly observed: readonly EarlyObservation[];
}

/**
 * Starts taking in the plain webhook's requests while the embedded database opens (EarlyIntake),
 * on the server the entry bound: only when the data directory holds a snapshot of the keys'
 * digests (written by every start and every key change since this version), which it reads
 * now. Call it once the embedded database's lock is held: the journal is the locked service's.
 * Not when the start before ended before it served (its mark, earlyIntakeFiles' `starting`, is
 * left): a start that fails after its early intake answered would otherwise answer requests `200`
 * at each start of a crash loop, to run them only once a start succeeds, if one ever does.
 */
export const startEarlyIntake = async (
  config: AppConfig,
  triggers: readonly Trigger[],
  http: HttpServer,
  pino: Pino,
  logger: Logger,
): Promise<EarlyIntakeStart | undefined> => {
  const files = earlyIntakeFiles(config.dataDir);
  const keys = await new FileKeyDigestSnapshot(files.keys).read();
  if (keys === undefined || keys.size === 0) return undefined;
  const route = apiRoutes([]).find((candidate) => candidate.name === 'webhook');
  if (route === undefined) return undefined;
  const leftByTheLastStart = await access(files.starting).then(
    () => true,
    () => false,
  );
  if (leftByTheLastStart) {
    logger.warn(
      { mark: files.starting },
      'the last start ended before it served: requests wait for the database while it opens (no early intake at this start)',
    );
    return undefined;
  }
  const journal = new FileIntakeJournal(files.journal);
  // Its size counted, and a line a crash left unfinished cut, before the first request.
  await journal.open();
  const intake = new EarlyIntake(
    triggers,
    watchPathsOf(route),
    keys,
    new NodeApiKeyCrypto(),
    journal,
    new RandomUuidGenerator(),
    orderedTaskId,
    new SystemClock(),
    logger,
  );
  // Before the first answer; removed once the app serves (Gateway.start).
  await writeFile(files.starting, `${process.pid}\n`, { mode: 0o600 });
  const observed: EarlyObservation[] = [];
  http.takeEarly(
    earlyIntakeListener({
      intake,
      route: { name: route.name, path: route.path },
      bodyLimit: config.bodyLimit,
      credentialHeaders: channelCredentialHeaders(),
      logger: pino,
      observe: (...observation) => {
        if (observed.length < MAX_OBSERVED) observed.push(observation);
      },
    }),
  );
  return { intake, journal, observed };
};
