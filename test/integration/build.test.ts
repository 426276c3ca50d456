import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../support/gateway-process.js';

/*
 * src/build.mjs, package.json's build step, on a small project of its own (the same script,
 * a package.json with engines, a tsconfig and one source file), so that these tests never
 * touch the checkout's dist/.
 */

interface Project {
  readonly dir: string;
  /** Runs the project's src/build.mjs; `--import X` goes to node, the rest to the script. */
  build(...args: string[]): { code: number | null; stderr: string };
  /** Runs the project's src/start.mjs (what `npm start` runs); `--import X` goes to node. */
  start(...args: string[]): { code: number | null; stdout: string; stderr: string; pid: number };
  /** Makes the TypeScript compiler unavailable (or available again): a build attempted without it fails. */
  compiler(available: boolean): Promise<void>;
}

/** The fixture's dependencies (installed: its node_modules is the checkout's) and its one source file. */
interface Fixture {
  readonly dependencies?: readonly string[];
  readonly source?: string;
  /**
   * Packages of the fixture's own (name → file → content): node_modules is then a directory
   * with these, and the checkout's compiler and bundler linked in, instead of the checkout's.
   */
  readonly packages?: Record<string, Record<string, string>>;
}

const makeProject = async ({ dependencies = [], source = 'export const version: number = 1;\n', packages }: Fixture = {}): Promise<Project> => {
  const dir = await tempDir('build');
  await mkdir(join(dir, 'src'));
  await copyFile(join(ROOT, 'src', 'build.mjs'), join(dir, 'src', 'build.mjs'));
  await copyFile(join(ROOT, 'src', 'start.mjs'), join(dir, 'src', 'start.mjs'));
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'fixture',
      type: 'module',
      private: true,
      engines: { node: '>=22.12.0' },
      bin: { fixture: 'dist/main.js' },
      dependencies: Object.fromEntries(dependencies.map((name) => [name, '*'])),
    }),
  );
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        incremental: true,
        tsBuildInfoFile: 'dist/.tsbuildinfo',
        outDir: 'dist',
        rootDir: 'src',
        types: [],
        // As the project's own tsconfig: each build of the fixture then takes ~1 s, not ~2
        // (checking TypeScript's lib files is half of a one-file compile).
        skipLibCheck: true,
      },
      include: ['src'],
    }),
  );
  await writeFile(join(dir, 'src', 'main.ts'), source);
  const project: Project = {
    dir,
    build: (...args) => {
      const result = spawnSync(process.execPath, nodeArgs(dir, 'build.mjs', args), { cwd: dir, encoding: 'utf8' });
      return { code: result.status, stderr: result.stderr };
    },
    start: (...args) => {
      const result = spawnSync(process.execPath, nodeArgs(dir, 'start.mjs', args), { cwd: dir, encoding: 'utf8' });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr, pid: result.pid };
    },
    compiler: async (available) => {
      await rm(join(dir, 'node_modules'), { force: true });
      if (available) await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    },
  };
  if (packages === undefined) await project.compiler(true);
  else {
    for (const tool of ['typescript', 'esbuild']) await linkPackage(dir, tool);
    for (const [name, files] of Object.entries(packages)) {
      for (const [file, content] of Object.entries(files)) {
        await mkdir(join(dir, 'node_modules', name), { recursive: true });
        await writeFile(join(dir, 'node_modules', name, file), content);
      }
    }
  }
  return project;
};

const linkPackage = async (dir: string, name: string): Promise<void> => {
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await symlink(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
};

/** Node options (`--import`, `data:…`) first, then the script (in src/) and its own arguments. */
const nodeArgs = (dir: string, script: string, args: string[]): string[] => {
  const nodeOptions: string[] = [];
  const own: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--import') nodeOptions.push(args[i], args[++i]);
    else own.push(args[i]);
  }
  return [...nodeOptions, join(dir, 'src', script), ...own];
};

const mtime = async (path: string): Promise<number> => (await stat(path)).mtimeMs;
const output = (project: Project): Promise<string> => readFile(join(project.dir, 'dist', 'main.js'), 'utf8');

