import { expect } from 'chai';
import { AdminViews } from '../../../src/adapters/http/admin/admin-views.js';
import { chatFailureMessage } from '../../../src/adapters/http/admin/chat-failures.js';
import { promptGlimpse } from '../../../src/adapters/http/admin/job-pages.js';
import { badge, stamp } from '../../../src/adapters/http/admin/present.js';
import { AiCallFailed } from '../../../src/domain/ai/ai-call-failed.js';
import { DomainError } from '../../../src/domain/errors/domain-error.js';
import { renderPrompt } from '../../../src/domain/templates/render-prompt.js';
import { snapshotRequest } from '../../../src/domain/templates/request-snapshot.js';

const HOSTILE = '<script>alert(1)</script>"\'&';
const now = new Date('2026-11-24T15:04:00Z');
const at = stamp(new Date('2026-11-24T15:00:00Z'), now);

/** Every value a page shows, hostile: each page rendered with them. */
const pages: Array<[Parameters<AdminViews['page']>[0], object]> = [
  ['closed', {}],
  ['login', { error: HOSTILE }],
  ['error', { message: HOSTILE, back: { href: '/settings', label: HOSTILE } }],
  ['keys', { keys: [{ id: HOSTILE, name: HOSTILE, prefix: HOSTILE, createdAt: at, lastUsedAt: null }], created: { name: HOSTILE, key: HOSTILE } }],
  ['revokeKey', { key: { id: HOSTILE, name: HOSTILE, prefix: HOSTILE } }],
  [
    'triggers',
    {
      triggers: [{ name: HOSTILE, watchPath: HOSTILE, when: [HOSTILE], state: badge('enabled'), actions: [HOSTILE] }],
      runs: [{ href: '/settings/runs/x#action-0', finishedAt: at, trigger: HOSTILE, action: HOSTILE, status: badge('failed'), attempts: 1, error: HOSTILE }],
    },
  ],
  [
    'run',
    {
      runId: HOSTILE,
      trigger: HOSTILE,
      configured: true,
      request: { watchPath: HOSTILE, receivedAt: at },
      actions: [
        {
          index: 0,
          type: 'command',
          status: badge('failed'),
          startedAt: at,
          took: '1 s',
          attempts: 1,
          exitCode: 3,
          httpStatus: null,
          error: HOSTILE,
          output: HOSTILE,
          rendered: { type: 'command', template: HOSTILE, values: [{ token: HOSTILE, variable: 'AGW_ARG_1', value: HOSTILE }] },
        },
        {
          index: 1,
          type: 'webhook',
          status: badge('succeeded'),
          startedAt: at,
          took: '1 s',
          attempts: 1,
          exitCode: null,
          httpStatus: 200,
          error: null,
          output: null,
          rendered: { type: 'webhook', method: 'POST', target: HOSTILE },
        },
        {
          index: 2,
          type: 'agent',
          status: badge('succeeded'),
          startedAt: at,
          took: '1 s',
          attempts: 1,
          exitCode: null,
          httpStatus: null,
          error: null,
          output: null,
          rendered: { type: 'agent', template: HOSTILE, jobId: HOSTILE },
        },
      ],
    },
  ],
  ['jobs', { jobs: [{ id: HOSTILE, shortId: HOSTILE, status: badge('running'), source: HOSTILE, prompt: HOSTILE, createdAt: at, cancellable: true }] }],
  [
    'job',
    {
      job: { id: HOSTILE, source: HOSTILE, branch: HOSTILE, provider: HOSTILE, model: HOSTILE, createdAt: at, prompt: HOSTILE },
      live: {
        id: HOSTILE,
        polling: true,
        cancellable: true,
        status: badge('running'),
        prUrl: { href: null, text: HOSTILE },
        runUrl: null,
        updatedAt: at,
        summary: HOSTILE,
        error: HOSTILE,
        log: HOSTILE,
      },
    },
  ],
  ['cancelJob', { job: { id: HOSTILE, shortId: HOSTILE, status: badge('running'), prompt: HOSTILE, cancellable: true } }],
  [
    'messaging',
    {
      channels: [
        {
          id: HOSTILE,
          title: HOSTILE,
          configured: true,
          registers: true,
          webhook: { url: HOSTILE, pendingUpdateCount: 1, lastErrorMessage: HOSTILE },
          lastErrorAt: at,
          allowedChatIds: [HOSTILE],
          variables: { botToken: HOSTILE, webhookSecret: HOSTILE, allowedChats: HOSTILE },
        },
        {
          id: HOSTILE,
          title: HOSTILE,
          configured: true,
          registers: false,
          allowedChatIds: [HOSTILE],
          variables: { botToken: HOSTILE, webhookSecret: HOSTILE, allowedChats: HOSTILE },
        },
        {
          id: 'off',
          title: HOSTILE,
          configured: false,
          registers: true,
          allowedChatIds: [],
          variables: { botToken: HOSTILE, webhookSecret: HOSTILE, allowedChats: HOSTILE },
        },
      ],
    },
  ],
  [
    'health',
    {
      facts: { version: HOSTILE, databaseEngine: HOSTILE, jobRunner: HOSTILE, startedAt: at },
      uptime: HOSTILE,
      queues: { head: [HOSTILE], rows: [[HOSTILE, 1]] },
      jobs: { head: [HOSTILE], rows: [] },
      runs: { head: [HOSTILE], rows: [[HOSTILE, 2]] },
      tables: [{ name: HOSTILE, rows: HOSTILE, bytes: 1, size: HOSTILE }],
    },
  ],
  ['chat', { turns: [{ role: 'user', who: 'You', text: HOSTILE }] }],
];

