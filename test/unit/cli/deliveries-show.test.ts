import { expect } from 'chai';
import { deliveryJson, writeDelivery } from '../../../src/cli/deliveries-command.js';

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

/*
 * `deliveries show --json`: the fields of `deliveries list --json` (snake_case, the path as called),
 * the request as stored and the runs, each action's outcome by the fields an operator reads; the
 * details the service keeps for itself (fingerprints, the request id again, start marks) are not shown.
 */
describe('deliveries show --json', () => {
  it('prints the list row, the request and each action snake_case, without the internal details', () => {
    const shown = deliveryJson({
      request: {
        id: 'r-1',
        watchPath: '/webhook',
        receivedAt: '2026-01-01T00:00:00.000Z',
        replayOf: 'r-0',
        request: '{"body":{"n":12345678901234567890},"query":{},"headers":{}}',
        triggers: ['build'],
        runs: [{ trigger: 'build', runId: 'run-1' }],
      },
      runs: [
        {
          trigger: 'build',
          runId: 'run-1',
          actions: [
            {
              runId: 'run-1',
              trigger: 'build',
              actionIndex: 0,
              type: 'command',
              status: 'failed',
              attempts: 2,
              startedAt: '2026-01-01T00:00:01.000Z',
              finishedAt: '2026-01-01T00:00:02.000Z',
              error: 'exit code 1',
              detail: { exitCode: 1, commandMs: 950, output: 'no', requestId: 'r-1', action: 'fp-a', actions: ['fp-a', 'fp-b'], startMark: 'm', endsRun: true },
            },
            {
              runId: 'run-1',
              trigger: 'build',
              actionIndex: 1,
              type: 'webhook',
              status: 'awaiting_approval',
              attempts: 0,
              startedAt: '2026-01-01T00:00:02.000Z',
              finishedAt: '2026-01-01T00:00:02.000Z',
              error: null,
              detail: { approvalId: 'ap-1', expiresAt: '2026-01-02T00:00:00.000Z', action: 'fp-b' },
            },
          ],
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(shown))).to.deep.equal({
      id: 'r-1',
      received_at: '2026-01-01T00:00:00.000Z',
      path: '/api/webhook',
      triggers: ['build'],
      replay_of: 'r-0',
      request: JSON.parse('{"body":{"n":12345678901234567890},"query":{},"headers":{}}'),
      runs: [
        {
          trigger: 'build',
          run_id: 'run-1',
          actions: [
            {
              action_index: 0,
              type: 'command',
              status: 'failed',
              attempts: 2,
              started_at: '2026-01-01T00:00:01.000Z',
              finished_at: '2026-01-01T00:00:02.000Z',
              error: 'exit code 1',
              exit_code: 1,
              command_ms: 950,
              http_status: null,
              job_id: null,
              approval_id: null,
              output: 'no',
            },
            {
              action_index: 1,
              type: 'webhook',
              status: 'awaiting_approval',
              attempts: 0,
              started_at: '2026-01-01T00:00:02.000Z',
              finished_at: '2026-01-01T00:00:02.000Z',
              error: null,
              exit_code: null,
              command_ms: null,
              http_status: null,
              job_id: null,
              approval_id: 'ap-1',
              output: null,
            },
          ],
        },
      ],
    });
    // The number as sent, digit for digit (parseExactJson), as the plain text shows it.
    expect(JSON.stringify(shown)).to.contain('"n":12345678901234567890');
  });
});
