import { Migration } from '@mikro-orm/migrations';

/**
 * The SHA-256 of each code-host delivery's signed body, unique: the same signed body sent again
 * under another delivery id (a captured delivery replayed) is recognised as a repeat. Rows stored
 * before this (and chat updates) have none; they keep answering by their id as before.
 */
export class Migration20261130200000_codehost_delivery_bodies extends Migration {
  override name = 'Migration20261130200000_codehost_delivery_bodies';

  override up(): void {
    this.addSql('alter table codehost_deliveries add column body_sha256 char(64) null');
    this.addSql('alter table codehost_deliveries add constraint codehost_deliveries_body_sha256_unique unique (body_sha256)');
  }

  override down(): void {
    this.addSql('alter table codehost_deliveries drop constraint if exists codehost_deliveries_body_sha256_unique');
    this.addSql('alter table codehost_deliveries drop column if exists body_sha256');
  }
}
