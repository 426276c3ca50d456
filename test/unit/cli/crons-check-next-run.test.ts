import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkCrons } from '../../../src/cli/crons-command.js';
import { type CliFilesDir, cliFilesDir, runCommand } from '../../support/cli-checks.js';

/*
 * `crons check` prints each schedule's next run as the scheduler runs it (the same function,
 * nextScheduledRun): through a daylight-saving change as the loop steps through it, and a
 * schedule without `timezone` in UTC whatever TZ the shell running the check has. The clock
 * is given: no test waits.
 */

const at = (iso: string) => () => new Date(iso);

describe('crons check: the next run the scheduler runs, in the schedule’s zone and in UTC', () => {
  let files: CliFilesDir;
  beforeEach(async () => {
    files = await cliFilesDir('agw-crons-next-', { 'TRIGGERS.json': '[]' });
  });
  afterEach(() => files.restore());

  /** Checks a file of these schedules (each with one command action) at `now`; --json when asked. */
  const check = async (schedules: object[], now: () => Date, json = false) => {
    const file = join(files.dir, 'CRONS.json');
    await writeFile(file, JSON.stringify(schedules.map((entry) => ({ enabled: true, actions: [{ type: 'command', command: 'true' }], ...entry }))));
    const values: Record<string, string | boolean> = { file };
    if (json) values.json = true;
    return runCommand(checkCrons, values, now);
  };

  it('shows the next run in the schedule’s zone with the UTC time beside it, and both in JSON', async () => {
    const schedules = [{ name: 'berlin', schedule: '0 9 * * *', timezone: 'Europe/Berlin' }];
    const text = await check(schedules, at('2026-12-01T12:00:00Z'));
    expect(text.code).to.equal(0);
    expect(text.out).to.include('next 2026-12-02 09:00 Europe/Berlin (08:00 UTC)');
    const json = await check(schedules, at('2026-12-01T12:00:00Z'), true);
    expect(json.code).to.equal(0);
    expect(JSON.parse(json.out)).to.deep.equal([
      {
        name: 'berlin',
        enabled: true,
        schedule: '0 9 * * *',
        timezone: 'Europe/Berlin',
        zone: 'Europe/Berlin',
        catch_up: true,
        actions: ['command'],
        next: '2026-12-02T08:00:00.000Z',
        next_local: '2026-12-02T09:00:00+01:00',
      },
    ]);
    expect(json.err, 'the summary line leaves stdout to the JSON').to.include('1 schedule valid');
  });

  it('names the UTC date too when it is another day than in the zone', async () => {
    const { out } = await check([{ name: 'late', schedule: '30 0 * * *', timezone: 'Europe/Berlin' }], at('2026-12-01T12:00:00Z'));
    expect(out).to.include('next 2026-12-02 00:30 Europe/Berlin (2026-12-01 23:30 UTC)');
  });

  it('a daily 02:30 in Europe/Berlin on the night the clocks skip it: at 03:30 that day, as the scheduler runs it, not the next day', async () => {
    // 2026-03-29 02:00 → 03:00 in Berlin; the check runs at 03:10 (01:10 UTC), after the skipped 02:30.
    const { out } = await check([{ name: 'gap', schedule: '30 2 * * *', timezone: 'Europe/Berlin' }], at('2026-03-29T01:10:00Z'));
    expect(out).to.include('next 2026-03-29 03:30 Europe/Berlin (01:30 UTC)');
  });

  it('a daily 02:30 in Europe/Berlin between the two passes of the repeated hour: the next day, since the first pass ran', async () => {
    // 2026-10-25 03:00 → 02:00; 02:30 comes at 00:30 and 01:30 UTC; the scheduler runs the first only.
    const { out } = await check([{ name: 'overlap', schedule: '30 2 * * *', timezone: 'Europe/Berlin' }], at('2026-10-25T01:10:00Z'));
    expect(out).to.include('next 2026-10-26 02:30 Europe/Berlin (01:30 UTC)');
  });

  it('Australia/Lord_Howe on the night its clocks go forward half an hour: 02:30 that night, which the plain cron search steps over', async () => {
    // 2026-10-04 02:00 → 02:30 (+10:30 → +11:00); the check runs at 01:40 local (15:10 UTC).
    const { out } = await check([{ name: 'howe', schedule: '0,30 2 * * *', timezone: 'Australia/Lord_Howe' }], at('2026-10-03T15:10:00Z'));
    expect(out).to.include('next 2026-10-04 02:30 Australia/Lord_Howe (2026-10-03 15:30 UTC)');
  });

  it('Australia/Lord_Howe the day before its clocks go back half an hour, where cron-parser gives up: 02:00 after the change', async () => {
    // 2026-04-05 02:00 → 01:30 (+11:00 → +10:30); cron-parser's own search fails all the day before.
    const { out } = await check([{ name: 'howe', schedule: '0,30 2 * * *', timezone: 'Australia/Lord_Howe' }], at('2026-04-04T10:00:00Z'));
    expect(out).to.include('next 2026-04-05 02:00 Australia/Lord_Howe (2026-04-04 15:30 UTC)');
  });

  it('a schedule without timezone is read in UTC, as the service reads it, whatever TZ the shell has', async () => {
    files.setEnv({ TZ: 'America/New_York' });
    const schedules = [{ name: 'plain', schedule: '0 9 * * *' }];
    const { out, err } = await check(schedules, at('2026-12-01T12:00:00Z'));
    expect(out).to.include('next 2026-12-02 09:00 UTC');
    expect(err).to.include(
      'warning: schedules without "timezone" are read in UTC, not in this process\'s zone America/New_York: "plain" (give them "timezone": "America/New_York" to run on its clocks)',
    );
    const json = await check(schedules, at('2026-12-01T12:00:00Z'), true);
    expect(JSON.parse(json.out)[0]).to.include({ timezone: null, zone: 'UTC', next: '2026-12-02T09:00:00.000Z', next_local: '2026-12-02T09:00:00+00:00' });
  });

  it('warns of no schedule without timezone when this process runs in UTC, nor of one with a zone', async () => {
    files.setEnv({ TZ: 'UTC' });
    expect((await check([{ name: 'plain', schedule: '0 9 * * *' }], at('2026-12-01T12:00:00Z'))).err).not.to.include('warning');
    files.setEnv({ TZ: 'America/New_York' });
    expect((await check([{ name: 'zoned', schedule: '0 9 * * *', timezone: 'Europe/Berlin' }], at('2026-12-01T12:00:00Z'))).err).not.to.include('warning');
  });

  it('a disabled schedule has no next run', async () => {
    const { out } = await check([{ name: 'off', schedule: '0 9 * * *', enabled: false }], at('2026-12-01T12:00:00Z'), true);
    expect(JSON.parse(out)[0]).to.include({ enabled: false, next: null, next_local: null });
  });
});
