import type { AdminOverview } from '../../../application/AdminOverview.js';
import type { Job } from '../../../domain/jobs/Job.js';
import { isFinished } from '../../../domain/jobs/Job.js';
import type { ConversationTurn } from '../../../ports/ConversationStore.js';
import { esc } from './html.js';

const time = (date: Date | null | undefined): string => (date ? esc(date.toISOString().replace('T', ' ').slice(0, 19)) : '—');
const link = (url: string | null): string => (url ? `<a href="${esc(url)}" rel="noreferrer">${esc(url)}</a>` : '—');
const csrfField = (csrf: string): string => `<input type="hidden" name="csrf" value="${esc(csrf)}">`;
const table = (head: string[], rows: string[]): string =>
  rows.length === 0 ? '<p>Nothing yet.</p>' : `<table><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;

export const triggersPage = async (overview: AdminOverview): Promise<string> => {
  const triggers = overview.triggers().map(
    (t) => `<tr><td>${esc(t.name)}</td><td><code>${esc(t.watchPath)}</code></td><td>${t.enabled ? 'enabled' : 'disabled'}</td>
<td>${t.actions.map((a) => esc(a.type === 'webhook' ? `webhook ${a.method} ${a.url}` : a.type === 'command' ? `command: ${a.command}` : `agent: ${a.job.slice(0, 60)}`)).join('<br>')}</td></tr>`,
  );
  const runs = (await overview.recentRuns()).map(
    (r) => `<tr><td>${time(r.finishedAt)}</td><td>${esc(r.trigger)}</td><td>${r.actionIndex} (${esc(r.type)})</td><td>${esc(r.status)}</td><td>${r.attempts}</td><td>${esc(r.error ?? '')}</td></tr>`,
  );
  return `<p>The trigger file was valid at start-up (an invalid one stops the service). Changes take effect after a restart; check a file with <code>npx agent-gateway triggers check</code>.</p>
<h2>Loaded triggers</h2>${table(['Name', 'Watches', 'State', 'Actions'], triggers)}
<h2>Recent action runs</h2>${table(['Finished', 'Trigger', 'Action', 'Status', 'Attempts', 'Error'], runs)}`;
};

export const jobsPage = async (overview: AdminOverview, csrf: string): Promise<string> => {
  const rows = (await overview.recentJobs()).map(
    (j) => `<tr><td><a href="/settings/jobs/${esc(j.id)}">${esc(j.id.slice(0, 8))}</a></td><td>${esc(j.status)}</td><td>${esc(j.source.kind === 'trigger' ? `trigger ${j.source.name}` : j.source.kind)}</td>
<td>${esc(j.job.slice(0, 80))}</td><td>${time(j.createdAt)}</td><td>${isFinished(j.status) ? '' : `<form method="post" action="/settings/jobs/${esc(j.id)}/cancel">${csrfField(csrf)}<button type="submit" class="danger">Cancel<span class="visually-hidden"> job ${esc(j.id.slice(0, 8))}</span></button></form>`}</td></tr>`,
  );
  return table(['Job', 'Status', 'Source', 'Prompt', 'Created', ''], rows);
};

export const jobPage = (job: Job, csrf: string): string => `<dl>
<dt>Status</dt><dd>${esc(job.status)}</dd><dt>Source</dt><dd>${esc(job.source.kind)}</dd>
<dt>Branch</dt><dd><code>${esc(job.branch)}</code></dd><dt>Pull request</dt><dd>${link(job.prUrl)}</dd><dt>Run</dt><dd>${link(job.runUrl)}</dd>
<dt>Provider / model</dt><dd>${esc(job.llmProvider ?? 'default')} / ${esc(job.llmModel ?? 'default')}</dd>
<dt>Created / updated</dt><dd>${time(job.createdAt)} / ${time(job.updatedAt)}</dd></dl>
<h2>Prompt</h2><pre>${esc(job.job)}</pre><h2>Summary</h2><p>${esc(job.summary ?? '—')}</p>${job.error ? `<h2>Error</h2><p class="error">${esc(job.error)}</p>` : ''}
<h2>Log</h2><pre>${esc(job.log ?? '—')}</pre>${
  isFinished(job.status) ? '' : `<form method="post" action="/settings/jobs/${esc(job.id)}/cancel">${csrfField(csrf)}<button type="submit" class="danger">Cancel job</button></form>`
}`;

export const messagingPage = async (overview: AdminOverview): Promise<string> =>
  (await overview.channels())
    .map((channel) => {
      const register = channel.registers ? `, or <code>POST /api/messaging/${esc(channel.id)}/register</code>` : '';
      const webhook = !channel.configured
        ? `<p>No bot token is configured${channel.registers ? ' or registered' : ''} (<code>${esc(channel.variables.botToken)}</code>${register}).</p>`
        : channel.webhook === undefined
          ? '<p>A bot token is configured.</p>'
          : channel.webhook === null
            ? `<p class="error">The platform could not be asked: ${esc(channel.error)}</p>`
            : `<dl><dt>Webhook URL</dt><dd>${esc(channel.webhook.url || '(none)')}</dd><dt>Pending updates</dt><dd>${channel.webhook.pendingUpdateCount}</dd>
