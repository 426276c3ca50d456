import type { ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import type { Logger as Pino } from 'pino';
import type { KeyAdministration } from '../application/ApiKeyAdministration.js';
import type { AuthenticateApiKey } from '../application/AuthenticateApiKey.js';
import type { CreateApiKey } from '../application/CreateApiKey.js';
import type { CreateJob } from '../application/CreateJob.js';
import type { ListApiKeys } from '../application/ListApiKeys.js';
import type { RevokeApiKey } from '../application/RevokeApiKey.js';
import type { Database } from '../adapters/persistence/Database.js';
import type { ApiKeyCrypto } from '../ports/ApiKeyCrypto.js';
import type { Clock } from '../ports/Clock.js';
import type { IdGenerator } from '../ports/IdGenerator.js';
import type { KeyRepository } from '../ports/KeyRepository.js';
import type { Logger } from '../ports/Logger.js';
import type { AppConfig } from './config.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`agent-gateway.${name}`);

/** Every binding of the composition root. */
export const TOKENS = {
  Config: token<AppConfig>('Config'),
  Pino: token<Pino>('Pino'),
  Logger: token<Logger>('Logger'),
  Database: token<Database>('Database'),
  Clock: token<Clock>('Clock'),
  IdGenerator: token<IdGenerator>('IdGenerator'),
  ApiKeyCrypto: token<ApiKeyCrypto>('ApiKeyCrypto'),
  KeyRepository: token<KeyRepository>('KeyRepository'),
  AuthenticateApiKey: token<AuthenticateApiKey>('AuthenticateApiKey'),
  CreateApiKey: token<CreateApiKey>('CreateApiKey'),
  ListApiKeys: token<ListApiKeys>('ListApiKeys'),
  RevokeApiKey: token<RevokeApiKey>('RevokeApiKey'),
  KeyAdministration: token<KeyAdministration>('KeyAdministration'),
  CreateJob: token<CreateJob>('CreateJob'),
  HttpApp: token<Koa>('HttpApp'),
} as const;
