import { showPage } from './admin-http.js';
import { bytes, duration, maybeStamp, stamp } from './present.js';
const counts = (head, rows) => ({ head, rows });
/** Messaging (every channel: its bot, webhook and allowed chats) and health (the service, its queues and tables). */
export const registerStatusPages = (router, tools) => {
    const { overview } = tools.deps;
    router.get('/settings/messaging', async (ctx) => {
        const now = new Date();
        const channels = (await overview.channels()).map((channel) => {
            const lastError = channel.webhook?.lastErrorDate !== undefined ? new Date(channel.webhook.lastErrorDate * 1000) : null;
            return { ...channel, lastErrorAt: maybeStamp(lastError, now) };
        });
        showPage(ctx, tools, 'messaging', 'Messaging', 'messaging', { channels });
    });
    router.get('/settings/health', async (ctx) => {
        const now = new Date();
        const [figures, tables] = await Promise.all([
            overview.figures(),
            // The page stays useful when the catalog cannot be read; the failure is on the page.
            overview.tableSizes().catch(() => null),
        ]);
        showPage(ctx, tools, 'health', 'Health', 'health', {
            facts: { ...overview.facts, startedAt: stamp(overview.facts.startedAt, now) },
            uptime: duration(now.getTime() - overview.facts.startedAt.getTime()),
            queues: counts(['Queue', 'Waiting or running', 'Failed for good'], Object.entries(figures.queueDepth).map(([queue, n]) => [queue, n, figures.failedTasks[queue] ?? 0])),
            jobs: counts(['Status', 'Jobs'], Object.entries(figures.jobs).map(([status, n]) => [status, n ?? 0])),
            runs: counts(['Outcome', 'Runs'], Object.entries(figures.actionRuns).map(([status, n]) => [status, n])),
            tables: tables === null
                ? null
                : tables.map((table) => ({
                    name: table.table,
                    rows: table.rowsEstimate === null ? '—' : table.rowsEstimate.toLocaleString('en-US'),
                    bytes: table.bytes,
                    size: bytes(table.bytes),
                })),
        });
    });
};
//# sourceMappingURL=status-pages.js.map