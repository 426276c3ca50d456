// The build step of package.json: `npm run build` and `prepare` (so `npm ci` builds once); `npm
// start` (src/start.mjs) runs it when a source changed. Plain JavaScript, since it runs before
// anything is compiled; it lives in src/ because the repository's top level holds no scripts.
//
// 1. An unsupported Node.js (package.json's engines.node) is refused with one line and exit
//    code 1, before anything else runs (also when src/start.mjs imports this file).
// 2. `tsc -b` compiles (incremental, dist/.tsbuildinfo: only what changed is compiled again),
//    then dist/.build-stamp records a successful build.
//    With --if-stale nothing is compiled while that record is newer than every source (src/,
//    tsconfig.json, package.json, package-lock.json): a start on a current build starts at
//    once instead of spending seconds in the compiler. `isCurrent` is that check, exported.
// 3. The ES-module dependencies that a start loads as hundreds of small files (BUNDLED below)
//    are bundled by esbuild into dist/vendor/, one file per specifier our code imports plus
//    the chunks they share, and dist/vendor/modules.json maps each specifier to its file;
//    src/bundled-dependencies.ts makes the built entry points load them from there.
// 4. dist/load-steps.json lists the modules the service's start loads after its head start
//    (dist/cli/serve.js and everything it imports statically), in the order Node evaluates
//    them: the start loads them one at a time, letting the early intake answer in between
//    (src/cli/load-in-steps.ts).
// 5. Every built module is made plain ASCII (`asciiOnly`), so that V8 keeps its source as
//    one byte per character.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(ROOT, 'dist', '.build-stamp');

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const minimum = /^>=\s*(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
if (minimum === undefined) throw new Error(`package.json: engines.node "${pkg.engines.node}" is not ">=X.Y.Z"`);
const numbers = (version) =>
  version
    .replace(/^v/, '')
    .split(/[.-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0);
const older = (version, than) => {
  const [have, need] = [numbers(version), numbers(than)];
  const i = [0, 1, 2].find((n) => have[n] !== need[n]);
  return i !== undefined && have[i] < need[i];
};
if (older(process.versions.node, minimum)) {
  // The same line as the built entry points' (src/cli/node-version.ts).
  process.stderr.write(
    `agent-gateway needs Node.js ${minimum} or newer, but ${process.execPath} is v${process.versions.node}; install a newer Node.js (see README.md)\n`,
  );
  process.exit(1);
}

/** Newest modification time under `path` (files and directories: a deleted file changes its directory's). */
const newest = (path) => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
};

/** True while the last build is newer than every source: there is nothing to compile. */
export const isCurrent = () => {
  if (!existsSync(STAMP) || !existsSync(join(ROOT, 'dist', 'main.js'))) return false;
  const sources = ['src', 'tsconfig.json', 'package.json', 'package-lock.json'].map((name) => join(ROOT, name)).filter((path) => existsSync(path));
  return Math.max(...sources.map(newest)) < statSync(STAMP).mtimeMs;
};

// Steps 2 and 3 run when this file is the script Node was given, not when it is imported.
const runAsScript = process.argv[1] !== undefined && existsSync(process.argv[1]) && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (runAsScript && !(process.argv.includes('--if-stale') && isCurrent())) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // The record is dated when the compiler starts: a source saved while it runs counts as newer.
  const started = new Date();
  const built = spawnSync(process.execPath, [tsc, '-b', join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  await bundleDependencies();
  asciiOnly(join(ROOT, 'dist'));
  // The package's commands (`bin`: dist/cli/main.js) are run as programs: by npx through the
  // link npm made to them once — a later build of a fresh clone at the same path is not linked
  // again, and the compiler writes files without the execute bit (`sh: agent-gateway: Permission
  // denied`) — and by `./dist/cli/main.js`.
  for (const bin of typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {})) {
    const path = join(ROOT, bin);
    if (existsSync(path)) chmodSync(path, statSync(path).mode | 0o111);
  }
  writeFileSync(STAMP, `${started.toISOString()}\n`);
  utimesSync(STAMP, started, started);
}

/**
 * Step 3. Node's module loader spends most of a start on this 2-core machine on its work per
 * file (resolve, stat, read, link): `keys list` loaded 968 files, 800 of them from these
 * packages (kysely 254, Inversify 246, MikroORM 187, zod 95), and the service 1 598. Bundled,
 * `keys list` on PostgreSQL took 520–620 ms instead of 785–910, the service's start on
 * PostgreSQL 855 instead of 1 172 (bench/README.md, "Start-up"). Only ES-module packages: a bundle of a CommonJS entry
 * would lose its named exports. A dependency of ours that is not bundled stays an import from
 * node_modules, so that our code and the bundles share one copy of it (pg's type parsers,
 * pino's streams).
 */
async function bundleDependencies() {
  const BUNDLED = [
    'kysely',
    'inversify',
    '@mikro-orm/core',
    '@mikro-orm/sql',
    '@mikro-orm/postgresql',
    '@mikro-orm/pglite',
    '@mikro-orm/migrations',
    'zod',
    'pg-boss',
    'node-fetch',
    'p-retry',
    'marked',
    'ai',
    '@ai-sdk/anthropic',
    '@ai-sdk/google',
    '@ai-sdk/openai',
    '@ai-sdk/openai-compatible',
  ];
  // Packages made to be loaded more than once (their state lives in a registry on globalThis):
  // a bundle may hold its own copy while a package from node_modules loads another.
  const SHAREABLE = ['@opentelemetry/api'];
  const out = join(ROOT, 'dist', 'vendor');
  rmSync(out, { recursive: true, force: true });
  const packageOf = (specifier) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');
  const dependencies = new Set(Object.keys(pkg.dependencies ?? {}));

  // Which specifiers of those packages our code imports, read by esbuild from the compiled files.
  const compiled = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return path === out ? [] : compiled(path);
      return entry.name.endsWith('.js') ? [path] : [];
    });
  const files = compiled(join(ROOT, 'dist'));
  const imported = new Set();
  let scan;
  let bundled;
  const esbuild = files.length > 0 && BUNDLED.some((name) => dependencies.has(name)) ? await import('esbuild') : undefined;
  if (esbuild !== undefined) {
    scan = await esbuild.build({
      entryPoints: files,
      absWorkingDir: ROOT,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outdir: out,
      logLevel: 'error',
    });
    for (const input of Object.values(scan.metafile.inputs))
      for (const { path, external } of input.imports) if (external && BUNDLED.includes(packageOf(path))) imported.add(path);
  }
  const specifiers = [...imported].sort();
  const entryOf = (specifier) => fileURLToPath(import.meta.resolve(specifier));
  const fileOf = (specifier) => `${specifier.replace(/^@/, '').replace(/[^A-Za-z0-9.-]/g, '_')}.js`;
  if (specifiers.length > 0) {
    const keep = {
      name: 'keep-shared-dependencies',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, async (args) => {
          if (args.path.startsWith('node:') || args.pluginData === 'probe') return undefined;
          const name = packageOf(args.path);
          if (dependencies.has(name) && !BUNDLED.includes(name)) return { external: true };
          // An optional dependency the package imports only where it is installed (MikroORM's other drivers).
          const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'probe' });
          return found.errors.length > 0 ? { path: args.path, external: true } : undefined;
        });
      },
    };
    const result = await esbuild.build({
      entryPoints: specifiers.map((specifier) => ({ in: entryOf(specifier), out: fileOf(specifier).replace(/\.js$/, '') })),
      absWorkingDir: ROOT,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: `node${minimum}`,
      outdir: out,
      keepNames: true,
      metafile: true,
      logLevel: 'error',
      plugins: [keep],
      // CommonJS code inside a bundle (a dependency of a bundled package) calls require().
      banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    });
    bundled = result.metafile;
    // A CommonJS entry's bundle would export only `default`: our named imports of it would fail.
    const commonJs = specifiers.filter((specifier) => result.metafile.inputs[relative(ROOT, entryOf(specifier))]?.format !== 'esm');
    if (commonJs.length > 0) {
      process.stderr.write(`src/build.mjs: ${commonJs.join(', ')} is CommonJS, and a bundle of it would lose its named exports: remove it from BUNDLED\n`);
      process.exit(1);
    }
    // A package loaded from node_modules that depends on a bundled one would load a second copy of it.
    const inside = new Set(
      Object.keys(result.metafile.inputs).flatMap((path) => {
        const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
        return match ? [match[1]] : [];
      }),
    );
    for (const name of dependencies) {
      if (BUNDLED.includes(name)) continue;
      const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
      const needs = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((dep) => inside.has(dep) && !SHAREABLE.includes(dep));
      if (needs.length > 0) {
        process.stderr.write(`src/build.mjs: ${name} is not bundled but depends on ${needs.join(', ')}, which is: add ${name} to BUNDLED or remove those\n`);
        process.exit(1);
      }
    }
  }
  mkdirSync(out, { recursive: true });
  const vendorFiles = Object.fromEntries(specifiers.map((specifier) => [specifier, fileOf(specifier)]));
  writeFileSync(join(out, 'modules.json'), `${JSON.stringify(vendorFiles, null, 2)}\n`);
  // Step 4: the order of the service's modules after its head start.
  const steps = scan === undefined ? [] : loadOrder(importGraph(scan.metafile, bundled, vendorFiles), 'dist/cli/serve.js');
  writeFileSync(join(ROOT, 'dist', 'load-steps.json'), `${JSON.stringify(steps)}\n`);
}

