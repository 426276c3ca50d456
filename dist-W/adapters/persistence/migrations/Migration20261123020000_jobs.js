import { Migration } from '@mikro-orm/migrations';
/** Agent jobs. */
export class Migration20261123020000_jobs extends Migration {
    name = 'Migration20261123020000_jobs';
    up() {
        this.addSql(`create table jobs (
      id uuid primary key,
      job text not null,
      status varchar(16) not null check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
      source_kind varchar(16) not null check (source_kind in ('api', 'trigger', 'chat')),
      source_ref varchar(200) null,
      llm_provider varchar(16) null,
      llm_model varchar(200) null,
      branch varchar(100) not null,
      pr_url text null,
      run_url text null,
      summary text null,
      error text null,
      log text null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`);
        this.addSql('create index jobs_status_created_idx on jobs (status, created_at desc)');
        this.addSql('create unique index jobs_branch_idx on jobs (branch)');
    }
    down() {
        this.addSql('drop table if exists jobs');
    }
}
//# sourceMappingURL=Migration20261123020000_jobs.js.map