describe('AdminViews', () => {
  const views = new AdminViews();

  for (const [view, model] of pages) {
    it(`escapes every value of the ${view} page`, () => {
      const html = views.page(view, { title: HOSTILE, csrf: HOSTILE, section: 'jobs', flash: { kind: 'error', text: HOSTILE } }, { ...model, csrf: HOSTILE });
      expect(html).to.match(/^<!doctype html>/);
      expect(html).not.to.contain('<script>alert').and.not.to.contain('"\'&');
      expect(html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
    });
  }

  it('marks the current section, and only it, in the navigation of a signed-in page', () => {
    const html = views.page('chat', { title: 'Chat', csrf: 'c', section: 'chat' }, { turns: [], csrf: 'c' });
    expect(html.match(/aria-current="page"/g)).to.have.length(1);
    expect(html).to.contain('<a href="/settings/chat" aria-current="page">Chat</a>');
  });

  it('tells on the closed page to set the password with the server’s DATA_DIR or DATABASE_URL (set on another database, it opens nothing)', () => {
    const text = views.page('closed', { title: 'Admin UI closed' }, {}).replace(/<[^>]*>/g, '');
    expect(text).to.contain('npx agent-gateway admin set-password');
    expect(text).to.contain("Run it with the server's DATA_DIR or DATABASE_URL");
    expect(text).to.contain('Set elsewhere, the password does not open this page.');
  });

  it('loads no script on a page without a session, the copy script on signed-in pages, htmx only where asked', () => {
    expect(views.page('login', { title: 'Log in' }, {})).not.to.contain('<script');
    const signedIn = views.page('chat', { title: 'Chat', csrf: 'c', section: 'chat' }, { turns: [], csrf: 'c' });
    expect(signedIn).to.contain('/settings/static/ui.js').and.not.to.contain('htmx.min.js');
    expect(views.page('chat', { title: 'Chat', csrf: 'c', htmx: true }, { turns: [], csrf: 'c' })).to.contain('/settings/static/htmx.min.js');
  });

  it('tells the operator of a channel with no bot token that registering needs PUBLIC_URL, and one whose platform is set up in its own console where it delivers', () => {
    const channel = {
      title: 'Telegram',
      configured: false,
      allowedChatIds: [],
      variables: { botToken: 'TELEGRAM_BOT_TOKEN', webhookSecret: 'S', allowedChats: 'A' },
    };
    const html = views.page(
      'messaging',
      { title: 'Chat', csrf: 'c', section: 'messaging' },
      { csrf: 'c', channels: [{ ...channel, id: 'telegram', registers: true }] },
    );
    expect(html).to.contain('<code>POST /api/messaging/telegram/register</code> once <code>PUBLIC_URL</code> is set');
    const slack = views.page(
      'messaging',
      { title: 'Chat', csrf: 'c', section: 'messaging' },
      { csrf: 'c', channels: [{ ...channel, id: 'slack', registers: false }] },
    );
    expect(slack).to.contain('No bot token is configured (<code>TELEGRAM_BOT_TOKEN</code>).').and.not.to.contain('PUBLIC_URL');
  });

  it('says on the deliveries page how long a request is kept: RETENTION_ACTION_RUNS_DAYS, never less than 15 days', () => {
    const html = views.page(
      'deliveries',
      { title: 'Deliveries', csrf: 'c', section: 'deliveries' },
      { filter: { path: '', trigger: '' }, filtered: false, deliveries: [], csrf: 'c' },
    );
    expect(html).to.contain('is kept here for <code>RETENTION_ACTION_RUNS_DAYS</code>, and never less than 15 days (for good when it is 0)');
  });

  it('links only an http(s) URL from an outside system', () => {
    const job = (prUrl: { href: string | null; text: string }) =>
      views.fragment('jobLive', {
        live: {
          id: 'j',
          polling: false,
          cancellable: false,
          status: badge('succeeded'),
          prUrl,
          runUrl: null,
          updatedAt: at,
          summary: null,
          error: null,
          log: null,
        },
      });
    expect(job({ href: 'https://github.test/pr/1', text: 'https://github.test/pr/1' })).to.contain('<a href="https://github.test/pr/1" rel="noreferrer">');
    expect(job({ href: null, text: 'javascript:alert(1)' }))
      .to.contain('javascript:alert(1)')
      .and.not.to.contain('href="javascript');
  });
});

describe('chatFailureMessage', () => {
  it('says what to check for each reason, names the request id, and never quotes the provider', () => {
    const cases: Array<[unknown, string]> = [
      [
        new AiCallFailed('not_configured', 'No LLM provider is configured (LLM_PROVIDER)'),
        'The chat has no AI provider to ask: No LLM provider is configured (LLM_PROVIDER). Set LLM_PROVIDER',
      ],
      [new DomainError('not_configured', 'Jobs are not configured'), 'The chat has no AI provider to ask: Jobs are not configured.'],
      [new AiCallFailed('unreachable', 'Cannot connect to API: sk-quoted'), 'The AI provider could not be reached. Check its base URL'],
      [new AiCallFailed('timeout', 'no answer within 10 ms'), 'did not answer in time (LLM_TIMEOUT_SECONDS)'],
      [new AiCallFailed('refused', 'Incorrect API key sk-quoted', { httpStatus: 403 }), 'refused the request (HTTP 403). Check the API key'],
      [new AiCallFailed('unavailable', 'overloaded sk-quoted', { httpStatus: 429 }), 'overloaded or failing (HTTP 429)'],
      [new Error('database down sk-quoted'), 'The message could not be answered.'],
    ];
    for (const [error, expected] of cases) {
      const message = chatFailureMessage(error, 'req-1');
      expect(message)
        .to.contain(expected)
        .and.to.match(/under request id req-1\.$/)
        .and.not.to.contain('sk-quoted');
    }
  });
});

describe('promptGlimpse', () => {
  it('shows what a prompt with outside text asks, not the notice about its untrusted blocks', () => {
    const prompt = renderPrompt('Review {{body.branch}} carefully', snapshotRequest({ branch: 'main' }, {}, {}), '00000000-0000-4000-8000-000000000001');
    expect(promptGlimpse(prompt)).to.equal('Review “main” carefully');
    expect(promptGlimpse('Untrusted input: my own words\n\nand more')).to.equal('Untrusted input: my own words and more');
  });
});
