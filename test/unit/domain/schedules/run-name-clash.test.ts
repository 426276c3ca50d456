import { expect } from 'chai';
import { runNameClashes } from '../../../../src/domain/schedules/run-name-clash.js';

const named = (...names: string[]) => names.map((name) => ({ name }));
const clash = (trigger: number, triggerName: string, schedule: number, scheduleName: string) =>
  `config/TRIGGERS.json: trigger #${trigger} "${triggerName}": name: reads as cron:${scheduleName}, the name the runs of config/CRONS.json: schedule #${schedule} "${scheduleName}" are recorded under (a schedule's runs are recorded as cron:<its name>): the run history, the admin UI and the logs would show both as one; rename the trigger or the schedule`;

describe('runNameClashes', () => {
  it('refuses a trigger named cron:<x> beside a schedule named x, naming both files and both entries', () => {
    expect(runNameClashes(named('deploy', 'cron:nightly'), named('hourly', 'nightly'), 'config/TRIGGERS.json', 'config/CRONS.json')).to.deep.equal([
      clash(1, 'cron:nightly', 1, 'nightly'),
    ]);
  });

  it('takes a trigger named cron:<x> when no schedule is named x (an earlier version took it), and other names alike', () => {
    expect(runNameClashes(named('cron:nightly', 'cron:', 'nightly'), named('hourly', 'nightly-2'), 'T', 'C')).to.deep.equal([]);
    expect(runNameClashes(named('cron:nightly'), [], 'T', 'C')).to.deep.equal([]);
    // Case and inner spaces make different names, as for duplicate names.
    expect(runNameClashes(named('Cron:nightly', 'cron:Nightly', 'cron: nightly'), named('nightly'), 'T', 'C')).to.deep.equal([]);
  });

  it('compares as duplicate names are compared: white space around the name and other code points for the same characters read the same', () => {
    const decomposed = 'cafe\u0301';
    expect(
      runNameClashes(named('cron:nightly ', `cron:${decomposed}`), named('café', ' x', 'nightly'), 'config/TRIGGERS.json', 'config/CRONS.json'),
    ).to.deep.equal([clash(0, 'cron:nightly ', 2, 'nightly'), clash(1, `cron:${decomposed}`, 0, 'café')]);
    expect(runNameClashes(named('cron:nightly'), named('nightly\u00a0'), 'config/TRIGGERS.json', 'config/CRONS.json')).to.deep.equal([
      clash(0, 'cron:nightly', 0, 'nightly\u00a0'),
    ]);
  });
});
