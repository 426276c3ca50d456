import { expect } from 'chai';
import type { ShellRun } from '../../src/ports/shell-executor.js';
import type { StartMarks } from '../../src/ports/start-marks.js';

export interface StartMarksHarness {
  readonly marks: StartMarks;
  /** Plays the shell: creates the mark at `path`, for attempt `attempt` of its action (ShellOptions.startAttempt; none: a mark that says no number). */
  touch(path: string, attempt?: number): Promise<void>;
  /** Plays the spawner left with a command that has now ended: leaves its outcome beside the mark at `path`. */
  leave(path: string, run: ShellRun): Promise<void>;
  /** The same marks as seen from another machine. */
  readonly elsewhere: StartMarks;
}

/** The behaviour every StartMarks adapter must have. */
export const describeStartMarksContract = (name: string, open: () => Promise<StartMarksHarness>): void => {
  describe(`StartMarks contract: ${name}`, () => {
    let harness: StartMarksHarness;
    beforeEach(async () => {
      harness = await open();
    });

    it('tells a command that never started (false) from one that did (true)', async () => {
      const never = harness.marks.place('50000000-0000-4000-8000-000000000001', 0);
      const did = harness.marks.place('50000000-0000-4000-8000-000000000001', 1);
      await harness.touch(did.path);
      expect(await harness.marks.started(never.where)).to.equal(false);
      expect(await harness.marks.started(did.where)).to.equal(true);
    });

    it('gives each run and action a mark of its own', () => {
      const places = [
        harness.marks.place('50000000-0000-4000-8000-000000000002', 0),
        harness.marks.place('50000000-0000-4000-8000-000000000002', 1),
        harness.marks.place('50000000-0000-4000-8000-000000000003', 0),
      ];
      expect(new Set(places.map((place) => place.where)).size).to.equal(3);
      expect(new Set(places.map((place) => place.path)).size).to.equal(3);
    });

    it('forgets a cleared mark, and clearing a missing one is no error', async () => {
      const place = harness.marks.place('50000000-0000-4000-8000-000000000004', 0);
      await harness.touch(place.path);
      await harness.marks.clear(place.where);
      await harness.marks.clear(place.where);
      expect(await harness.marks.started(place.where)).to.equal(false);
    });

    it('gives the outcome a command left once it ended after its service let it go; none before, none once cleared, none for a mark already gone', async () => {
      const run = { exitCode: 3, timedOut: false, aborted: false, durationMs: 1234, output: 'line one\nlast line\n' };
      const place = harness.marks.place('50000000-0000-4000-8000-000000000006', 0);
      await harness.touch(place.path);
      expect(await harness.marks.finished(place.where)).to.equal(null);
      await harness.leave(place.path, run);
      expect(await harness.marks.finished(place.where)).to.deep.equal(run);
      expect(await harness.elsewhere.finished(place.where)).to.equal(null);
      await harness.marks.clear(place.where);
      expect(await harness.marks.finished(place.where)).to.equal(null);
      expect(await harness.marks.started(place.where)).to.equal(false);
      // its record was made without it (as interrupted) and the mark cleared: nothing is left
      await harness.leave(place.path, run);
      expect(await harness.marks.finished(place.where)).to.equal(null);
    });

    it('says which attempt last made a mark (1 for a mark that says no number); null before it is made, once cleared, and on another machine', async () => {
      const place = harness.marks.place('50000000-0000-4000-8000-000000000007', 0);
      expect(await harness.marks.attempt(place.where)).to.equal(null);
      await harness.touch(place.path);
      expect(await harness.marks.attempt(place.where)).to.equal(1);
      await harness.touch(place.path, 2);
      expect(await harness.marks.attempt(place.where)).to.equal(2);
      await harness.touch(place.path, 3);
      expect(await harness.marks.attempt(place.where)).to.equal(3);
      expect(await harness.marks.started(place.where)).to.equal(true);
      expect(await harness.elsewhere.attempt(place.where)).to.equal(null);
      await harness.marks.clear(place.where);
      expect(await harness.marks.attempt(place.where)).to.equal(null);
    });

    it('cannot tell (null) for a mark placed on another machine, whether or not it was made', async () => {
      const place = harness.marks.place('50000000-0000-4000-8000-000000000005', 0);
      expect(await harness.elsewhere.started(place.where)).to.equal(null);
      await harness.touch(place.path);
      expect(await harness.elsewhere.started(place.where)).to.equal(null);
      expect(await harness.marks.started(place.where)).to.equal(true);
    });
  });
};
