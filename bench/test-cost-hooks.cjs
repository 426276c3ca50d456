// Root hooks for `bench/test-cost.mjs` (mocha --require): in parallel mode root hooks run once
// per test file, so the pair below brackets each file. It appends one line per file to
// $TEST_COST_FILE: the file, its wall ms, the CPU ms of the mocha worker that ran it, and the
// CPU ms of the processes the file started and waited for (gateways, CLI commands, shells,
// Chromium: Linux's cutime + cstime of the worker). Linux only (/proc/self/stat).
const { appendFileSync, readFileSync } = require('node:fs');

const TICK_MS = 10; // USER_HZ is 100 on Linux
/** utime + stime of this process, and of its children that ended and were waited for, in ms. */
const cpu = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { own: (Number(fields[11]) + Number(fields[12])) * TICK_MS, children: (Number(fields[13]) + Number(fields[14])) * TICK_MS };
};

let start;
exports.mochaHooks = {
  beforeAll() {
    start = { wall: Date.now(), ...cpu() };
  },
  afterAll() {
    const out = process.env.TEST_COST_FILE;
    if (out === undefined || start === undefined) return;
    const now = cpu();
    const root = this.test?.parent;
    const file = root?.suites?.[0]?.file ?? root?.file ?? '?';
    appendFileSync(out, `${file.slice(file.indexOf('/test/') + 1)}\t${Date.now() - start.wall}\t${now.own - start.own}\t${now.children - start.children}\n`);
  },
};
