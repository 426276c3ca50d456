import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { triggersDirProblems } from '../../../src/container/config-files.js';
import type { Trigger } from '../../../src/domain/triggers/trigger.js';

describe('triggersDirProblems: where command actions run', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'triggers-dir-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const command: Trigger = { name: 'deploy', watchPath: '/webhook', enabled: true, actions: [{ type: 'command', command: 'true' }] };
  const webhook: Trigger = {
    name: 'forward',
    watchPath: '/webhook',
    enabled: true,
    actions: [{ type: 'webhook', url: 'https://example.com/', method: 'POST', headers: {}, vars: {} }],
  };

  it('takes a directory, and anything when no action is a command', async () => {
    expect(triggersDirProblems([command], dir)).to.deep.equal([]);
    expect(triggersDirProblems([webhook], join(dir, 'none'))).to.deep.equal([]);
  });

  it('refuses one that does not exist', () => {
    expect(triggersDirProblems([command], join(dir, 'none'))).to.deep.equal([`TRIGGERS_DIR: ${join(dir, 'none')} does not exist (command actions run there)`]);
  });

  it('refuses a file (every command failed with spawn ENOTDIR, the configuration accepted)', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, '');
    expect(triggersDirProblems([command], file)).to.deep.equal([`TRIGGERS_DIR: ${file} is not a directory (command actions run there)`]);
  });
});
