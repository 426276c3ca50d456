import { Migration20261123000000_api_keys } from './Migration20261123000000_api_keys.js';
import { Migration20261123010000_trigger_runs } from './Migration20261123010000_trigger_runs.js';
import { Migration20261123020000_jobs } from './Migration20261123020000_jobs.js';
import { Migration20261123030000_chat } from './Migration20261123030000_chat.js';
import { Migration20261123040000_admin } from './Migration20261123040000_admin.js';
import { Migration20261124000000_inbound_requests } from './Migration20261124000000_inbound_requests.js';
import { Migration20261124100000_admin_login_attempts } from './Migration20261124100000_admin_login_attempts.js';
import { Migration20261124100100_api_keys_notify_insert } from './Migration20261124100100_api_keys_notify_insert.js';
import { Migration20261125000000_retention_indexes } from './Migration20261125000000_retention_indexes.js';
import { Migration20261126100000_delivery_log } from './Migration20261126100000_delivery_log.js';
import { Migration20261126110000_trigger_lanes } from './Migration20261126110000_trigger_lanes.js';
import { Migration20261126173000_idempotency_keys } from './Migration20261126173000_idempotency_keys.js';
import { Migration20261127000000_poller_leases } from './Migration20261127000000_poller_leases.js';
import { Migration20261127200000_approvals } from './Migration20261127200000_approvals.js';
import { Migration20261127300000_schedule_runs } from './Migration20261127300000_schedule_runs.js';
import { Migration20261128000000_inbound_requests_dispatched } from './Migration20261128000000_inbound_requests_dispatched.js';
import { Migration20261130000000_jobs_notice_queued } from './Migration20261130000000_jobs_notice_queued.js';
import { Migration20261130100000_chat_album_items } from './Migration20261130100000_chat_album_items.js';
import { Migration20261130200000_codehost_delivery_bodies } from './Migration20261130200000_codehost_delivery_bodies.js';
import { Migration20261130300000_schedule_run_fingerprints } from './Migration20261130300000_schedule_run_fingerprints.js';
import { Migration20261201000000_admin_session_password } from './Migration20261201000000_admin_session_password.js';
import { Migration20261201120000_chat_turn_answer_keys } from './Migration20261201120000_chat_turn_answer_keys.js';
import { Migration20261201130000_job_merge_commits } from './Migration20261201130000_job_merge_commits.js';

/**
 * Every migration, oldest first. Append new ones; never edit or reorder a released one:
 * deployments that already ran it would never see the change.
 */
export const MIGRATIONS = [
  Migration20261123000000_api_keys,
  Migration20261123010000_trigger_runs,
  Migration20261123020000_jobs,
  Migration20261123030000_chat,
  Migration20261123040000_admin,
  Migration20261124000000_inbound_requests,
  Migration20261124100000_admin_login_attempts,
  Migration20261124100100_api_keys_notify_insert,
  Migration20261125000000_retention_indexes,
  Migration20261126100000_delivery_log,
  Migration20261126110000_trigger_lanes,
  Migration20261126173000_idempotency_keys,
  Migration20261127000000_poller_leases,
  Migration20261127200000_approvals,
  Migration20261127300000_schedule_runs,
  Migration20261128000000_inbound_requests_dispatched,
  Migration20261130000000_jobs_notice_queued,
  Migration20261130100000_chat_album_items,
  Migration20261130200000_codehost_delivery_bodies,
  Migration20261130300000_schedule_run_fingerprints,
  Migration20261201000000_admin_session_password,
  Migration20261201120000_chat_turn_answer_keys,
  Migration20261201130000_job_merge_commits,
];
