import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/container/config.js';

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig(env, '/srv/gw');
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
};

const networkOf = (env: Record<string, string>) => loadConfig(env, '/srv/gw').jobs.sandboxNetwork;

describe('loadConfig: JOB_SANDBOX_NETWORK', () => {
  it("defaults to none for the built-in agent's commands (the gateway calls its model) and to host for JOB_AGENT_COMMAND (it calls its model)", () => {
    expect(networkOf({ JOB_SANDBOX: 'bwrap' })).to.equal('none');
    expect(networkOf({ JOB_SANDBOX: 'bwrap', JOB_AGENT_COMMAND: 'aider --yes' })).to.equal('host');
  });

  it('takes none or host, either way round from the default', () => {
    expect(networkOf({ JOB_SANDBOX: 'bwrap', JOB_SANDBOX_NETWORK: 'host' })).to.equal('host');
    expect(networkOf({ JOB_SANDBOX: 'bwrap', JOB_AGENT_COMMAND: 'aider --yes', JOB_SANDBOX_NETWORK: 'none' })).to.equal('none');
    expect(networkOf({ JOB_SANDBOX: 'bwrap', JOB_SANDBOX_NETWORK: ' ' })).to.equal('none');
  });

  it('refuses any other value, naming the variable and the values it takes', () => {
    for (const value of ['off', 'loopback', 'NONE', 'true'])
      expect(problemsOf({ JOB_SANDBOX: 'bwrap', JOB_SANDBOX_NETWORK: value }), value).to.deep.equal([
        `JOB_SANDBOX_NETWORK: "${value}" is not one of none, host`,
      ]);
  });

  it('refuses JOB_SANDBOX_NETWORK without JOB_SANDBOX=bwrap: the commands would have the host network whatever it says', () => {
    const envs: Array<Record<string, string>> = [
      { JOB_SANDBOX_NETWORK: 'none' },
      { JOB_SANDBOX: 'none', JOB_SANDBOX_NETWORK: 'none' },
      { JOB_SANDBOX_NETWORK: 'host' },
    ];
    for (const env of envs)
      expect(problemsOf(env), JSON.stringify(env)).to.deep.equal([
        "JOB_SANDBOX_NETWORK: applies to the bubblewrap sandbox only: set JOB_SANDBOX=bwrap, or unset JOB_SANDBOX_NETWORK (without the sandbox, commands have the host's network)",
      ]);
  });

  it('is host without the sandbox (nothing confines the commands)', () => {
    expect(networkOf({})).to.equal('host');
    expect(networkOf({ JOB_AGENT_COMMAND: 'aider --yes' })).to.equal('host');
  });
});
