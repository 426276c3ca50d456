import { storableText } from '../../domain/text/storableText.js';
import type { InboundRequest, InboundRequestStore } from '../../ports/InboundRequestStore.js';
import type { Database } from './Database.js';
import { isUuid } from './isUuid.js';

interface Row {
  id: string;
  watch_path: string;
  received_at: Date | string;
  triggers: string[] | string;
  request: string;
}

/** `inbound_requests`, through the ORM's connection (PGlite or PostgreSQL alike). */
export class SqlInboundRequestStore implements InboundRequestStore {
  constructor(private readonly db: Database) {}

  async record(request: InboundRequest): Promise<void> {
    await this.db.execute(
      'insert into inbound_requests (id, watch_path, received_at, triggers, request) values (?, ?, ?, ?::jsonb, ?) on conflict (id) do nothing',
      [request.id, storableText(request.watchPath), request.receivedAt, JSON.stringify(request.triggers.map(storableText)), storableText(request.request)],
    );
  }

  async find(id: string): Promise<InboundRequest | null> {
    // Ids are UUIDs; anything else cannot be stored, and must not become a database error.
    if (!isUuid(id)) return null;
    const [row] = await this.db.execute<Row>('select id, watch_path, received_at, triggers, request from inbound_requests where id = ?', [id]);
    if (row === undefined) return null;
    return {
      id: row.id,
      watchPath: row.watch_path,
      receivedAt: new Date(row.received_at),
      request: row.request,
      triggers: typeof row.triggers === 'string' ? (JSON.parse(row.triggers) as string[]) : row.triggers,
    };
  }
}
