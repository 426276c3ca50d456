import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { migratedDataDir } from '../support/data-dirs.js';
import { ROOT, runCli, startGateway, tempDir } from '../support/gateway-process.js';
import { send } from '../support/http.js';

/*
 * The built service and CLI load the ES-module dependencies src/build.mjs bundled from
 * dist/vendor (src/bundled-dependencies.ts), not from node_modules: a start then reads a few
 * dozen files instead of hundreds. A probe loaded first (NODE_OPTIONS=--import) records
 * every file the process loads.
 */

const PROBE = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs';" +
    "registerHooks({ load(url, context, next) { if (url.startsWith('file:')) appendFileSync(process.env.LOADED_FILES_LOG, url + '\\n'); return next(url, context); } });",
)}`;

/** The packages the bundles hold (and their own parts): none of their files may come from node_modules. */
const BUNDLED = /\/node_modules\/(kysely|inversify|@inversifyjs\/[^/]+|@mikro-orm\/[^/]+|zod|pg-boss)\//;

const probed = async (): Promise<{ env: Record<string, string>; loaded: () => Promise<string[]> }> => {
  const dir = await tempDir('bundled');
  const log = join(dir, 'loaded.log');
  return {
    env: { NODE_OPTIONS: `--import=${PROBE}`, LOADED_FILES_LOG: log },
    loaded: async () => (await readFile(log, 'utf8')).split('\n').filter((line) => line !== ''),
  };
};

const fromNodeModules = (files: string[]): string[] => files.filter((file) => BUNDLED.test(file));
const fromBundles = (files: string[]): string[] => files.filter((file) => file.startsWith(`file://${ROOT}/dist/vendor/`));

describe('the built service and CLI load Kysely, MikroORM, Inversify, zod and pg-boss from their bundles', function () {
  this.timeout(120_000);

  it('the CLI creates and lists a key on the embedded database, reading none of their files from node_modules', async () => {
    const { env: probe, loaded } = await probed();
    const env = { ...probe, DATA_DIR: await migratedDataDir('bundled-cli') };
    const created = await runCli(['keys', 'create', '--name', 'ci', '--json'], env);
    expect(created.code, created.stderr).to.equal(0);
    const listed = await runCli(['keys', 'list', '--json'], env);
    expect(listed.code, listed.stderr).to.equal(0);
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((key) => key.name)).to.deep.equal(['ci']);

    const files = await loaded();
    expect(fromNodeModules(files)).to.deep.equal([]);
    expect(fromBundles(files)).to.include(`file://${ROOT}/dist/vendor/kysely.js`);
  });

  it('the service starts, its task queue runs, and it read none of their files from node_modules', async () => {
    const { env, loaded } = await probed();
    const dataDir = await migratedDataDir('bundled');
    const gateway = await startGateway({ ...env, DATA_DIR: dataDir, TRIGGERS_FILE: join(dataDir, 'none.json') });
    try {
      expect(await send(`${gateway.url}/readyz`)).to.deep.equal({ status: 200, body: { status: 'ready', checks: { database: 'ok', queue: 'ok' } } });
    } finally {
      expect(await gateway.stop()).to.equal(0);
    }
    const files = await loaded();
    expect(fromNodeModules(files)).to.deep.equal([]);
    expect(fromBundles(files)).to.include.members([`file://${ROOT}/dist/vendor/pg-boss.js`, `file://${ROOT}/dist/vendor/mikro-orm_core.js`]);
  });
});
