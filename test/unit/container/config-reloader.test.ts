import { expect } from 'chai';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EnvironmentSecretStore } from '../../../src/adapters/secrets/environment-secret-store.js';
import { AI_PROVIDERS } from '../../../src/adapters/ai/ai-providers.js';
import { ConfigError, loadConfig } from '../../../src/container/config.js';
import { ConfigReloader } from '../../../src/container/config-reloader.js';
import { loadStartFiles } from '../../../src/container/load-start-files.js';
import { Swappable } from '../../../src/container/swappable.js';
import type { Schedule } from '../../../src/domain/schedules/schedule.js';
import type { Trigger } from '../../../src/domain/triggers/trigger.js';
import { RecordingLogger } from '../../fakes/recording-logger.js';
import { tempDir } from '../../support/gateway-process.js';
import { reloaderConfigIn } from '../../support/reloader-config.js';

const trigger = (name: string) => ({ name, watch_path: '/webhook', enabled: true, actions: [{ type: 'webhook', url: 'https://hooks.example/' }] });

describe('ConfigReloader', () => {
  /** Jobs run (a coding agent command) unless `jobs` is false. */
  const setup = async (jobs = true) => {
    const dir = await tempDir('reloader');
    const config = await reloaderConfigIn(dir, { jobs });
    const triggers = new Swappable<readonly Trigger[]>([]);
    const schedules = new Swappable<readonly Schedule[]>([]);
    const logger = new RecordingLogger();
    let refreshed = 0;
    const reloader = new ConfigReloader(config, triggers, schedules, new EnvironmentSecretStore({}, AI_PROVIDERS), logger, () => refreshed++);
    return { dir, triggers, schedules, logger, reloader, refreshed: () => refreshed };
  };

  it('replaces both sets with new immutable snapshots when both files are valid, and the scheduler re-plans', async () => {
    const { dir, triggers, schedules, reloader, refreshed } = await setup();
    const before = triggers.current();
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('a'), trigger('b')]));
    await writeFile(
      join(dir, 'CRONS.json'),
      JSON.stringify([{ name: 'n', schedule: '0 3 * * *', enabled: true, actions: [{ type: 'command', command: 'true' }] }]),
    );
    const outcome = await reloader.reload('test');
    expect(outcome).to.deep.equal({ ok: true, problems: [], triggers: 2, schedules: 1 });
    expect(triggers.current().map((t) => t.name)).to.deep.equal(['a', 'b']);
    expect(Object.isFrozen(triggers.current())).to.equal(true);
    expect(before).to.deep.equal([]);
    expect(schedules.current().map((s) => s.name)).to.deep.equal(['n']);
    expect(refreshed()).to.equal(1);
  });

  it('warns, as start-up does, of each header a reloaded trigger reads that no trigger ever sees (a credential)', async () => {
    const { dir, reloader, logger } = await setup();
    await writeFile(
      join(dir, 'TRIGGERS.json'),
      JSON.stringify([
        {
          name: 'deploy',
          watch_path: '/webhook',
          enabled: true,
          actions: [{ type: 'command', command: 'echo {{headers.x-api-key}} {{headers.x-github-event}}' }],
        },
      ]),
    );
    const outcome = await reloader.reload('test');
    expect(outcome.problems).to.deep.equal([]);
    const warned = logger.entries.filter((entry) => entry.level === 'warn');
    expect(warned.map((entry) => entry.fields)).to.deep.equal([
      { reason: 'test', file: join(dir, 'TRIGGERS.json'), trigger: 'deploy', field: 'actions[0].command', header: 'x-api-key' },
    ]);
    expect(warned[0].message).to.contain('{{headers.x-api-key}} names the header x-api-key, which a trigger never sees');
  });

  it('refuses a trigger file with a trigger on the public /ping, keeping the running set', async () => {
    const { dir, triggers, reloader } = await setup();
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('a')]));
    await reloader.reload('first');
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('b'), { ...trigger('open'), watch_path: '/ping' }]));
    const outcome = await reloader.reload('second');
    expect(outcome.ok).to.equal(false);
    expect(outcome.problems).to.deep.equal([
      `${join(dir, 'TRIGGERS.json')}: trigger #1 "open": watch_path: /ping is public (no authentication): a trigger on it would run for anyone; watch an authenticated endpoint such as /webhook`,
    ]);
    expect(triggers.current().map((t) => t.name)).to.deep.equal(['a']);
  });

  it('keeps the running sets when either file is invalid, reports every problem of both, and logs them at error level', async () => {
    const { dir, triggers, reloader, logger } = await setup();
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('a')]));
    await reloader.reload('first');
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('b'), { ...trigger('c'), watch_path: '/nope' }]));
    await writeFile(join(dir, 'CRONS.json'), JSON.stringify([{ name: 'n', schedule: 'x', enabled: true, actions: [{ type: 'command', command: 'true' }] }]));
    const outcome = await reloader.reload('second');
    expect(outcome.ok).to.equal(false);
    expect(outcome.problems).to.have.length(2);
    expect(outcome.problems[0]).to.match(/TRIGGERS\.json: trigger #1 "c": watch_path: \/nope is not an endpoint/);
    expect(outcome.problems[1]).to.match(/CRONS\.json: schedule #0 "n": schedule: "x" has 1 fields/);
    expect(triggers.current().map((t) => t.name)).to.deep.equal(['a']);
    expect(reloader.problems).to.deep.equal(outcome.problems);
    expect(logger.entries.find((entry) => entry.level === 'error')?.fields).to.deep.include({ reason: 'second', problems: outcome.problems });
    // Fixed: the problems are gone.
    await writeFile(join(dir, 'CRONS.json'), '[]');
    await writeFile(join(dir, 'TRIGGERS.json'), '[]');
    expect((await reloader.reload('third')).ok).to.equal(true);
    expect(reloader.problems).to.deep.equal([]);
  });

  it('keeps the running triggers and schedules when their file is gone (moved away, being rewritten); an empty list removes them', async () => {
    const { dir, triggers, schedules, reloader } = await setup();
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('a')]));
    await writeFile(
      join(dir, 'CRONS.json'),
      JSON.stringify([{ name: 'n', schedule: '0 3 * * *', enabled: true, actions: [{ type: 'command', command: 'true' }] }]),
    );
    await reloader.reload('first');
    await rename(join(dir, 'TRIGGERS.json'), join(dir, 'TRIGGERS.json.bak'));
    await rm(join(dir, 'CRONS.json'));
    const outcome = await reloader.reload('file change');
    expect(outcome.ok).to.equal(false);
    expect(outcome.problems).to.have.length(2);
    expect(outcome.problems[0]).to.match(/^TRIGGERS_FILE: .*TRIGGERS\.json is gone; write \[\] to it to remove every trigger$/);
    expect(outcome.problems[1]).to.match(/^CRONS_FILE: .*CRONS\.json is gone; write \[\] to it to remove every schedule$/);
    expect(triggers.current().map((t) => t.name)).to.deep.equal(['a']);
    expect(schedules.current().map((s) => s.name)).to.deep.equal(['n']);
    await writeFile(join(dir, 'TRIGGERS.json'), '[]');
    await writeFile(join(dir, 'CRONS.json'), '[]');
    expect(await reloader.reload('emptied')).to.deep.equal({ ok: true, problems: [], triggers: 0, schedules: 0 });
    // with nothing running, a missing file is no problem (as at start-up)
    await rm(join(dir, 'TRIGGERS.json'));
    expect((await reloader.reload('gone, none running')).ok).to.equal(true);
  });

  it('refuses an agent action whose provider has no secret, as start-up does', async () => {
    const { dir, reloader } = await setup();
    await writeFile(
      join(dir, 'CRONS.json'),
      JSON.stringify([{ name: 'n', schedule: '0 3 * * *', enabled: true, actions: [{ type: 'agent', job: 'x', llm_provider: 'anthropic' }] }]),
    );
    const outcome = await reloader.reload('test');
    expect(outcome.problems).to.have.length(1);
    expect(outcome.problems[0]).to.match(/CRONS\.json: schedule #0 "n": actions\[0\]\.llm_provider: anthropic needs the secret ANTHROPIC_API_KEY/);
  });

  it('refuses an enabled agent action where jobs are not configured, naming the entry and the settings that enable jobs, as start-up does', async () => {
    // Accepted before: every run was recorded not_runnable ("Jobs are not configured").
    const { dir, reloader, triggers } = await setup(false);
    await writeFile(
      join(dir, 'TRIGGERS.json'),
      JSON.stringify([
        trigger('hook'),
        { name: 'off', watch_path: '/webhook', enabled: false, actions: [{ type: 'agent', job: 'x' }] },
        {
          name: 'triage',
          watch_path: '/webhook',
          enabled: true,
          actions: [
            { type: 'command', command: 'true' },
            { type: 'agent', job: 'Triage {{body.issue}}' },
          ],
        },
      ]),
    );
    await writeFile(join(dir, 'CRONS.json'), JSON.stringify([{ name: 'n', schedule: '0 3 * * *', enabled: true, actions: [{ type: 'agent', job: 'x' }] }]));
    const needs =
      'an agent action needs jobs, which this gateway does not run: set JOB_AGENT_COMMAND or LLM_PROVIDER, or CODEHOST_TOKEN and CODEHOST_REPO (see docs/jobs.md)';
    const expected = [
      `${join(dir, 'TRIGGERS.json')}: trigger #2 "triage": actions[1]: ${needs}`,
      `${join(dir, 'CRONS.json')}: schedule #0 "n": actions[0]: ${needs}`,
    ];
    const outcome = await reloader.reload('test');
    expect(outcome.ok).to.equal(false);
    expect(outcome.problems).to.deep.equal(expected);
    expect(triggers.current()).to.deep.equal([]);

    // Start-up refuses the same files, before anything is opened; with jobs configured, it takes them.
    const env = {
      DATA_DIR: join(dir, 'data'),
      TRIGGERS_FILE: join(dir, 'TRIGGERS.json'),
      CRONS_FILE: join(dir, 'CRONS.json'),
      TRIGGERS_DIR: join(dir, 'triggers'),
    };
    const refused = await loadStartFiles(loadConfig(env, dir), new RecordingLogger()).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ConfigError);
    expect((refused as Error).message).to.contain(expected[0]);
    const taken = await loadStartFiles(loadConfig({ ...env, JOB_AGENT_COMMAND: './agent.sh' }, dir), new RecordingLogger());
    expect(taken.triggers.map((t) => t.name)).to.deep.equal(['hook', 'off', 'triage']);
  });

  it('reloads only when the files no longer hold what runs (a change made while the service started, before its watcher was in place)', async () => {
    const { dir, triggers, reloader, logger, refreshed } = await setup();
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('a')]));
    await reloader.reload('start');
    const running = triggers.current();
    expect(await reloader.reloadIfChanged('changed while the service started')).to.equal(undefined);
    expect(triggers.current()).to.equal(running);
    expect(refreshed()).to.equal(1);
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([trigger('a'), trigger('slow')]));
    expect(await reloader.reloadIfChanged('changed while the service started')).to.deep.equal({ ok: true, problems: [], triggers: 2, schedules: 0 });
    expect(triggers.current().map((t) => t.name)).to.deep.equal(['a', 'slow']);
    expect(
      logger.entries.filter((entry) => entry.message === 'configuration reloaded').map((entry) => (entry.fields as { reason?: string } | undefined)?.reason),
    ).to.deep.equal(['start', 'changed while the service started']);
  });

  it('sees a changed when regex as a change (a RegExp is no JSON)', async () => {
    const { dir, triggers, reloader } = await setup();
    const filtered = (pattern: string) => ({ ...trigger('push'), when: { 'body.ref': { regex: pattern } } });
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([filtered('^refs/heads/main$')]));
    await reloader.reload('start');
    await writeFile(join(dir, 'TRIGGERS.json'), JSON.stringify([filtered('.*')]));
    expect((await reloader.reloadIfChanged('changed while the service started'))?.ok).to.equal(true);
    expect(JSON.stringify(triggers.current()[0], (_key, value: unknown) => (value instanceof RegExp ? value.source : value))).to.include('".*"');
    expect(await reloader.reloadIfChanged('changed while the service started')).to.equal(undefined);
  });
});
