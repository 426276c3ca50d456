import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminClient, setAdminPassword } from '../support/admin-http.js';
import { runCli, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end: schedules (CRONS_FILE) on the BUILT server. Each occurrence's command appends
 * `{{now}}` (the occurrence) to a file, so the file is the record of what ran; it is read once
 * every replica has stopped (a graceful stop lets running tasks finish), when nothing more can run.
 */

const readLines = async (path: string): Promise<string[]> => {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((line) => line !== '');
  } catch {
    return [];
  }
};

/** A schedule file with one entry writing each occurrence to `out`. */
const cronsFile = async (dir: string, out: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const file = join(dir, 'CRONS.json');
  const entry = {
    name: 'every-second',
    schedule: '* * * * * *',
    enabled: true,
    actions: [{ type: 'command', command: `printf '%s %s\\n' {{now}} {{schedule.name}} >> '${out}'` }],
    ...extra,
  };
  await writeFile(file, JSON.stringify([entry]));
  return file;
};

const logged = (gateway: GatewayProcess, msg: string): Array<Record<string, unknown>> =>
  gateway.logs.filter((line): line is Record<string, unknown> => typeof line === 'object' && line.msg === msg);

describeWithPostgres('e2e: schedules on two replicas (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: ScratchDatabase | undefined;
  const replicas: GatewayProcess[] = [];

  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database?.drop();
  });

  it('runs each occurrence of a seconds-field schedule once in total, whichever replica takes it', async () => {
    database = await createScratchDatabase();
    const dir = await tempDir('e2e-crons-replicas');
    const out = join(dir, 'runs.txt');
    const env = {
      DATABASE_URL: database.url,
      TRIGGERS_FILE: join(dir, 'NONE.json'),
      TRIGGERS_DIR: dir,
      CRONS_FILE: await cronsFile(dir, out),
      QUEUE_SUPERVISE_SECONDS: '2',
    };
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-crons-a') }));
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-crons-b') }));
    // Both replicas enqueue every occurrence (each logs its scheduler's enqueue only when it stored
    // the task); four seconds or so of occurrences, then both stop and the record is final.
    await waitFor(async () => (await readLines(out)).length >= 4, 30_000, 'four occurrences run');
    await Promise.all(replicas.splice(0).map((replica) => replica.stop()));
    const lines = await readLines(out);
    const occurrences = lines.map((line) => line.split(' ')[0]);
    expect(
      lines.every((line) => line.endsWith(' every-second')),
      lines.join('\n'),
    ).to.equal(true);
    expect(new Set(occurrences).size, `each occurrence once:\n${lines.join('\n')}`).to.equal(occurrences.length);
    const times = occurrences.map((iso) => Date.parse(iso)).sort((a, b) => a - b);
    for (const [i, time] of times.entries()) {
      expect(new Date(time).getUTCMilliseconds(), occurrences[i]).to.equal(0);
      // No occurrence skipped between the first and the last that ran.
      if (i > 0) expect(time - times[i - 1], `${occurrences[i - 1]} → ${occurrences[i]}`).to.equal(1000);
    }
  });
});

