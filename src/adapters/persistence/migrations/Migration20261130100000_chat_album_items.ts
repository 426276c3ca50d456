import { Migration } from '@mikro-orm/migrations';

/**
 * The messages of chat albums (sent together, delivered one by one), each stored as it arrives
 * so that the album's one answer reads them all. A new table: nothing stored before changes.
 */
export class Migration20261130100000_chat_album_items extends Migration {
  override name = 'Migration20261130100000_chat_album_items';

  override up(): void {
    this.addSql(`create table chat_album_items (
      album varchar(300) not null,
      item varchar(100) not null,
      message text not null,
      arrived_at timestamptz not null,
      primary key (album, item)
    )`);
    this.addSql('create index chat_album_items_arrived_at_idx on chat_album_items (arrived_at)');
  }

  override down(): void {
    this.addSql('drop table if exists chat_album_items');
  }
}
