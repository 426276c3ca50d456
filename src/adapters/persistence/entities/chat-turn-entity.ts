import { defineEntity, p } from '@mikro-orm/core';

/** Mapping of `chat_turns`: chat memory, one row per turn (Migration20261123030000_chat). */
export const ChatTurnEntity = defineEntity({
  name: 'ChatTurn',
  tableName: 'chat_turns',
  properties: {
    // bigserial: read as a string, which keeps every value exact.
    id: p.bigint('string').primary().autoincrement(),
    threadId: p.string().length(200).fieldName('thread_id'),
    role: p.string().length(16).check("role in ('user', 'assistant')"),
    text: p.text(),
    createdAt: p.datetime().fieldName('created_at').defaultRaw('now()').index('chat_turns_created_at_idx'),
    /** The answer (a chat task's) the turn belongs to; null for turns stored without one (Migration20261201120000_chat_turn_answer_keys). */
    answerKey: p.string().length(255).fieldName('answer_key').nullable(),
  },
  // As SQL: MikroORM 7.2.1 reads this index back without its DESC (its parser finds `id` inside
  // `thread_id`), and would count a column list as drift. An expression is compared by name.
  indexes: [
    { name: 'chat_turns_thread_idx', expression: 'create index "chat_turns_thread_idx" on "chat_turns" ("thread_id", "id" desc)' },
    {
      name: 'chat_turns_answer_key_idx',
      expression: 'create unique index "chat_turns_answer_key_idx" on "chat_turns" ("answer_key", "role") where "answer_key" is not null',
    },
  ],
});
