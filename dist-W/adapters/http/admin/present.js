import { headOf } from '../../../domain/text/cut-text.js';
const pad = (n) => String(n).padStart(2, '0');
/** `2026-11-24 15:04 UTC`. */
export const stampText = (date) => `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`;
/** How long ago (or ahead) `date` is from `now`, in the largest unit that reads naturally. */
export const relative = (date, now) => {
    const seconds = Math.round((now.getTime() - date.getTime()) / 1000);
    const abs = Math.abs(seconds);
    const say = (amount, unit) => (seconds >= 0 ? `${amount} ${unit} ago` : `in ${amount} ${unit}`);
    if (abs < 60)
        return seconds >= 0 ? 'just now' : 'in a moment';
    if (abs < 3600)
        return say(Math.floor(abs / 60), 'min');
    if (abs < 48 * 3600)
        return say(Math.floor(abs / 3600), 'h');
    if (abs < 31 * 86400)
        return say(Math.floor(abs / 86400), 'days');
    return null;
};
export const stamp = (date, now) => ({ iso: date.toISOString(), text: stampText(date), ago: relative(date, now) });
/** A stamp, or null for no date (shown as a dash). */
export const maybeStamp = (date, now) => (date ? stamp(date, now) : null);
/** `1.2 s`, `340 ms`, `2 min 5 s`. */
export const duration = (ms) => {
    if (ms < 1000)
        return `${Math.max(0, Math.round(ms))} ms`;
    if (ms < 60_000)
        return `${(ms / 1000).toFixed(1)} s`;
    const seconds = Math.round(ms / 1000);
    if (seconds < 3600)
        return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
    return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
};
/** `8.0 KiB`, `1.5 MiB`. */
export const bytes = (n) => {
    if (n < 1024)
        return `${n} B`;
    const units = ['KiB', 'MiB', 'GiB', 'TiB'];
    let value = n / 1024;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
        value /= 1024;
        unit++;
    }
    return `${value.toFixed(1)} ${units[unit]}`;
};
/**
 * A list's glimpse of a longer text: whitespace runs as single spaces, at most `max`
 * characters, cut at the last word boundary (unless that loses more than a third) with an
 * ellipsis; never half a surrogate pair.
 */
export const excerpt = (text, max) => {
    const flat = text.replace(/\s+/g, ' ').trim();
    if (flat.length <= max)
        return flat;
    const cut = headOf(flat, max - 1);
    const space = cut.lastIndexOf(' ');
    const atWord = space >= (max * 2) / 3 ? cut.slice(0, space) : cut;
    return `${atWord.replace(/[\s.,;:!?-]+$/, '')}…`;
};
/** Status words that get a badge, and the class that colours it. */
const BADGES = new Set([
    'queued',
    'running',
    'succeeded',
    'failed',
    'cancelled',
    'not_runnable',
    'enabled',
    'disabled',
    'pending',
    'awaiting_approval',
    'approved',
    'denied',
    'expired',
    'missed',
    'skipped',
]);
/** A status badge: its text (underscores as spaces) and its CSS class. */
export const badge = (status) => ({
    text: status.replace(/_/g, ' '),
    className: `badge badge-${BADGES.has(status) ? status : 'other'}`,
});
//# sourceMappingURL=present.js.map