import type { DeliveryLog } from '../../ports/DeliveryLog.js';
import type { Database } from './Database.js';

export class MikroOrmDeliveryLog implements DeliveryLog {
  constructor(private readonly db: Database) {}

  async recordFirst(deliveryId: string, event: string): Promise<boolean> {
    const rows = await this.db.execute(
      'insert into codehost_deliveries (delivery_id, event) values (?, ?) on conflict (delivery_id) do nothing returning delivery_id',
      [deliveryId, event],
    );
    return rows.length === 1;
  }

  async forget(deliveryId: string): Promise<void> {
    await this.db.execute('delete from codehost_deliveries where delivery_id = ?', [deliveryId]);
  }
}