/**
 * Step 5. V8 holds a module's source as one byte per character only when every character is
 * Latin-1; one `—` in a comment and the whole file is read, decoded, hashed for the compile
 * cache and kept for the life of the process at two bytes per character. Of the 4 MB of
 * source `keys list` loaded, 2.9 MB were such files (esbuild escapes strings but keeps some
 * comments as written; tsc keeps texts as written); the service's idle RSS was ~10 MB more
 * for it (bench/README.md, "Measurements behind the code"). So each character above U+007F is
 * written as its `\uXXXX` escape (a pair of them above U+FFFF): in a string, a template's
 * value, a regular expression or an identifier the escape stands for the same character, in a
 * comment it is only text. A character escaped with a backslash (`\—`, the character itself)
 * loses that backslash: `\u2014` is the same character there too. What changes: a template's
 * raw text (`String.raw`, a tag reading `.raw`) shows the escape, and a source map's columns
 * after such a character on its line. A file that does not parse once written so (an identifier
 * above U+FFFF, which takes no pair of escapes) is left as it was, and the build says so.
 */
export function asciiOnly(dir) {
  const files = (path) =>
    readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(path, entry.name)) : entry.name.endsWith('.js') ? [join(path, entry.name)] : [],
    );
  const written = new Map();
  for (const file of files(dir)) {
    const text = readFileSync(file, 'utf8');
    if (!/[^\x00-\x7f]/.test(text)) continue;
    // Without the `u` flag each half of a surrogate pair is matched, and escaped, on its own.
    const ascii = text.replace(/(\\*)([^\x00-\x7f])/g, (_match, backslashes, char) => {
      const unicode = `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
      return `${backslashes.length % 2 === 1 ? backslashes.slice(1) : backslashes}${unicode}`;
    });
    writeFileSync(file, ascii);
    written.set(file, text);
  }
  if (written.size === 0) return;
  // V8 itself, in one process for all of them, says which of the files written does not parse.
  const check = spawnSync(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--no-warnings',
      '--input-type=module',
      '-e',
      "import { readFileSync } from 'node:fs'; import { SourceTextModule } from 'node:vm'; for (const file of JSON.parse(process.argv[1])) { try { new SourceTextModule(readFileSync(file, 'utf8')); } catch { console.log(file); } }",
      JSON.stringify([...written.keys()]),
    ],
    { encoding: 'utf8' },
  );
  if (check.status !== 0) {
    process.stderr.write(`src/build.mjs: the check of the files written as ASCII failed: ${check.stderr.trim()}\n`);
    process.exit(1);
  }
  for (const file of check.stdout.split('\n').filter(Boolean)) {
    writeFileSync(file, written.get(file));
    process.stderr.write(`src/build.mjs: ${relative(ROOT, file)} is left with its characters above U+007F: written as escapes it does not parse\n`);
  }
}

/**
 * The static imports of the built modules, by path relative to the repository ('dist/…'): ours
 * from esbuild's scan of dist/ (`ours`, its metafile), the bundles' from their build's outputs
 * (`bundles`, its metafile, or undefined when nothing was bundled). A bundled specifier leads to
 * its file in dist/vendor (`vendorFiles`: specifier -> file name); any other package is a leaf
 * named `pkg:<specifier>`; Node's own modules are left out. Dynamic imports are left out: a
 * start loads those when it needs them. Each module's imports keep their order in its source.
 */
export function importGraph(ours, bundles, vendorFiles) {
  const graph = new Map();
  const edge = ({ path, kind, external }) => {
    if (kind !== 'import-statement') return undefined;
    if (!external) return path;
    if (path.startsWith('node:') || isBuiltin(path)) return undefined;
    return vendorFiles[path] === undefined ? `pkg:${path}` : `dist/vendor/${vendorFiles[path]}`;
  };
  for (const [path, input] of Object.entries(ours.inputs))
    if (path.startsWith('dist/') && !path.startsWith('dist/vendor/')) graph.set(path, input.imports.map(edge).filter(Boolean));
  for (const [path, output] of Object.entries(bundles?.outputs ?? {})) if (path.endsWith('.js')) graph.set(path, output.imports.map(edge).filter(Boolean));
  return graph;
}

/**
 * The modules `entry` loads, each after everything it imports, as Node evaluates them (depth
 * first, imports in source order; a module met again, in a cycle too, is not repeated), `entry`
 * last: `dist/` paths without `dist/`, packages as `pkg:<specifier>`.
 */
export function loadOrder(graph, entry) {
  const order = [];
  const seen = new Set();
  const visit = (node) => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const next of graph.get(node) ?? []) visit(next);
    order.push(node.startsWith('dist/') ? node.slice('dist/'.length) : node);
  };
  visit(entry);
  return order;
}