<dt>Last error</dt><dd>${channel.webhook.lastErrorMessage ? `${esc(channel.webhook.lastErrorMessage)} (${time(new Date((channel.webhook.lastErrorDate ?? 0) * 1000))})` : 'none'}</dd></dl>`;
      const chats = channel.allowedChatIds;
      return `<h2>${esc(channel.title)}</h2>${webhook}<h3>Allowed chats</h3>${
        chats.length === 0 ? `<p>None: set <code>${esc(channel.variables.allowedChats)}</code>.</p>` : `<ul>${chats.map((c) => `<li><code>${esc(c)}</code></li>`).join('')}</ul>`
      }`;
    })
    .join('');

export const healthPage = async (overview: AdminOverview, now: Date): Promise<string> => {
  const figures = await overview.figures();
  const uptime = Math.round((now.getTime() - overview.facts.startedAt.getTime()) / 1000);
  const queues = Object.entries(figures.queueDepth).map(([q, n]) => `<tr><td>${esc(q)}</td><td>${n}</td><td>${figures.failedTasks[q] ?? 0}</td></tr>`);
  const jobs = Object.entries(figures.jobs).map(([s, n]) => `<tr><td>${esc(s)}</td><td>${n}</td></tr>`);
  const runs = Object.entries(figures.actionRuns).map(([s, n]) => `<tr><td>${esc(s)}</td><td>${n}</td></tr>`);
  return `<dl><dt>Version</dt><dd>${esc(overview.facts.version)}</dd><dt>Up for</dt><dd>${uptime} s (since ${time(overview.facts.startedAt)})</dd>
<dt>Database</dt><dd>${esc(overview.facts.databaseEngine)}</dd><dt>Job runner</dt><dd>${esc(overview.facts.jobRunner)}</dd></dl>
<h2>Queues</h2>${table(['Queue', 'Waiting or running', 'Failed for good'], queues)}
<h2>Jobs</h2>${table(['Status', 'Jobs'], jobs)}<h2>Trigger action runs</h2>${table(['Outcome', 'Runs'], runs)}`;
};

export const chatPage = (turns: ConversationTurn[], csrf: string, error?: string): string => `${
  turns.length === 0 ? '<p>Ask the agent anything, or to start a job. <code>/new</code> starts a fresh conversation.</p>' : ''
}<ol class="chat" aria-label="Conversation">${turns.map((t) => `<li><strong>${t.role === 'user' ? 'You' : 'Agent'}:</strong> <span class="turn">${esc(t.text)}</span></li>`).join('')}</ol>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/settings/chat">${csrfField(csrf)}<label for="message">Message</label>
<textarea id="message" name="message" rows="3" cols="60" required></textarea><p><button type="submit">Send</button></p></form>`;
