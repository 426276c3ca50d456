import { storedMessage, type ChannelMessage } from '../../domain/messaging/channel-message.js';
import type { AlbumStore, StoredAlbum } from '../../ports/album-store.js';
import type { Database } from './database.js';

/** Album messages in `chat_album_items`, one row per message: the primary key keeps a redelivered one once, on any replica. */
export class MikroOrmAlbumStore implements AlbumStore {
  constructor(private readonly db: Database) {}

  async add(album: string, item: string, message: ChannelMessage, at: Date): Promise<void> {
    await this.db.orm.em
      .getConnection()
      .execute('insert into chat_album_items (album, item, message, arrived_at) values (?, ?, ?, ?) on conflict (album, item) do nothing', [
        album,
        item,
        JSON.stringify(message),
        at,
      ]);
  }

  async read(album: string): Promise<StoredAlbum> {
    const rows = (await this.db.orm.em
      .getConnection()
      .execute('select message, arrived_at from chat_album_items where album = ? order by arrived_at, item', [album])) as Array<{
      message: string;
      arrived_at: Date | string;
    }>;
    const last = rows.reduce<number | undefined>((latest, row) => Math.max(latest ?? 0, new Date(row.arrived_at).getTime()), undefined);
    return {
      items: rows.map((row) => storedMessage(JSON.parse(row.message) as ChannelMessage)),
      lastArrivedAt: last === undefined ? undefined : new Date(last),
    };
  }

  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const rows = (await this.db.orm.em.getConnection().execute(
      `delete from chat_album_items where (album, item) in (
         select album, item from chat_album_items where arrived_at < ? order by arrived_at limit ?
       ) returning item`,
      [cutoff, limit],
    )) as unknown[];
    return rows.length;
  }
}
