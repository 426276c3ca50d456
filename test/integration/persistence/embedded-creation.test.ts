import { existsSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPino, PinoLogger } from '../../../src/adapters/logging/pino-logger.js';
import { closeEngine, type OpenEngine, openEngine } from '../../../src/adapters/persistence/open-engine.js';
import { emptyPgliteDir } from '../../support/data-dirs.js';
import { tempDir } from '../../support/gateway-process.js';

const logger = new PinoLogger(createPino('silent'));
const open = (dataDir: string): Promise<OpenEngine> => openEngine({ databaseUrl: undefined, dataDir, logger, shortLived: true });

describe('Creating the embedded database', function () {
  this.timeout(120_000);
  let engine: OpenEngine | undefined;
  afterEach(async () => {
    if (engine !== undefined) await closeEngine(engine);
    engine = undefined;
  });

  it('creates again a database whose creation was interrupted (killed after PG_VERSION was written, before the configuration files), instead of failing for good', async () => {
    const dataDir = await tempDir('interrupted-creation');
    const dir = join(dataDir, 'pglite');
    // What a process killed while PGlite wrote initdb's files left: PG_VERSION is there, the
    // configuration files (written after it) are not, and the mark of the creation under way.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await cp(await emptyPgliteDir('interrupted-template'), dir, { recursive: true });
    for (const file of ['postgresql.conf', 'postgresql.auto.conf', 'pg_hba.conf', 'pg_ident.conf']) await rm(join(dir, file));
    await writeFile(join(dataDir, 'pglite.creating'), '');

    engine = await open(dataDir);
    if (engine.engine !== 'pglite') throw new Error('the embedded database was expected');
    expect((await engine.pglite.query<{ answer: number }>('select 42 as answer')).rows).to.deep.equal([{ answer: 42 }]);
    expect(existsSync(join(dataDir, 'pglite.creating'))).to.equal(false);
    expect(existsSync(join(dir, 'postgresql.conf'))).to.equal(true);
  });

  it('leaves no mark once a new database is created, and keeps an existing one as it is', async () => {
    const dataDir = await tempDir('new-database');
    engine = await open(dataDir);
    if (engine.engine !== 'pglite') throw new Error('the embedded database was expected');
    await engine.pglite.exec('create table kept (id int primary key)');
    expect(existsSync(join(dataDir, 'pglite.creating'))).to.equal(false);
    expect(existsSync(join(dataDir, 'pglite', 'PG_VERSION'))).to.equal(true);
    await closeEngine(engine);
    engine = await open(dataDir);
    if (engine.engine !== 'pglite') throw new Error('the embedded database was expected');
    expect((await engine.pglite.query('select id from kept')).rows).to.deep.equal([]);
  });
});
