import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, startGateway, tempDir, type GatewayProcess } from '../support/gateway-process.js';
import { migratedDataDir } from '../support/data-dirs.js';
import { createKey, send, waitFor } from '../support/http.js';
import { createScratchDatabase, describeWithPostgres, type ScratchDatabase } from '../support/postgres.js';

/*
 * End-to-end: live reload of TRIGGERS_FILE on the BUILT server (embedded database): on a change
 * of the file, on SIGHUP and by `agent-gateway reload`. The general webhook's answer names the
 * triggers it fired, which tells which set a request was matched against.
 */

const trigger = (name: string) => ({ name, watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] });

const logged = (gateway: GatewayProcess, msg: string): number => gateway.logs.filter((line) => typeof line === 'object' && line.msg === msg).length;

describe('e2e: live reload of the trigger file', function () {
  this.timeout(120_000);
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  /** Starts with `initial` in the file (by default one trigger, `first`, on /webhook). */
  const start = async (watch: boolean, initial = [trigger('first')]) => {
    const dir = await tempDir('e2e-reload');
    const file = join(dir, 'TRIGGERS.json');
    await writeFile(file, JSON.stringify(initial));
    gateway = await startGateway({
      DATA_DIR: await migratedDataDir('e2e-reload-data'),
      TRIGGERS_FILE: file,
      TRIGGERS_DIR: dir,
      CRONS_FILE: join(dir, 'NONE.json'),
      CONFIG_WATCH: String(watch),
    });
    const key = await createKey(gateway.env);
    const fire = async (): Promise<string[]> => {
      const answer = await send<{ triggers: string[] }>(`${gateway!.url}/api/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: '{}',
      });
      expect(answer.status).to.equal(200);
      return answer.body.triggers;
    };
    expect(await fire()).to.deep.equal(initial.filter((t) => t.enabled && t.watch_path === '/webhook').map((t) => t.name));
    return { file, fire };
  };

  it('uses the new set for the next request once the file changed', async () => {
    const { file, fire } = await start(true);
    await writeFile(file, JSON.stringify([trigger('second'), trigger('third')]));
    await waitFor(() => logged(gateway!, 'configuration reloaded') === 1, 20_000, 'the reload');
    expect(await fire()).to.deep.equal(['second', 'third']);
  });

  it('fires a trigger a reload added on an endpoint that no trigger watched at start-up', async () => {
    const { file, fire } = await start(true, [
      { ...trigger('elsewhere'), watch_path: '/jobs/status' },
      { ...trigger('off'), enabled: false },
    ]);
    await writeFile(file, JSON.stringify([trigger('added'), { ...trigger('off'), enabled: true }]));
    await waitFor(() => logged(gateway!, 'configuration reloaded') === 1, 20_000, 'the reload');
    expect(await fire()).to.deep.equal(['added', 'off']);
  });

  it('keeps the running set when the new file is invalid, and reload exits 1 naming the problem', async () => {
    const { file, fire } = await start(true);
    await writeFile(file, JSON.stringify([{ ...trigger('broken'), watch_path: '/nowhere' }]));
    await waitFor(() => logged(gateway!, 'configuration reload refused; the running triggers and schedules are kept') >= 1, 20_000, 'the refusal');
    expect(await fire()).to.deep.equal(['first']);
    const result = await runCli(['reload'], gateway!.env);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/TRIGGERS\.json: trigger #0 "broken": watch_path: \/nowhere is not an endpoint/);
    expect(result.stderr).to.include('1 problem found; the running triggers and schedules are kept');
    expect(await fire()).to.deep.equal(['first']);
    // The admin UI shows the problem until a reload succeeds (see the admin page test); a valid file again:
    await writeFile(file, JSON.stringify([trigger('fixed')]));
    const fixed = await runCli(['reload'], gateway!.env);
    expect(fixed.code, fixed.stderr).to.equal(0);
    expect(fixed.stdout).to.include('1 trigger, 0 schedules');
    expect(await fire()).to.deep.equal(['fixed']);
  });

  it('with no server running on the data directory, checks the files and says nothing is kept (nothing runs)', async () => {
    const dir = await tempDir('e2e-reload-none');
    const file = join(dir, 'TRIGGERS.json');
    await writeFile(file, JSON.stringify([{ ...trigger('broken'), watch_path: '/nowhere' }]));
    const env = { DATA_DIR: await migratedDataDir('reload-none'), TRIGGERS_FILE: file, TRIGGERS_DIR: dir, CRONS_FILE: join(dir, 'NONE.json') };
    const refused = await runCli(['reload'], env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/TRIGGERS\.json: trigger #0 "broken": watch_path: \/nowhere is not an endpoint/);
    expect(refused.stderr).to.match(/\n1 problem found\n$/);
    await writeFile(file, JSON.stringify([trigger('fixed')]));
    const valid = await runCli(['reload'], env);
    expect(valid.code, valid.stderr).to.equal(0);
    expect(valid.stdout).to.match(/no server is running on .*; the files are valid \(1 trigger, 0 schedules\)\n$/);
  });

  it('reloads on SIGHUP (file watching off)', async () => {
    const { file, fire } = await start(false);
    await writeFile(file, JSON.stringify([trigger('after-hup')]));
    process.kill(gateway!.pid, 'SIGHUP');
    await waitFor(() => logged(gateway!, 'configuration reloaded') === 1, 20_000, 'the reload');
    expect(await fire()).to.deep.equal(['after-hup']);
  });
});

describe('e2e: reload under load', function () {
  this.timeout(180_000);
  let gateway: GatewayProcess | undefined;

  after(async () => gateway?.stop());

  it('answers every request with one whole set, the old or the new, while the file is reloaded again and again', async () => {
    const dir = await tempDir('e2e-reload-load');
    const file = join(dir, 'TRIGGERS.json');
    const setA = ['a1', 'a2'];
    const setB = ['b1', 'b2', 'b3'];
    await writeFile(file, JSON.stringify(setA.map(trigger)));
    gateway = await startGateway({
      DATA_DIR: await migratedDataDir('e2e-reload-load-data'),
      TRIGGERS_FILE: file,
      TRIGGERS_DIR: dir,
      CRONS_FILE: join(dir, 'NONE.json'),
    });
    const key = await createKey(gateway.env);
    const answers: string[][] = [];
    let sending = true;
    const client = async (): Promise<void> => {
      while (sending) {
        const answer = await send<{ triggers: string[] }>(`${gateway!.url}/api/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: '{}',
        });
        expect(answer.status).to.equal(200);
        answers.push(answer.body.triggers);
      }
    };
    const clients = Array.from({ length: 6 }, client);
    for (let i = 1; i <= 10; i++) {
      await writeFile(file, JSON.stringify((i % 2 === 1 ? setB : setA).map(trigger)));
      process.kill(gateway.pid, 'SIGHUP');
      const before = answers.length;
      // Some requests are answered between two reloads.
      await waitFor(() => answers.length >= before + 5, 20_000, 'requests between reloads');
    }
    // Reloads run one after the other and may lag behind the signals; signals that come while
    // one runs are coalesced into one more reload, logged with every reason ('file change,
    // SIGHUP' when the watcher's came first). `reload` is answered by a reload that started
    // after it, reading set A: from then on only set A may answer (a reload still to come reads
    // set A as well).
    const hupReloads = () =>
      gateway!.logs.filter(
        (line) =>
          typeof line === 'object' &&
          typeof line.reason === 'string' &&
          line.reason.split(', ').includes('SIGHUP') &&
          typeof line.msg === 'string' &&
          (line.msg === 'configuration reloaded' || line.msg.startsWith('configuration reload refused')),
      ).length;
    const last = await runCli(['reload'], gateway.env);
    expect(last.code, last.stderr).to.equal(0);
    expect(last.stdout).to.include('2 triggers, 0 schedules');
    expect(hupReloads()).to.be.within(1, 10);
    // The six clients may each still have a request matched before the last reload in flight.
    const settled = answers.length + clients.length;
    await waitFor(() => answers.length >= settled + 10, 20_000, 'requests after the last reload');
    sending = false;
    await Promise.all(clients);
    const mixed = answers.filter((names) => JSON.stringify(names) !== JSON.stringify(setA) && JSON.stringify(names) !== JSON.stringify(setB));
    expect(mixed, `answers from neither set (of ${answers.length})`).to.deep.equal([]);
    expect(answers.some((names) => names[0] === 'b1')).to.equal(true);
    expect(answers.slice(settled), 'answers after the last set took effect').to.satisfy((rest: string[][]) =>
      rest.every((names) => JSON.stringify(names) === JSON.stringify(setA)),
    );
  });
});