describe('src/build.mjs: build once, then only when a source changed', function () {
  this.timeout(120_000);

  it('builds, then with --if-stale does nothing while the build is current (the compiler is not even needed)', async () => {
    const project = await makeProject();
    expect(project.build('--if-stale')).to.include({ code: 0 });
    expect(await output(project)).to.contain('version = 1');
    const built = await mtime(join(project.dir, 'dist', 'main.js'));

    await project.compiler(false);
    const again = project.build('--if-stale');
    expect(again.code, again.stderr).to.equal(0);
    expect(await mtime(join(project.dir, 'dist', 'main.js'))).to.equal(built);
  });

  it("makes the package's bin executable (npx runs it through a link made once; the compiler writes no execute bit)", async () => {
    const project = await makeProject();
    expect(project.build()).to.include({ code: 0 });
    expect((await stat(join(project.dir, 'dist', 'main.js'))).mode & 0o111).to.equal(0o111);
  });

  it('with --if-stale compiles again after a source changed, a file was added or dist/ was removed', async () => {
    const project = await makeProject();
    expect(project.build('--if-stale')).to.include({ code: 0 });

    await writeFile(join(project.dir, 'src', 'main.ts'), 'export const version: number = 2;\n');
    expect(project.build('--if-stale')).to.include({ code: 0 });
    expect(await output(project)).to.contain('version = 2');

    await writeFile(join(project.dir, 'src', 'extra.ts'), 'export const extra = true;\n');
    expect(project.build('--if-stale')).to.include({ code: 0 });
    expect(await readFile(join(project.dir, 'dist', 'extra.js'), 'utf8')).to.contain('extra = true');

    await rm(join(project.dir, 'dist'), { recursive: true });
    expect(project.build('--if-stale')).to.include({ code: 0 });
    expect(await output(project)).to.contain('version = 2');
  });

  it('a failed compile exits non-zero, and the next --if-stale compiles (and fails) again instead of starting the old build', async () => {
    const project = await makeProject();
    expect(project.build('--if-stale')).to.include({ code: 0 });
    await writeFile(join(project.dir, 'src', 'main.ts'), 'export const version: number = "two";\n');
    expect(project.build('--if-stale').code).to.not.equal(0);
    expect(project.build('--if-stale').code).to.not.equal(0);
  });

  it('refuses an older Node.js with one line and exit code 1, before compiling anything', async () => {
    const project = await makeProject();
    const pretend = 'data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "22.11.0" } })';
    const result = project.build('--import', pretend, '--if-stale');
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/^agent-gateway needs Node\.js 22\.12\.0 or newer, but \S+ is v22\.11\.0; install a newer Node\.js \(see README\.md\)\n$/);
    let built = true;
    await stat(join(project.dir, 'dist')).catch(() => (built = false));
    expect(built, 'dist/ was created').to.equal(false);
  });
});

