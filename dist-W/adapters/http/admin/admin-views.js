import { Eta } from 'eta/core';
import { APPROVAL_VIEWS } from './views/approvals.js';
import { AUTH_VIEWS } from './views/auth.js';
import { DELIVERY_VIEWS } from './views/deliveries.js';
import { JOB_VIEWS } from './views/jobs.js';
import { KEY_VIEWS } from './views/keys.js';
import { LAYOUT_VIEWS } from './views/layout.js';
import { SCHEDULE_VIEWS } from './views/schedules.js';
import { STATUS_VIEWS } from './views/status.js';
import { TRIGGER_VIEWS } from './views/triggers.js';
const TEMPLATES = {
    ...LAYOUT_VIEWS,
    ...AUTH_VIEWS,
    ...KEY_VIEWS,
    ...TRIGGER_VIEWS,
    ...SCHEDULE_VIEWS,
    ...DELIVERY_VIEWS,
    ...APPROVAL_VIEWS,
    ...JOB_VIEWS,
    ...STATUS_VIEWS,
};
/** The sections of the navigation, in its order. */
export const SECTIONS = [
    { id: 'keys', href: '/settings/keys', label: 'API keys' },
    { id: 'triggers', href: '/settings/triggers', label: 'Triggers' },
    { id: 'schedules', href: '/settings/schedules', label: 'Schedules' },
    { id: 'deliveries', href: '/settings/deliveries', label: 'Deliveries' },
    { id: 'approvals', href: '/settings/approvals', label: 'Approvals' },
    { id: 'jobs', href: '/settings/jobs', label: 'Jobs' },
    { id: 'messaging', href: '/settings/messaging', label: 'Messaging' },
    { id: 'chat', href: '/settings/chat', label: 'Chat' },
    { id: 'health', href: '/settings/health', label: 'Health' },
];
/**
 * The admin UI's templates (eta, auto-escaping every interpolation), compiled once when this is
 * built (at start-up): a template that does not compile stops the service from starting.
 */
export class AdminViews {
    #eta = new Eta({ autoEscape: true, cache: true, useWith: false, varName: 'it' });
    constructor() {
        for (const [name, template] of Object.entries(TEMPLATES))
            this.#eta.loadTemplate(`@${name}`, template);
    }
    /** A whole page: the view inside the layout. */
    page(view, frame, model = {}) {
        const signedIn = frame.csrf !== undefined;
        return this.#eta.render(`@${view}`, {
            ...model,
            title: frame.title,
            csrf: frame.csrf,
            flash: frame.flash,
            nav: SECTIONS.map((section) => ({ href: section.href, label: section.label, current: section.id === frame.section })),
            scripts: { ui: signedIn, htmx: signedIn && frame.htmx === true },
        });
    }
    /** A part of a page on its own (what htmx swaps in). */
    fragment(view, model) {
        return this.#eta.render(`@${view}`, model);
    }
}
//# sourceMappingURL=admin-views.js.map