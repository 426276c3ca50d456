import { defineEntity, p } from '@mikro-orm/core';

/** Mapping of `chat_album_items`: one row per message of a chat album (Migration20261130100000_chat_album_items). */
export const ChatAlbumItemEntity = defineEntity({
  name: 'ChatAlbumItem',
  tableName: 'chat_album_items',
  properties: {
    album: p.string().length(300).primary(),
    item: p.string().length(100).primary(),
    /** The message as JSON. */
    message: p.text(),
    arrivedAt: p.datetime().fieldName('arrived_at').index('chat_album_items_arrived_at_idx'),
  },
});
