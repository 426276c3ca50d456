import { ActionRunEntity } from './action-run-entity.js';
import { AdminLoginAttemptEntity } from './admin-login-attempt-entity.js';
import { AdminSessionEntity } from './admin-session-entity.js';
import { ApiKeyEntity } from './api-key-entity.js';
import { ApprovalEntity } from './approval-entity.js';
import { ChatAlbumItemEntity } from './chat-album-item-entity.js';
import { ChatTurnEntity } from './chat-turn-entity.js';
import { CodehostDeliveryEntity } from './codehost-delivery-entity.js';
import { IdempotencyKeyEntity } from './idempotency-key-entity.js';
import { InboundRequestEntity } from './inbound-request-entity.js';
import { JobEntity } from './job-entity.js';
import { JobMergeCommitEntity } from './job-merge-commit-entity.js';
import { PollerLeaseEntity } from './poller-lease-entity.js';
import { ScheduleRunEntity } from './schedule-run-entity.js';
import { SettingEntity } from './setting-entity.js';
import { TriggerLaneEntity } from './trigger-lane-entity.js';

/**
 * Every table the service owns, mapped as the migrations create it: the schema diff against a
 * migrated database is empty (test/integration/persistence/schema-drift.test.ts).
 */
export const ENTITIES = [
  ActionRunEntity,
  AdminLoginAttemptEntity,
  AdminSessionEntity,
  ApiKeyEntity,
  ApprovalEntity,
  ChatAlbumItemEntity,
  ChatTurnEntity,
  CodehostDeliveryEntity,
  IdempotencyKeyEntity,
  InboundRequestEntity,
  JobEntity,
  JobMergeCommitEntity,
  PollerLeaseEntity,
  ScheduleRunEntity,
  SettingEntity,
  TriggerLaneEntity,
];
