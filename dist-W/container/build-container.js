import { Container } from 'inversify';
import { bindChat } from './bindings/chat-bindings.js';
import { bindCore } from './bindings/core-bindings.js';
import { bindHttp } from './bindings/http-bindings.js';
import { bindJobs } from './bindings/job-bindings.js';
import { bindKeys } from './bindings/key-bindings.js';
import { bindPolling } from './bindings/polling-bindings.js';
import { bindRetention } from './bindings/retention-bindings.js';
import { bindSchedules } from './bindings/schedule-bindings.js';
import { bindTriggers } from './bindings/trigger-bindings.js';
/**
 * The composition root: every port bound to its adapter, every use case built from ports,
 * one file per capability under `bindings/`. Resolve with `getAsync` (some adapters start
 * asynchronously); `unbindAllAsync` stops them. Tests call it with their own infrastructure
 * and rebind what they fake.
 */
export const buildContainer = (config, infra) => {
    const c = new Container({ defaultScope: 'Singleton' });
    bindCore(c, config, infra);
    bindKeys(c);
    bindTriggers(c, config, infra);
    bindSchedules(c, config, infra);
    bindJobs(c, config);
    bindChat(c, config);
    bindPolling(c);
    bindHttp(c, config);
    bindRetention(c, config);
    return c;
};
//# sourceMappingURL=build-container.js.map