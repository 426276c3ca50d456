import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { ConfigError, loadConfig } from '../../../src/container/config.js';
import { ConfigReloader } from '../../../src/container/config-reloader.js';
import { loadStartFiles } from '../../../src/container/load-start-files.js';
import { Swappable } from '../../../src/container/swappable.js';
import type { Schedule } from '../../../src/domain/schedules/schedule.js';
import type { Trigger } from '../../../src/domain/triggers/trigger.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';

const trigger = (name: string) => ({ name, watch_path: '/webhook', enabled: true, actions: [{ type: 'webhook', url: 'https://hooks.example/' }] });
const schedule = (name: string) => ({ name, schedule: '0 3 * * *', enabled: true, actions: [{ type: 'webhook', url: 'https://hooks.example/' }] });

/*
 * A schedule's action runs are recorded under `cron:<name>`: a trigger of that name beside it
 * shares its run records. Accepted before, at start-up and at a reload.
 */
describe('a trigger named as a schedule’s runs are recorded (cron:<name>)', () => {
  const files = async () => {
    const dir = await tempDir('run-name-clash');
    await mkdir(join(dir, 'triggers'));
    const write = (triggers: string[], schedules: string[]) =>
      Promise.all([
        writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify(triggers.map(trigger))),
        writeFile(join(dir, 'CRONS.json'), JSON.stringify(schedules.map(schedule))),
      ]);
    const env = {
      DATA_DIR: join(dir, 'data'),
      TRIGGERS_FILE: join(dir, 'TRIGGERS.json'),
      CRONS_FILE: join(dir, 'CRONS.json'),
      TRIGGERS_DIR: join(dir, 'triggers'),
    };
    const problem = `${join(dir, 'TRIGGERS.json')}: trigger #1 "cron:nightly": name: reads as cron:nightly, the name the runs of ${join(dir, 'CRONS.json')}: schedule #0 "nightly" are recorded under`;
    return { dir, write, env, problem };
  };

  it('stops start-up when a schedule of that name exists, naming both files and both entries', async () => {
    const { write, env, problem, dir } = await files();
    await write(['deploy', 'cron:nightly'], ['nightly']);
    const refused = await loadStartFiles(loadConfig(env, dir), new RecordingLogger()).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ConfigError);
    expect((refused as ConfigError).problems).to.have.length(1);
    expect((refused as ConfigError).problems[0]).to.contain(problem);
  });

  it('starts with such a trigger when no schedule has that name (a file an earlier version took)', async () => {
    const { write, env, dir } = await files();
    await write(['deploy', 'cron:nightly'], ['hourly']);
    const started = await loadStartFiles(loadConfig(env, dir), new RecordingLogger());
    expect(started.triggers.map((t) => t.name)).to.deep.equal(['deploy', 'cron:nightly']);
  });

  it('refuses a reload that makes the clash, keeping the running sets', async () => {
    const { write, problem, dir } = await files();
    const config = {
      triggersFile: join(dir, 'TRIGGERS.json'),
      cronsFile: join(dir, 'CRONS.json'),
      triggersDir: join(dir, 'triggers'),
      codehost: undefined,
      jobs: { agentCommand: undefined },
      llm: { provider: undefined },
    } as never;
    const triggers = new Swappable<readonly Trigger[]>([]);
    const schedules = new Swappable<readonly Schedule[]>([]);
    const reloader = new ConfigReloader(config, triggers, schedules, new EnvironmentSecretStore({}, AI_PROVIDERS), new RecordingLogger(), () => undefined);
    await write(['deploy', 'cron:nightly'], ['hourly']);
    expect(await reloader.reload('first')).to.deep.equal({ ok: true, problems: [], triggers: 2, schedules: 1 });
    await write(['deploy', 'cron:nightly'], ['nightly']);
    const outcome = await reloader.reload('second');
    expect(outcome.ok).to.equal(false);
    expect(outcome.problems).to.have.length(1);
    expect(outcome.problems[0]).to.contain(problem);
    expect(schedules.current().map((s) => s.name)).to.deep.equal(['hourly']);
  });
});
