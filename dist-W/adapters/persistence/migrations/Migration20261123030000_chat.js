import { Migration } from '@mikro-orm/migrations';
/** Chat memory and service settings (the registered bot token). */
export class Migration20261123030000_chat extends Migration {
    name = 'Migration20261123030000_chat';
    up() {
        this.addSql(`create table chat_turns (
      id bigserial primary key,
      thread_id varchar(200) not null,
      role varchar(16) not null check (role in ('user', 'assistant')),
      text text not null,
      created_at timestamptz not null default now()
    )`);
        this.addSql('create index chat_turns_thread_idx on chat_turns (thread_id, id desc)');
        this.addSql(`create table settings (
      key varchar(100) primary key,
      value text not null,
      updated_at timestamptz not null default now()
    )`);
    }
    down() {
        this.addSql('drop table if exists settings');
        this.addSql('drop table if exists chat_turns');
    }
}
//# sourceMappingURL=Migration20261123030000_chat.js.map