describe('e2e: schedules on one server: catch-up after a restart, a file created later, crons check (embedded database)', function () {
  this.timeout(120_000);
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  /**
   * Runs the schedule until one occurrence ran, stops the gateway, then lets an occurrence pass
   * while it is stopped (the record is the file; waiting here is for time to pass). Returns the
   * last occurrence that ran.
   */
  const runAndStop = async (env: Record<string, string>, out: string): Promise<number> => {
    gateway = await startGateway(env);
    await waitFor(async () => (await readLines(out)).length >= 1, 20_000, 'a first occurrence run');
    await gateway.stop();
    gateway = undefined;
    // The first occurrence (a whole second) after the service has exited, and a margin.
    const passed = Math.ceil((Date.now() + 1) / 1000) * 1000 + 100;
    await waitFor(() => Date.now() >= passed, 10_000, 'an occurrence to pass while stopped');
    const last = (await readLines(out)).map((line) => Date.parse(line.split(' ')[0]));
    return Math.max(...last);
  };

  it('runs the last occurrence missed while stopped once at start-up, logged as a catch-up', async () => {
    const dir = await tempDir('e2e-crons-catchup');
    const out = join(dir, 'runs.txt');
    const env = {
      DATA_DIR: await migratedDataDir('e2e-crons-data'),
      TRIGGERS_FILE: join(dir, 'NONE.json'),
      TRIGGERS_DIR: dir,
      CRONS_FILE: await cronsFile(dir, out),
    };
    const lastBefore = await runAndStop(env, out);
    gateway = await startGateway(env);
    const catchUp = await gateway.logLine(
      (line) => line.msg === 'schedule missed occurrences while the service was down; running the last one (catch-up)',
      'of the catch-up',
    );
    expect(catchUp.schedule).to.equal('every-second');
    expect(Date.parse(String(catchUp.occurrence))).to.be.greaterThan(lastBefore);
    expect(catchUp.missed).to.be.at.least(1);
    await waitFor(async () => (await readLines(out)).some((line) => line.startsWith(String(catchUp.occurrence))), 20_000, 'the catch-up run');
    await waitFor(() => logged(gateway!, 'schedule ran (catch-up)').length === 1, 20_000, 'the catch-up logged as run');
  });

  it('with catch_up false records the missed occurrence and runs nothing for it', async () => {
    const dir = await tempDir('e2e-crons-missed');
    const out = join(dir, 'runs.txt');
    const env = {
      DATA_DIR: await migratedDataDir('e2e-crons-data'),
      TRIGGERS_FILE: join(dir, 'NONE.json'),
      TRIGGERS_DIR: dir,
      CRONS_FILE: await cronsFile(dir, out, { catch_up: false }),
    };
    await runAndStop(env, out);
    gateway = await startGateway(env);
    const missed = await gateway.logLine(
      (line) => line.msg === 'schedule missed occurrences while the service was down; not run (catch_up false)',
      'of the missed occurrence',
    );
    // The next regular occurrence runs; once it has, the missed one is known not to have run (the
    // scheduler enqueues only occurrences after the start).
    await waitFor(
      async () => (await readLines(out)).some((line) => Date.parse(line.split(' ')[0]) > Date.parse(String(missed.occurrence))),
      20_000,
      'a later run',
    );
    await gateway.stop();
    gateway = undefined;
    expect((await readLines(out)).some((line) => line.startsWith(String(missed.occurrence)))).to.equal(false);
  });

  it('starts running a schedule file created while the service runs (reloaded on the change)', async () => {
    const dir = await tempDir('e2e-crons-created');
    const out = join(dir, 'runs.txt');
    gateway = await startGateway({
      DATA_DIR: await migratedDataDir('e2e-crons-data'),
      TRIGGERS_FILE: join(dir, 'NONE.json'),
      TRIGGERS_DIR: dir,
      CRONS_FILE: join(dir, 'CRONS.json'),
    });
    expect(await readLines(out)).to.deep.equal([]);
    await cronsFile(dir, out);
    await waitFor(() => logged(gateway!, 'configuration reloaded').length >= 1, 20_000, 'the reload');
    await waitFor(async () => (await readLines(out)).length >= 1, 20_000, 'a run of the new schedule');
    expect((await readLines(out))[0]).to.match(/^20\d\d-\d\d-\d\dT\d\d:\d\d:[0-5]\d\.000Z every-second$/);
  });

  it('crons check names the file, the entry and the field of each problem', async () => {
    const dir = await tempDir('e2e-crons-check');
    const file = join(dir, 'CRONS.json');
    await writeFile(
      file,
      JSON.stringify([
        { name: 'bad', schedule: '61 * * * *', enabled: true, actions: [{ type: 'command', command: 'echo {{body.x}}' }] },
        { name: 'zone', schedule: '0 9 * * *', timezone: 'Mars/Base', enabled: true, actions: [{ type: 'command', command: 'true' }] },
      ]),
    );
    const result = await runCli(['crons', 'check', '--file', file], { DATA_DIR: join(dir, 'data') });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/CRONS\.json: schedule #0 "bad": schedule: .*61/);
    expect(result.stderr).to.include('schedule #0 "bad": actions[0].command: unknown template token {{body.x}}');
    expect(result.stderr).to.include('schedule #1 "zone": timezone: "Mars/Base" is not an IANA time zone');
    expect(result.stderr).to.include('3 problems found');

    const good = await cronsFile(dir, join(dir, 'runs.txt'), { timezone: 'Europe/Berlin' });
    const valid = await runCli(['crons', 'check', '--file', good], { DATA_DIR: join(dir, 'data') });
    expect(valid.code, valid.stderr).to.equal(0);
    expect(valid.stdout).to.contain(`${good}: 1 schedule valid (1 enabled)`);
    expect(valid.stdout).to.match(/^ {2}on +every-second {2}\* \* \* \* \* \* \(Europe\/Berlin\) {2}command {2}next 20\d\d-/m);
  });
});

