import { Migration } from '@mikro-orm/migrations';

/**
 * Each admin session records the SHA-256 (hex) of the password hash its login checked, and counts
 * only while that is the digest of the stored hash: a login whose check was under way while the
 * password changed leaves no session that counts (admin review 1). Sessions made before this
 * migration keep a null digest, which never matches: they end (the admin logs in again); no
 * other data changes.
 */
export class Migration20261201000000_admin_session_password extends Migration {
  override name = 'Migration20261201000000_admin_session_password';

  override up(): void {
    this.addSql('alter table admin_sessions add column password_digest char(64) null');
  }

  override down(): void {
    // Without the digest, the sessions of a replaced password would count again.
    this.addSql('delete from admin_sessions');
    this.addSql('alter table admin_sessions drop column if exists password_digest');
  }
}
