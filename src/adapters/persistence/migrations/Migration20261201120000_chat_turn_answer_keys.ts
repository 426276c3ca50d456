import { Migration } from '@mikro-orm/migrations';

/**
 * The answer a chat turn belongs to (`answer_key`: a chat task's `task:<id>`, the same in every
 * attempt of the task), stored with the exchange in the statement that stores it: an attempt run
 * again after a kill finds the answer an earlier one stored, sends it instead of asking the model
 * again, and stores no second exchange (ConversationStore.appendAnswer). One user and one
 * assistant turn per key (the unique index, on keyed rows only). Turns stored before have none.
 */
export class Migration20261201120000_chat_turn_answer_keys extends Migration {
  override name = 'Migration20261201120000_chat_turn_answer_keys';

  override up(): void {
    this.addSql('alter table chat_turns add column answer_key varchar(255) null');
    this.addSql('create unique index chat_turns_answer_key_idx on chat_turns (answer_key, role) where answer_key is not null');
  }

  override down(): void {
    this.addSql('drop index if exists chat_turns_answer_key_idx');
    this.addSql('alter table chat_turns drop column if exists answer_key');
  }
}
