import { Container } from 'inversify';
import { bindAdminAuthentication } from './bindings/admin-bindings.js';
import { bindBasics } from './bindings/basic-bindings.js';
import { bindKeys } from './bindings/key-bindings.js';
/**
 * The container of the CLI when it works on a database itself (PostgreSQL, or an embedded
 * database no server holds): the shared basics, the key use cases and the admin
 * authentication, bound as the service binds them. Not the HTTP app, the task queue, the
 * agents or the chat channels: loading their modules cost the CLI most of a second, for
 * nothing it uses. Resolve with `getAsync`; `unbindAllAsync` stops what started.
 */
export const buildAdministrationContainer = (config, infra) => {
    const c = new Container({ defaultScope: 'Singleton' });
    bindBasics(c, config, infra);
    bindKeys(c);
    bindAdminAuthentication(c);
    return c;
};
//# sourceMappingURL=build-administration-container.js.map