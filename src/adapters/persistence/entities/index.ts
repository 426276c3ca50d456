import { ActionRunEntity } from './ActionRunEntity.js';
import { AdminLoginAttemptEntity } from './AdminLoginAttemptEntity.js';
import { AdminSessionEntity } from './AdminSessionEntity.js';
import { ApiKeyEntity } from './ApiKeyEntity.js';
import { ChatTurnEntity } from './ChatTurnEntity.js';
import { CodehostDeliveryEntity } from './CodehostDeliveryEntity.js';
import { InboundRequestEntity } from './InboundRequestEntity.js';
import { JobEntity } from './JobEntity.js';
import { SettingEntity } from './SettingEntity.js';

/**
 * Every table the service owns, mapped as the migrations create it: the schema diff against a
 * migrated database is empty (test/integration/persistence/schemaDrift.test.ts).
 */
export const ENTITIES = [
  ActionRunEntity,
  AdminLoginAttemptEntity,
  AdminSessionEntity,
  ApiKeyEntity,
  ChatTurnEntity,
  CodehostDeliveryEntity,
  InboundRequestEntity,
  JobEntity,
  SettingEntity,
];
