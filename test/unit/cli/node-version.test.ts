import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSupportedNode, MINIMUM_NODE, unsupportedNodeMessage } from '../../../src/cli/node-version.js';

describe('the Node.js version check of the entry points', () => {
  it('says what package.json says: engines.node is ">=" MINIMUM_NODE', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).to.equal(`>=${MINIMUM_NODE}`);
  });

  it('accepts the minimum and anything newer, with or without the leading v', () => {
    for (const version of ['22.12.0', 'v22.12.0', '22.12.1', '22.13.0', '23.0.0', 'v24.21.0', '100.0.0']) {
      expect(isSupportedNode(version), version).to.equal(true);
    }
  });

  it('refuses anything older, compared as numbers (22.9 is older than 22.12)', () => {
    for (const version of ['22.11.9', '22.9.0', 'v22.2.0', '20.20.2', 'v18.19.1', '0.12.0']) {
      expect(isSupportedNode(version), version).to.equal(false);
    }
  });

  it('takes a pre-release of the minimum as the minimum', () => {
    expect(isSupportedNode('22.12.0-nightly2024')).to.equal(true);
  });

  it('names the minimum, the binary and its version in one line', () => {
    const message = unsupportedNodeMessage('20.20.2', '/usr/bin/node');
    expect(message).to.equal('agent-gateway needs Node.js 22.12.0 or newer, but /usr/bin/node is v20.20.2; install a newer Node.js (see README.md)');
    expect(message).to.not.contain('\n');
  });
});