describe('e2e: the Schedules page and schedule metrics', function () {
  this.timeout(120_000);
  let gateway: GatewayProcess | undefined;

  after(async () => gateway?.stop());

  it('lists each schedule with its next and last run and outcome, counts runs in /metrics, and shows a refused reload as a banner', async () => {
    const dir = await tempDir('e2e-crons-page');
    const out = join(dir, 'runs.txt');
    const file = await cronsFile(dir, out);
    const env = { DATA_DIR: await migratedDataDir('e2e-crons-data'), TRIGGERS_FILE: join(dir, 'NONE.json'), TRIGGERS_DIR: dir, CRONS_FILE: file };
    gateway = await startGateway(env);
    expect(await setAdminPassword(env, 'schedules-page-password')).to.equal(0);
    const client = adminClient(gateway.url);
    const { cookie } = await client.login('schedules-page-password');
    await waitFor(() => logged(gateway!, 'schedule ran').length >= 1, 20_000, 'a first run');
    // The last occurrence links to its run once it has started; one just queued (each second) has
    // no run page yet, so the page is read again until its last occurrence has one.
    const page = await waitFor(
      async () => {
        const text = await (await client.get('/settings/schedules', cookie)).text();
        return /data-label="Last run"><a href="\/settings\/runs\/[0-9a-f-]{36}"><time/.test(text) ? text : undefined;
      },
      20_000,
      'a last occurrence with a run page on the Schedules page',
    );
    expect(page).to.contain('<a href="/settings/schedules" aria-current="page">Schedules</a>');
    expect(page).to.contain('every-second').and.to.contain('<code>* * * * * *</code>');
    expect(page).to.match(/data-label="Next run"><time datetime="[^"]+"/);
    expect(page).to.match(/data-label="Last run"><a href="\/settings\/runs\/[0-9a-f-]{36}"><time/);
    expect(page).to.match(/data-label="Outcome"><span class="badge badge-(succeeded|running|queued)">/);
    expect(page).to.contain('command: printf &#39;%s %s\\n&#39; {{now}} {{schedule.name}}');
    // The last run's page: the schedule, the occurrence and the values the command got.
    const runHref = /data-label="Last run"><a href="(\/settings\/runs\/[0-9a-f-]{36})"/.exec(page)![1];
    await waitFor(async () => (await client.get(runHref, cookie)).status === 200, 20_000, 'the run recorded');
    const runPage = await (await client.get(runHref, cookie)).text();
    expect(runPage).to.match(/<dt>Schedule<\/dt><dd><a href="\/settings\/schedules">every-second<\/a>, occurrence <time datetime="[^"]+:[0-5]\d\.000Z"/);
    expect(runPage).to.match(
      /<td data-label="Token"><code>\{\{now\}\}<\/code><\/td><td data-label="Variable"><code>AGW_ARG_1<\/code><\/td><td data-label="Value"><pre>20\d\d-/,
    );
    expect(runPage).to.contain(
      '<td data-label="Token"><code>{{schedule.name}}</code></td><td data-label="Variable"><code>AGW_ARG_2</code></td><td data-label="Value"><pre>every-second</pre>',
    );

    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).to.match(/agw_schedule_runs\{schedule="every-second",status="(succeeded|running|queued)"\} [1-9]/);
    expect(metrics).to.match(/agw_schedule_last_occurrence_seconds\{schedule="every-second"\} \d+/);

    await writeFile(file, JSON.stringify([{ name: 'broken', schedule: '* * *', enabled: true, actions: [] }]));
    await waitFor(
      () => gateway!.logs.some((line) => typeof line === 'object' && line.msg === 'configuration reload refused; the running triggers and schedules are kept'),
      20_000,
      'the refusal',
    );
    for (const path of ['/settings/schedules', '/settings/triggers']) {
      const shown = await (await client.get(path, cookie)).text();
      expect(shown, path).to.contain('The last reload was refused');
      expect(shown, path).to.contain('schedule #0 &quot;broken&quot;: schedule: &quot;* * *&quot; has 3 fields');
      expect(shown, path).to.contain('schedule #0 &quot;broken&quot;: actions: must be a non-empty array, found an empty array');
    }
    // The running schedule stays.
    expect(await (await client.get('/settings/schedules', cookie)).text()).to.contain('every-second');
  });
});
