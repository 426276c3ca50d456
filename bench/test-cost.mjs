// Where `npm test`'s time goes: runs the suite as `npm test` does (mocha with .mocharc.json,
// in parallel), with root hooks (bench/test-cost-hooks.cjs) that record per test file its wall
// time, the CPU time of the mocha worker that ran it and the CPU time of the processes it
// started (gateways, CLI commands, shells, Chromium). Prints the totals per directory and the
// dearest files. The suite is CPU-bound on the 2-core machine, so CPU time is what to cut.
// Usage: node bench/test-cost.mjs [mocha options, added to .mocharc.json's: --jobs 2]   (needs a build: npm run build)
//   TEST_COST_TOP=25   how many files to list
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const TOP = Number(process.env.TEST_COST_TOP ?? 25);
const out = join(tmpdir(), `agw-test-cost-${process.pid}.tsv`);
rmSync(out, { force: true });
const started = performance.now();
const code = await new Promise((done) => {
  const mocha = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'),
      '--require',
      join(ROOT, 'bench', 'test-cost-hooks.cjs'),
      '--reporter',
      'dot',
      ...process.argv.slice(2),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, TEST_COST_FILE: out },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  mocha.once('exit', (status) => done(status ?? 1));
});
const wallS = (performance.now() - started) / 1000;
const rows = readFileSync(out, 'utf8')
  .trim()
  .split('\n')
  .map((line) => {
    const [file, wall, own, children] = line.split('\t');
    return { file, wall: Number(wall), own: Number(own), children: Number(children) };
  });
rmSync(out, { force: true });
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
const groups = new Map();
for (const row of rows) {
  const group = row.file.split('/').slice(0, 2).join('/');
  const sum = groups.get(group) ?? { files: 0, wall: 0, own: 0, children: 0 };
  groups.set(group, { files: sum.files + 1, wall: sum.wall + row.wall, own: sum.own + row.own, children: sum.children + row.children });
}
const total = rows.reduce((sum, row) => sum + row.own + row.children, 0);
console.log(`\nmocha exit code ${code}; ${rows.length} files in ${wallS.toFixed(0)} s of wall time; CPU time in the files: ${s(total)} s\n`);
console.log('directory          files   wall s (summed)   worker CPU s   started processes CPU s');
for (const [group, sum] of [...groups].sort((a, b) => b[1].own + b[1].children - (a[1].own + a[1].children)))
  console.log(`${group.padEnd(18)} ${String(sum.files).padStart(5)}   ${s(sum.wall)}           ${s(sum.own)}        ${s(sum.children)}`);
console.log(`\nthe ${TOP} dearest files (worker + started processes CPU s):`);
for (const row of rows.sort((a, b) => b.own + b.children - (a.own + a.children)).slice(0, TOP))
  console.log(`${s(row.own + row.children)}  ${row.file}  (worker ${s(row.own).trim()}, processes ${s(row.children).trim()}, wall ${s(row.wall).trim()})`);
process.exitCode = code;
