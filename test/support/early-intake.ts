import { NodeApiKeyCrypto } from '../../src/adapters/crypto/node-api-key-crypto.js';
import { EarlyIntake } from '../../src/application/triggers/early-intake.js';
import type { Trigger } from '../../src/domain/triggers/trigger.js';
import { FixedClock } from '../fakes/fixed-clock.js';
import { InMemoryIntakeJournal } from '../fakes/in-memory-intake-journal.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { SequentialIds } from '../fakes/sequential-ids.js';

let runIds = 0;

/** An EarlyIntake for the plain webhook whose key snapshot holds `key` (as key-1), on in-memory fakes. */
export const earlyIntakeFor = (triggers: readonly Trigger[], key: string, clock = new FixedClock(new Date('2026-12-01T00:00:00Z'))) => {
  const crypto = new NodeApiKeyCrypto();
  const journal = new InMemoryIntakeJournal();
  const logger = new RecordingLogger();
  const intake = new EarlyIntake(
    triggers,
    ['/webhook'],
    new Map([[crypto.digest(key), 'key-1']]),
    crypto,
    journal,
    new SequentialIds(),
    () => `71000000-0000-7000-8000-${String(++runIds).padStart(12, '0')}`,
    clock,
    logger,
  );
  return { intake, journal, logger };
};