describe('src/start.mjs (npm start): compiles only when a source changed, then starts the build in the same process', function () {
  this.timeout(120_000);

  /** A build that says which version it is and in which process it runs. */
  const started = (version: number): string =>
    `console.log('started version ${version} in process ' + (globalThis as unknown as { process: { pid: number } }).process.pid);\nexport {};\n`;

  it('starts a current build without compiling (the compiler is not even needed), in its own process: no second Node.js', async () => {
    const project = await makeProject({ source: started(1) });
    expect(project.build()).to.include({ code: 0 });
    const built = await mtime(join(project.dir, 'dist', 'main.js'));
    await project.compiler(false);

    const start = project.start();
    expect(start.code, start.stderr).to.equal(0);
    expect(start.stdout).to.equal(`started version 1 in process ${start.pid}\n`);
    expect(await mtime(join(project.dir, 'dist', 'main.js'))).to.equal(built);
  });

  it('compiles first where nothing was built or a source changed since, then starts what it compiled', async () => {
    const project = await makeProject({ source: started(1) });
    const first = project.start();
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.equal(`started version 1 in process ${first.pid}\n`);

    await writeFile(join(project.dir, 'src', 'main.ts'), started(2));
    const second = project.start();
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stdout).to.equal(`started version 2 in process ${second.pid}\n`);
  });

  it('does not start the last build when compiling a changed source fails: exits non-zero with the compiler’s errors', async () => {
    const project = await makeProject({ source: started(1) });
    expect(project.build()).to.include({ code: 0 });
    await writeFile(join(project.dir, 'src', 'main.ts'), 'export const version: number = "two";\n');

    const start = project.start();
    expect(start.code).to.not.equal(0);
    expect(start.stdout).to.not.contain('started');
    expect(start.stdout + start.stderr).to.contain("Type 'string' is not assignable to type 'number'");
  });

  it('refuses an older Node.js with one line and exit code 1, before compiling or starting anything', async () => {
    const project = await makeProject({ source: started(1) });
    const pretend = 'data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "22.11.0" } })';
    const start = project.start('--import', pretend);
    expect(start.code).to.equal(1);
    expect(start.stdout).to.equal('');
    expect(start.stderr).to.match(/^agent-gateway needs Node\.js 22\.12\.0 or newer, but \S+ is v22\.11\.0; install a newer Node\.js \(see README\.md\)\n$/);
    let built = true;
    await stat(join(project.dir, 'dist')).catch(() => (built = false));
    expect(built, 'dist/ was created').to.equal(false);
  });
});

