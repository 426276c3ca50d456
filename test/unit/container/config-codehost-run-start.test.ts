import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/container/config.js';

const github = { CODEHOST_TOKEN: 'ghp_x', CODEHOST_REPO: 'acme/app' };

describe('loadConfig: CODEHOST_RUN_START_SECONDS', () => {
  it('gives a job handed over to GitHub 30 minutes for its workflow run to appear unless set (60 s to 7 days)', () => {
    expect(loadConfig(github, '/srv/gw').codehost?.runStartSeconds).to.equal(1800);
    expect(loadConfig({ ...github, CODEHOST_RUN_START_SECONDS: '600' }, '/srv/gw').codehost?.runStartSeconds).to.equal(600);
    for (const bad of ['59', '604801', '10m', '-1']) {
      const error = (() => {
        try {
          loadConfig({ ...github, CODEHOST_RUN_START_SECONDS: bad }, '/srv/gw');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, bad).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).problems).to.deep.equal([`CODEHOST_RUN_START_SECONDS: "${bad}" is not a whole number between 60 and 604800`]);
    }
  });
});
