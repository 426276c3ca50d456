import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileStartMarks } from '../../src/adapters/shell/file-start-marks.js';
import { leaveOutcome } from '../../src/adapters/shell/left-outcome.js';
import { ChildProcessShellExecutor } from '../../src/adapters/shell/child-process-shell-executor.js';
import { InMemoryStartMarks } from '../fakes/in-memory-start-marks.js';
import { tempDir } from '../support/gateway-process.js';
import { describeStartMarksContract } from './start-marks.contract.js';

describeStartMarksContract('in-memory fake', async () => {
  const marks = new InMemoryStartMarks();
  const elsewhere = new InMemoryStartMarks();
  elsewhere.started = async () => null;
  return { marks, elsewhere, touch: async (path, attempt) => marks.touch(path, attempt), leave: async (path, run) => marks.leave(path, run) };
});

describeStartMarksContract('files in a directory', async () => {
  const dir = join(await tempDir('start-marks'), 'run-marks');
  return {
    marks: new FileStartMarks(dir, 'host-a'),
    elsewhere: new FileStartMarks(dir, 'host-b'),
    // The real shell makes the mark, as it does for a command (what a mark holds is the shell's).
    touch: async (path, attempt) => {
      const run = await new ChildProcessShellExecutor().run('true', { cwd: dir, timeoutMs: 5000, env: {}, startMark: path, startAttempt: attempt });
      expect(run.exitCode, run.output).to.equal(0);
    },
    leave: async (path, run) => leaveOutcome(path, run),
  };
});

describe('FileStartMarks with the real shell', () => {
  it('a mark placed is made by the shell as the command starts, and cannot be told where its directory is missing', async () => {
    const root = await tempDir('start-marks-shell');
    const marks = new FileStartMarks(join(root, 'run-marks'), 'host-a');
    const place = marks.place('50000000-0000-4000-8000-000000000009', 2);
    expect(await marks.started(place.where)).to.equal(false);
    const run = await new ChildProcessShellExecutor().run('true', { cwd: root, timeoutMs: 5000, env: {}, startMark: place.path });
    expect(run.exitCode).to.equal(0);
    expect(await marks.started(place.where)).to.equal(true);
    const moved = new FileStartMarks(join(root, 'elsewhere'), 'host-a');
    expect(await moved.started(`host-a:${join(root, 'gone', 'x.0')}`)).to.equal(null);
  });

  it('reads a mark made before marks held a number (an empty file) as attempt 1', async () => {
    const marks = new FileStartMarks(join(await tempDir('start-marks-old'), 'run-marks'), 'host-a');
    const place = marks.place('50000000-0000-4000-8000-000000000010', 0);
    await writeFile(place.path, '');
    expect(await marks.started(place.where)).to.equal(true);
    expect(await marks.attempt(place.where)).to.equal(1);
  });
});
