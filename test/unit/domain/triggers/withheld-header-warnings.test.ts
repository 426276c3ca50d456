import { expect } from 'chai';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { withheldHeaderWarnings } from '../../../../src/domain/triggers/withheld-header-warnings.js';

const FILE = 'config/TRIGGERS.json';

const entry = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  watch_path: '/webhook',
  enabled: true,
  actions: [{ type: 'command', command: 'make' }],
  ...extra,
});

const valid = (...entries: unknown[]) => {
  const { triggers, problems } = validateTriggers(entries, FILE, triggerCatalog());
  expect(problems).to.deep.equal([]);
  return triggers;
};

/** trigger, field and header of each warning. */
const warnedOf = (...entries: unknown[]): string[][] =>
  withheldHeaderWarnings(valid(...entries), FILE).map((warning) => [warning.trigger, warning.field, warning.header]);

describe('withheldHeaderWarnings', () => {
  it('names a command token reading x-api-key, with the file, the trigger, the field, the header and why', () => {
    const warnings = withheldHeaderWarnings(valid(entry('deploy', { actions: [{ type: 'command', command: 'echo {{headers.x-api-key}}' }] })), FILE);
    expect(warnings).to.deep.equal([
      {
        trigger: 'deploy',
        field: 'actions[0].command',
        header: 'x-api-key',
        message:
          'config/TRIGGERS.json: trigger #0 "deploy": actions[0].command: {{headers.x-api-key}} names the header x-api-key, which a trigger never sees: ' +
          'it is treated as a credential and never given to templates or "when", so the token always renders as the empty string (docs/triggers.md, "Template tokens")',
      },
    ]);
  });

  it('reads header names in any case and with spaces inside the braces, in an agent job too', () => {
    expect(
      warnedOf(
        entry('summarise', { actions: [{ type: 'agent', job: 'Caller: {{ headers.Authorization }}' }] }),
        entry('shout', { actions: [{ type: 'command', command: 'echo {{headers.X-API-KEY}}' }] }),
      ),
    ).to.deep.equal([
      ['summarise', 'actions[0].job', 'authorization'],
      ['shout', 'actions[0].command', 'x-api-key'],
    ]);
  });

  it('names a when test on a credential header, which never passes, in any case', () => {
    const [warning, ...others] = withheldHeaderWarnings(
      valid(entry('signed', { when: { 'headers.X-Hub-Signature-256': { prefix: 'sha256=' }, 'headers.x-github-event': { equals: 'push' } } })),
      FILE,
    );
    expect(others).to.deep.equal([]);
    expect([warning.trigger, warning.field, warning.header]).to.deep.equal(['signed', 'when.headers.X-Hub-Signature-256', 'x-hub-signature-256']);
    expect(warning.message)
      .to.match(/^config\/TRIGGERS\.json: trigger #0 "signed": when\.headers\.X-Hub-Signature-256: names the header x-hub-signature-256, /)
      .and.to.contain('treated as a credential')
      .and.to.contain('this test never passes and the trigger never fires');
  });

  it('names headers dropped by their names: any key as the last word, tokens, cookies, a path into the value', () => {
    expect(
      warnedOf(
        entry('keys', {
          when: { 'headers.x-gitlab-token': { equals: 'x' } },
          actions: [
            { type: 'command', command: 'echo {{headers.x-master-key}} {{headers.cookie.0}}' },
            { type: 'webhook', url: 'https://hooks.example/' },
            { type: 'agent', job: 'Sign: {{headers.stripe-signature}}' },
          ],
        }),
      ),
    ).to.deep.equal([
      ['keys', 'when.headers.x-gitlab-token', 'x-gitlab-token'],
      ['keys', 'actions[0].command', 'x-master-key'],
      ['keys', 'actions[0].command', 'cookie'],
      ['keys', 'actions[2].job', 'stripe-signature'],
    ]);
  });

  it('names one header once per field, whatever times it is read there', () => {
    expect(warnedOf(entry('twice', { actions: [{ type: 'command', command: 'a {{headers.x-api-key}}; b "{{ headers.X-Api-Key }}"' }] }))).to.deep.equal([
      ['twice', 'actions[0].command', 'x-api-key'],
    ]);
  });

  it('names a disabled trigger too: enabling it would not make the header appear', () => {
    expect(warnedOf(entry('off', { enabled: false, when: { 'headers.authorization': { prefix: 'Bearer ' } } }))).to.deep.equal([
      ['off', 'when.headers.authorization', 'authorization'],
    ]);
  });

  it('names the channels’ credential headers it is given', () => {
    const triggers = valid(
      entry('chat', { watch_path: '/messaging/telegram/webhook', actions: [{ type: 'command', command: 'echo {{headers.x-channel-proof}}' }] }),
    );
    expect(withheldHeaderWarnings(triggers, FILE)).to.deep.equal([]);
    expect(withheldHeaderWarnings(triggers, FILE, ['x-channel-proof']).map((warning) => warning.header)).to.deep.equal(['x-channel-proof']);
  });

  it('says nothing of ordinary headers, the keys that are no credential, proxies’ identities, the whole {{headers}}, body and query fields', () => {
    expect(
      warnedOf(
        entry('github', {
          when: { 'headers.x-github-event': { equals: 'push' }, 'body.authorization': { equals: 'x' }, 'query.x-api-key': { equals: 'y' } },
          actions: [
            { type: 'command', command: 'echo {{headers.x-github-event}} {{headers.Idempotency-Key}} {{headers.x-event-key}} {{headers}}' },
            { type: 'agent', job: 'By {{headers.x-auth-request-user}} ({{headers.user-agent}}): {{body.token}} {{query.api_key}}' },
          ],
        }),
      ),
    ).to.deep.equal([]);
  });

  it('has nothing to say of a bracket form: the template language has none, the file is refused', () => {
    const { problems } = validateTriggers(
      [entry('bracket', { actions: [{ type: 'command', command: "echo {{headers['x-api-key']}}" }] })],
      FILE,
      triggerCatalog(),
    );
    expect(problems).to.have.length(1);
    expect(problems[0]).to.contain("unknown template token {{headers['x-api-key']}}");
  });
});
