import { expect } from 'chai';
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
  return chatTriggerWarnings(triggers).map((warning) => warning.match(/^trigger "([^"]+)"/)?.[1] ?? warning);
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
    expect(chatTriggerWarnings(triggers)[0]).to.contain('anyone who can message the bot fires it').and.to.contain('"body.message.chat.id"');
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
});
