import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../support/gateway-process.js';

/*
 * src/bundled-dependencies.ts in a process of its own, on a fixture: a vendor/ directory with
 * a modules.json and a "bundle" standing in for kysely, and a node_modules with the real one.
 */

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a script that loads the bundles listed in `dir`/vendor, then imports kysely from a nested module. */
const runFixture = async (modulesJson: string | undefined): Promise<Run> => {
  const dir = await tempDir('bundles');
  await mkdir(join(dir, 'vendor'));
  await mkdir(join(dir, 'nested'));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  if (modulesJson !== undefined) await writeFile(join(dir, 'vendor', 'modules.json'), modulesJson);
  await writeFile(join(dir, 'vendor', 'kysely.js'), "export const Kysely = 'the bundle';\n");
  await writeFile(
    join(dir, 'nested', 'use.mjs'),
    "import { Kysely } from 'kysely';\nexport const which = typeof Kysely === 'string' ? Kysely : 'node_modules';\n",
  );
  const hook = pathToFileURL(join(ROOT, 'src', 'bundled-dependencies.ts')).href;
  await writeFile(
    join(dir, 'main.mjs'),
    `import { loadBundledDependencies } from ${JSON.stringify(hook)};\n` +
      "loadBundledDependencies(new URL('./vendor/', import.meta.url));\n" +
      "const { which } = await import('./nested/use.mjs');\n" +
      'process.stdout.write(which);\n',
  );
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'main.mjs')], { cwd: ROOT, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

describe('loadBundledDependencies: the specifiers dist/vendor/modules.json lists load from their bundles', function () {
  this.timeout(60_000);

  it('an import of a listed specifier, from any module, loads the bundle instead of node_modules', async () => {
    const run = await runFixture(JSON.stringify({ kysely: 'kysely.js' }));
    expect(run, run.stderr).to.deep.include({ code: 0, stdout: 'the bundle' });
  });

  it('without modules.json, or with an empty list, the package loads from node_modules as usual', async () => {
    for (const list of [undefined, '{}']) {
      const run = await runFixture(list);
      expect(run, `${list}: ${run.stderr}`).to.deep.include({ code: 0, stdout: 'node_modules' });
    }
  });

  it('a modules.json that is not such a list ends the process with one line naming the file and exit code 1', async () => {
    for (const [list, why] of [
      ['{"kysely": ', /\(.*JSON.*\)/],
      ['["kysely.js"]', /\(not a JSON object\)/],
      ['{"kysely": "../../etc/passwd"}', /\("kysely" does not name a \.js file in dist\/vendor\)/],
    ] as const) {
      const run = await runFixture(list);
      expect(run.code, list).to.equal(1);
      expect(run.stdout).to.equal('');
      expect(run.stderr).to.match(
        /^agent-gateway: \/\S+\/vendor\/modules\.json is not a list of bundled dependencies \(.+\); build again with: npm run build\n$/,
      );
      expect(run.stderr).to.match(why);
    }
  });
});
