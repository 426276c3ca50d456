import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkCrons } from '../../../src/cli/crons-command.js';
import { reload } from '../../../src/cli/reload-command.js';
import { checkTriggers } from '../../../src/cli/triggers-command.js';
import { type CliFilesDir, cliFilesDir, runCommand } from '../../support/cli-checks.js';

const trigger = (name: string) => ({ name, watch_path: '/webhook', enabled: true, actions: [{ type: 'webhook', url: 'https://hooks.example/' }] });
const schedule = (name: string) => ({ name, schedule: '0 3 * * *', enabled: true, actions: [{ type: 'webhook', url: 'https://hooks.example/' }] });

describe('triggers check, crons check and reload: a trigger named as a schedule’s runs are recorded (cron:<name>)', () => {
  let files: CliFilesDir;
  let problem: string;
  beforeEach(async () => {
    files = await cliFilesDir('agw-cli-run-names-', {
      'TRIGGERS.json': JSON.stringify([trigger('deploy'), trigger('cron:nightly')]),
      'CRONS.json': JSON.stringify([schedule('nightly')]),
    });
    problem = `${join(files.dir, 'TRIGGERS.json')}: trigger #1 "cron:nightly": name: reads as cron:nightly, the name the runs of ${join(files.dir, 'CRONS.json')}: schedule #0 "nightly" are recorded under`;
  });
  afterEach(() => files.restore());

  it('triggers check and crons check each print the clash with the other configured file, exit code 1', async () => {
    for (const command of [checkTriggers, checkCrons]) {
      const { code, out, err } = await runCommand(command, {});
      expect(code, command.name).to.equal(1);
      expect(out, command.name).to.equal('');
      const lines = err.trimEnd().split('\n');
      expect(lines, command.name).to.have.length(2);
      expect(lines[0], command.name).to.contain(problem);
      expect(lines[1], command.name).to.equal('1 problem found');
    }
  });

  it('reload (no server running) prints the clash and exits 1', async () => {
    const { code, err } = await runCommand(reload, {});
    expect(code).to.equal(1);
    expect(err).to.contain(problem);
  });

  it('triggers check and crons check take the trigger when no schedule has its name', async () => {
    await writeFile(join(files.dir, 'CRONS.json'), JSON.stringify([schedule('hourly')]));
    expect((await runCommand(checkTriggers, {})).code).to.equal(0);
    expect((await runCommand(checkCrons, {})).code).to.equal(0);
  });
});
