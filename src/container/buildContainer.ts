import { Container } from 'inversify';
import { bindChat } from './bindings/chatBindings.js';
import { bindCore } from './bindings/coreBindings.js';
import { bindHttp } from './bindings/httpBindings.js';
import { bindJobs } from './bindings/jobBindings.js';
import { bindKeys } from './bindings/keyBindings.js';
import { bindRetention } from './bindings/retentionBindings.js';
import { bindTriggers } from './bindings/triggerBindings.js';
import type { AppConfig } from './config.js';
import type { Infrastructure } from './Infrastructure.js';

export type { Infrastructure } from './Infrastructure.js';

/**
 * The composition root: every port bound to its adapter, every use case built from ports,
 * one file per capability under `bindings/`. Resolve with `getAsync` (some adapters start
 * asynchronously); `unbindAllAsync` stops them. Tests call it with their own infrastructure
 * and rebind what they fake.
 */
export const buildContainer = (config: AppConfig, infra: Infrastructure): Container => {
  const c = new Container({ defaultScope: 'Singleton' });
  bindCore(c, config, infra);
  bindKeys(c);
  bindTriggers(c, config, infra);
  bindJobs(c, config);
  bindChat(c, config);
  bindHttp(c, config);
  bindRetention(c, config);
  return c;
};
