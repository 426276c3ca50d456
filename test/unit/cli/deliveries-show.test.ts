import { expect } from 'chai';
import { writeDelivery } from '../../../src/cli/deliveries-command.js';

/*
 * `deliveries show` prints a delivery as plain lines: an action's error is text a command, a peer
 * or a request made, so its line breaks and control characters are shown as escapes, and it cannot
 * end its line and print lines that look like the service's own.
 */
describe('deliveries show (plain text)', () => {
  const shown = (error: string): string => {
    let text = '';
    writeDelivery(
      {
        request: { id: 'r-1', watchPath: '/webhook', receivedAt: '2026-01-01T00:00:00.000Z', replayOf: null, request: '{"a":1}', triggers: ['build'] },
        runs: [
          {
            trigger: 'build',
            runId: 'run-1',
            actions: [{ actionIndex: 0, type: 'command', status: 'failed', attempts: 1, error, detail: { exitCode: 1, output: 'line 1\nline 2' } }],
          },
        ],
      },
      (line) => {
        text += line;
      },
    );
    return text;
  };

  it("prints an action's error on one line, its line feeds, tabs, escapes and bidi overrides as escapes", () => {
    const text = shown('exit 1\n  action 1 (webhook): succeeded, HTTP 200\r\x1b[2K\u202etab\there');
    expect(text).to.contain('    error: exit 1\\x0a  action 1 (webhook): succeeded, HTTP 200\\x0d\\x1b[2K\\u202etab\\x09here\n');
    expect(text.split('\n').filter((line) => line.includes('action 1'))).to.have.length(1);
    expect(text).not.to.match(/[\r\t\x1b\u202e]/);
    // The output is several lines, each indented, as before.
    expect(text).to.contain('    output:\n      line 1\n      line 2\n');
  });
});
