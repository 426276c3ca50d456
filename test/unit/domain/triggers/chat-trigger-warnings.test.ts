import { expect } from 'chai';
import { SLACK } from '../../../../src/adapters/messaging/slack/slack.js';
import { TELEGRAM } from '../../../../src/adapters/messaging/telegram/telegram.js';
import { apiRoutes, watchPathOf } from '../../../../src/domain/auth/route-policy.js';
import { chatIdFieldsByWatchPath } from '../../../../src/container/channels/index.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { chatTriggerWarnings } from '../../../../src/domain/triggers/chat-trigger-warnings.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';

const entry = (name: string, watchPath: string, extra: Record<string, unknown> = {}) => ({
  name,
  watch_path: watchPath,
  enabled: true,
  actions: [{ type: 'command', command: 'make' }],
  ...extra,
});

const warnedOf = (...entries: unknown[]): string[] => {
  const { triggers, problems } = validateTriggers(entries, 'config/TRIGGERS.json', triggerCatalog());
  expect(problems).to.deep.equal([]);
  return chatTriggerWarnings(triggers, chatIdFieldsByWatchPath()).map((warning) => warning.match(/^trigger "([^"]+)"/)?.[1] ?? warning);
};

describe('chatTriggerWarnings', () => {
  it('names each enabled trigger on a chat endpoint that fires for every chat, on the alias path too', () => {
    expect(
      warnedOf(
        entry('any-telegram', '/messaging/telegram/webhook'),
        entry('any-alias', '/messaging/webhook'),
        entry('any-slack', '/messaging/slack/webhook', { when: { 'body.event.type': { equals: 'message' } } }),
      ),
    ).to.deep.equal(['any-telegram', 'any-alias', 'any-slack']);
  });

  it('says what to add', () => {
    const { triggers } = validateTriggers([entry('open', '/messaging/telegram/webhook')], 'config/TRIGGERS.json', triggerCatalog());
    expect(chatTriggerWarnings(triggers, chatIdFieldsByWatchPath())[0])
      .to.contain('anyone who can message the bot fires it')
      .and.to.contain('"body.message.chat.id"');
  });

  it('says nothing of a trigger tested on the chat id, a disabled one, or one on another endpoint', () => {
    expect(
      warnedOf(
        entry('ops-telegram', '/messaging/telegram/webhook', { when: { 'body.message.chat.id': { in: [-1001234567890] } } }),
        entry('ops-posts', '/messaging/webhook', { when: { 'body.channel_post.chat.id': { equals: -100123 } } }),
        entry('ops-slack', '/messaging/slack/webhook', { when: { 'body.event.channel': { equals: 'C0123ABCDEF' } } }),
        entry('off', '/messaging/telegram/webhook', { enabled: false }),
        entry('api', '/webhook'),
        entry('register', '/messaging/telegram/register'),
        entry('codehost', '/codehost/webhook'),
      ),
    ).to.deep.equal([]);
  });

  it("suggests a Slack trigger Slack's own field, never Telegram's (a Slack trigger on body.message.chat.id never fires)", () => {
    const { triggers } = validateTriggers([entry('open-slack', '/messaging/slack/webhook')], 'config/TRIGGERS.json', triggerCatalog());
    const [warning] = chatTriggerWarnings(triggers, chatIdFieldsByWatchPath());
    expect(warning).to.contain('"when": {"body.event.channel": {"in": [<your chat ids>]}}');
    expect(warning).not.to.contain('chat.id');
  });

  it('warns of a Slack trigger tested on a Telegram chat field only: it names no Slack channel', () => {
    expect(warnedOf(entry('slack-on-telegram-field', '/messaging/slack/webhook', { when: { 'body.message.chat.id': { in: [42] } } }))).to.deep.equal([
      'slack-on-telegram-field',
    ]);
  });

  describe('with a third channel, declared by its binding only', () => {
    const matrix = { id: 'matrix', registers: false, chatIdFields: ['body.room_id'] };
    const bindings = [
      { id: TELEGRAM.id, registers: TELEGRAM.registers, chatIdFields: TELEGRAM.chatIdFields },
      { id: SLACK.id, registers: SLACK.registers, chatIdFields: SLACK.chatIdFields },
      matrix,
    ];
    const routes = apiRoutes(bindings, TELEGRAM.id);
    const catalog = {
      watchPaths: routes.filter((route) => route.auth !== 'public').map(watchPathOf),
      publicWatchPaths: routes.filter((route) => route.auth === 'public').map(watchPathOf),
      llmProviders: [],
    };
    const warn = (...entries: unknown[]): string[] => {
      const { triggers, problems } = validateTriggers(entries, 'config/TRIGGERS.json', catalog);
      expect(problems).to.deep.equal([]);
      return chatTriggerWarnings(triggers, chatIdFieldsByWatchPath(bindings, TELEGRAM.id));
    };

    it('says nothing of its trigger tested on its own chat field', () => {
      expect(warn(entry('ops-matrix', '/messaging/matrix/webhook', { when: { 'body.room_id': { equals: '!ops:example.org' } } }))).to.deep.equal([]);
    });

    it("warns of its trigger with no test, or tested on another channel's field, suggesting its own field", () => {
      const warnings = warn(
        entry('open-matrix', '/messaging/matrix/webhook'),
        entry('matrix-on-slack-field', '/messaging/matrix/webhook', { when: { 'body.event.channel': { equals: 'C0123ABCDEF' } } }),
      );
      expect(warnings.map((warning) => warning.match(/^trigger "([^"]+)"/)?.[1])).to.deep.equal(['open-matrix', 'matrix-on-slack-field']);
      for (const warning of warnings) expect(warning).to.contain('"when": {"body.room_id": {"in": [<your chat ids>]}}');
    });

    it("keeps the other channels as they are (the alias path is Telegram's)", () => {
      expect(
        warn(
          entry('ops-alias', '/messaging/webhook', { when: { 'body.callback_query.message.chat.id': { equals: 42 } } }),
          entry('ops-slack', '/messaging/slack/webhook', { when: { 'body.event.channel': { equals: 'C0123ABCDEF' } } }),
          entry('register', '/messaging/telegram/register'),
        ),
      ).to.deep.equal([]);
    });
  });
});
