import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { type ConfigFiles, readConfigFiles } from '../../../src/container/config-files.js';
import type { AppConfig } from '../../../src/container/config.js';
import { ConfigReloader } from '../../../src/container/config-reloader.js';
import { Swappable } from '../../../src/container/swappable.js';
import type { Schedule } from '../../../src/domain/schedules/schedule.js';
import type { Trigger } from '../../../src/domain/triggers/trigger.js';
import type { SecretStore } from '../../../src/ports/secret-store.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';
import { reloaderConfigIn } from '../../support/reloader-config.js';

const trigger = (name: string) => ({ name, watch_path: '/webhook', enabled: true, actions: [{ type: 'webhook', url: 'https://hooks.example/' }] });

/** A reader of the real files that counts its reads and, once it has read, holds its answer until the test releases it. */
class GatedReader {
  reads = 0;
  readonly #held: Array<() => void> = [];
  readonly read = async (config: AppConfig, secrets: SecretStore): Promise<ConfigFiles> => {
    const files = await readConfigFiles(config, secrets);
    this.reads++;
    await new Promise<void>((release) => this.#held.push(release));
    return files;
  };
  /** Resolves once `count` reads in all have been made (each is held). */
  async readsMade(count: number): Promise<void> {
    while (this.reads < count) await new Promise<void>((next) => setImmediate(next));
  }
  releaseAll(): void {
    for (const release of this.#held.splice(0)) release();
  }
}

describe('ConfigReloader: a burst of reload requests', () => {
  const setup = async (read?: GatedReader) => {
    const dir = await tempDir('reload-burst');
    const config = await reloaderConfigIn(dir);
    const triggers = new Swappable<readonly Trigger[]>([]);
    const logger = new RecordingLogger();
    const secrets = new EnvironmentSecretStore({}, AI_PROVIDERS);
    const reloader = new ConfigReloader(config, triggers, new Swappable<readonly Schedule[]>([]), secrets, logger, () => undefined, read?.read);
    const reloaded = () =>
      logger.entries.filter((entry) => entry.message === 'configuration reloaded').map((entry) => (entry.fields as { reason: string }).reason);
    const writeTriggers = (...names: string[]) => writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify(names.map(trigger)));
    return { triggers, reloader, reloaded, writeTriggers };
  };

  it('runs at most one more reload for any number of requests made while one runs, each request answered', async () => {
    // Each request queued a reload of its own before: five SIGHUPs read and swapped the files five times.
    const { reloader, reloaded, writeTriggers } = await setup();
    await writeTriggers('a');
    const outcomes = await Promise.all([
      reloader.reload('SIGHUP'),
      reloader.reload('SIGHUP'),
      reloader.reload('file change'),
      reloader.reload('SIGHUP'),
      reloader.reload('cli'),
    ]);
    expect(reloaded()).to.deep.equal(['SIGHUP', 'SIGHUP, file change, cli']);
    for (const outcome of outcomes) expect(outcome).to.deep.equal({ ok: true, problems: [], triggers: 1, schedules: 0 });
  });

  it('answers every request made while a reload ran with the following reload, which reads the files as they are when it starts', async () => {
    const gate = new GatedReader();
    const { triggers, reloader, writeTriggers } = await setup(gate);
    await writeTriggers('a');
    const first = reloader.reload('SIGHUP');
    await gate.readsMade(1);
    // The running reload has read ['a']; the file changes, and requests come, while it runs.
    await writeTriggers('a', 'b');
    const during = [reloader.reload('SIGHUP'), reloader.reload('cli'), reloader.reloadIfChanged('changed while the service started')];
    gate.releaseAll();
    expect(await first).to.deep.include({ ok: true, triggers: 1 });
    await gate.readsMade(2);
    // The following reload started (and read ['a', 'b']): a request now waits for one more.
    await writeTriggers('a', 'b', 'c');
    const after = reloader.reload('cli');
    gate.releaseAll();
    for (const outcome of await Promise.all(during)) expect(outcome).to.deep.include({ ok: true, triggers: 2 });
    await gate.readsMade(3);
    gate.releaseAll();
    expect(await after).to.deep.include({ ok: true, triggers: 3 });
    expect(gate.reads).to.equal(3);
    expect(triggers.current().map((t) => t.name)).to.deep.equal(['a', 'b', 'c']);
  });

  it('does not reload for reloadIfChanged alone when the files hold what runs, even behind a running reload', async () => {
    const gate = new GatedReader();
    const { reloader, writeTriggers } = await setup(gate);
    await writeTriggers('a');
    const first = reloader.reload('start');
    await gate.readsMade(1);
    const unchanged = reloader.reloadIfChanged('changed while the service started');
    gate.releaseAll();
    await first;
    await gate.readsMade(2);
    gate.releaseAll();
    expect(await unchanged).to.equal(undefined);
    expect(gate.reads).to.equal(2);
  });
});
