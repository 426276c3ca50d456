// The build step of package.json: `npm run build` and `prepare` (so `npm ci` builds once), and
// `npm start` with --if-stale. Plain JavaScript, since it runs before anything is compiled; it
// lives in src/ because the repository's top level holds no scripts.
//
// 1. An unsupported Node.js (package.json's engines.node) is refused with one line and exit
//    code 1, before anything else runs.
// 2. `tsc -b` compiles (incremental, dist/.tsbuildinfo: only what changed is compiled again),
//    then dist/.build-stamp records a successful build.
//    With --if-stale nothing is compiled while that record is newer than every source (src/,
//    tsconfig.json, package.json, package-lock.json): `npm start` on a current build starts at
//    once instead of spending seconds in the compiler.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

const isCurrent = () => {
  if (!existsSync(STAMP) || !existsSync(join(ROOT, 'dist', 'main.js'))) return false;
  const sources = ['src', 'tsconfig.json', 'package.json', 'package-lock.json'].map((name) => join(ROOT, name)).filter((path) => existsSync(path));
  return Math.max(...sources.map(newest)) < statSync(STAMP).mtimeMs;
};

if (process.argv.includes('--if-stale') && isCurrent()) process.exit(0);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// The record is dated when the compiler starts: a source saved while it runs counts as newer.
const started = new Date();
const built = spawnSync(process.execPath, [tsc, '-b', join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
writeFileSync(STAMP, `${started.toISOString()}\n`);
utimesSync(STAMP, started, started);