describeWithPostgres('e2e: reload on every replica (PostgreSQL)', function () {
  this.timeout(180_000);
  let database: ScratchDatabase | undefined;
  const replicas: GatewayProcess[] = [];

  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database?.drop();
  });

  it('agent-gateway reload has every replica reload (NOTIFY agw_reload); an invalid file exits 1 and changes nothing', async () => {
    database = await createScratchDatabase();
    const dir = await tempDir('e2e-reload-replicas');
    const file = join(dir, 'TRIGGERS.json');
    await writeFile(file, JSON.stringify([trigger('first')]));
    const env = { DATABASE_URL: database.url, TRIGGERS_FILE: file, TRIGGERS_DIR: dir, CRONS_FILE: join(dir, 'NONE.json'), CONFIG_WATCH: 'false' };
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-reload-a') }));
    replicas.push(await startGateway({ ...env, DATA_DIR: await tempDir('e2e-reload-b') }));
    const key = await createKey(replicas[0].env);
    const fire = async (replica: GatewayProcess): Promise<string[]> =>
      (
        await send<{ triggers: string[] }>(`${replica.url}/api/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: '{}',
        })
      ).body.triggers;
    expect(await Promise.all(replicas.map(fire))).to.deep.equal([['first'], ['first']]);

    await writeFile(file, JSON.stringify([trigger('second')]));
    const result = await runCli(['reload'], replicas[0].env);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.include('every server on this database was asked to reload');
    // CRONS_FILE is missing: a server running schedules would keep them, and the command says so
    expect(result.stderr).to.include('warning: CRONS_FILE: ');
    expect(result.stderr).to.include('NONE.json does not exist; a server running schedules keeps them and refuses');
    for (const replica of replicas) await waitFor(() => logged(replica, 'configuration reloaded') === 1, 20_000, 'the reload on each replica');
    expect(await Promise.all(replicas.map(fire))).to.deep.equal([['second'], ['second']]);

    await writeFile(file, '[{"name": "broken"');
    const refused = await runCli(['reload'], replicas[0].env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/TRIGGERS\.json: not valid JSON/);
    expect(await Promise.all(replicas.map(fire))).to.deep.equal([['second'], ['second']]);
  });
});