describe('src/build.mjs: the ES-module dependencies our code imports are bundled into dist/vendor', function () {
  this.timeout(120_000);

  const bundles = async (project: Project): Promise<Record<string, string>> =>
    JSON.parse(await readFile(join(project.dir, 'dist', 'vendor', 'modules.json'), 'utf8')) as Record<string, string>;

  it('bundles an imported package of the list into one file modules.json names, and drops it once nothing imports it', async () => {
    const project = await makeProject({
      dependencies: ['p-retry', 'pino'],
      source: "import pRetry from 'p-retry';\nimport { pino } from 'pino';\nexport const retry = pRetry;\nexport const log = pino;\n",
    });
    const built = project.build();
    expect(built.code, built.stderr).to.equal(0);
    // pino is CommonJS and not on the list: it stays in node_modules.
    expect(await bundles(project)).to.deep.equal({ 'p-retry': 'p-retry.js' });
    const bundled = (await import(pathToFileURL(join(project.dir, 'dist', 'vendor', 'p-retry.js')).href)) as {
      default: (run: () => Promise<string>, options: { retries: number; minTimeout: number }) => Promise<string>;
    };
    let attempts = 0;
    const result = await bundled.default(
      async () => {
        attempts += 1;
        if (attempts < 2) throw new Error('first attempt fails');
        return 'done';
      },
      { retries: 2, minTimeout: 0 },
    );
    expect({ result, attempts }).to.deep.equal({ result: 'done', attempts: 2 });

    await writeFile(join(project.dir, 'src', 'main.ts'), 'export const version: number = 2;\n');
    expect(project.build()).to.include({ code: 0 });
    expect(await bundles(project)).to.deep.equal({});
    expect(await readdir(join(project.dir, 'dist', 'vendor'))).to.deep.equal(['modules.json']);
  });

  it('writes every built module as plain ASCII (one byte per character in V8), each text, pattern and name the same as written', async () => {
    const project = await makeProject({
      dependencies: ['zod'],
      source: [
        "import { z } from 'zod';",
        '// A comment — with a dash, an ellipsis … and 😀.',
        "export const dash = 'a — b … c é';",
        "export const emoji = '😀 ok';",
        'export const template = `${dash} — ${emoji.length}`;',
        'export const pattern = /[à-ÿ]+—😀/u;',
        'export const legacy = /😀|é/;',
        'export const café = 1;',
        'export const schema = z.string();',
        '',
      ].join('\n'),
    });
    const built = project.build();
    expect(built.code, built.stderr).to.equal(0);
    const files = async (dir: string): Promise<string[]> =>
      (await readdir(dir, { withFileTypes: true })).flatMap((entry) => (entry.isDirectory() ? [] : entry.name.endsWith('.js') ? [join(dir, entry.name)] : []));
    const builtFiles = [...(await files(join(project.dir, 'dist'))), ...(await files(join(project.dir, 'dist', 'vendor')))];
    expect(builtFiles.map((file) => file.slice(project.dir.length + 1)))
      .to.include('dist/main.js')
      .and.to.satisfy((names: string[]) => names.some((name) => name.startsWith('dist/vendor/')));
    for (const file of builtFiles) expect(/[^\x00-\x7f]/.test(await readFile(file, 'utf8')), file).to.equal(false);
    const module = (await import(pathToFileURL(join(project.dir, 'dist', 'main.js')).href)) as Record<string, unknown>;
    expect(module.dash).to.equal('a — b … c é');
    expect(module.emoji).to.equal('😀 ok');
    expect(module.template).to.equal('a — b … c é — 5');
    expect((module.pattern as RegExp).test('àÿ—😀')).to.equal(true);
    expect((module.pattern as RegExp).test('a—😀')).to.equal(false);
    expect((module.legacy as RegExp).test('😀')).to.equal(true);
    expect(module.café).to.equal(1);
    expect((module.schema as { parse(value: unknown): unknown }).parse('ü — ok')).to.equal('ü — ok');
  });

  it('writes a character escaped with a backslash as its escape alone, and leaves a file that would not parse as it was, saying so', async () => {
    const project = await makeProject({
      source: "export const odd = '\\é \\\\é';\nexport const pattern = /\\é/;\nexport const 𝑥 = 'astral name';\n",
    });
    const built = project.build();
    expect(built.code, built.stderr).to.equal(0);
    // An identifier above U+FFFF takes no pair of escapes: the file stays as written.
    expect(built.stderr).to.equal('src/build.mjs: dist/main.js is left with its characters above U+007F: written as escapes it does not parse\n');
    const module = (await import(pathToFileURL(join(project.dir, 'dist', 'main.js')).href)) as Record<string, unknown>;
    expect(module.𝑥).to.equal('astral name');

    await writeFile(join(project.dir, 'src', 'main.ts'), "export const odd = '\\é \\\\é';\nexport const pattern = /\\é/;\n");
    const again = project.build();
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.equal('');
    const text = await output(project);
    expect(/[^\x00-\x7f]/.test(text), text).to.equal(false);
    const rebuilt = (await import(`${pathToFileURL(join(project.dir, 'dist', 'main.js')).href}?again`)) as Record<string, unknown>;
    expect(rebuilt.odd).to.equal('é \\é');
    expect((rebuilt.pattern as RegExp).test('é')).to.equal(true);
  });

  it('fails the build, naming it, when a package of the list is CommonJS (its bundle would lose the named exports)', async () => {
    const project = await makeProject({
      dependencies: ['p-retry'],
      source: "import { retry } from 'p-retry';\nexport const again = retry;\n",
      packages: {
        'p-retry': {
          'package.json': JSON.stringify({ name: 'p-retry', version: '1.0.0', main: 'index.js', types: 'index.d.ts' }),
          'index.js': 'exports.retry = (run) => run();\n',
          'index.d.ts': 'export declare const retry: <T>(run: () => T) => T;\n',
        },
      },
    });
    const built = project.build();
    expect(built.code).to.equal(1);
    expect(built.stderr).to.equal('src/build.mjs: p-retry is CommonJS, and a bundle of it would lose its named exports: remove it from BUNDLED\n');
  });

  it('fails the build, naming both, when a dependency left in node_modules depends on a bundled one (it would load a second copy)', async () => {
    const project = await makeProject({
      dependencies: ['zod', '@ai-sdk/provider-utils'],
      source: "import { z } from 'zod';\nexport const name = z.string();\n",
    });
    const built = project.build();
    expect(built.code).to.equal(1);
    expect(built.stderr).to.equal(
      'src/build.mjs: @ai-sdk/provider-utils is not bundled but depends on zod, which is: add @ai-sdk/provider-utils to BUNDLED or remove those\n',
    );
  });
});
