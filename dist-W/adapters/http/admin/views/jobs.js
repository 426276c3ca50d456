/* Jobs: the list, one job (its live part refreshed while it runs), and the cancel confirmation. */
const JOBS = `<% layout('@layout') %>
<% if (it.jobs.length === 0) { %><p>No jobs yet.</p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">Prompt</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
<% for (const job of it.jobs) { %><tr><td data-label="Job"><a href="/settings/jobs/<%= job.id %>"><code><%= job.shortId %></code></a></td><td data-label="Status"><%~ include('@badge', { badge: job.status }) %></td><td data-label="Source"><%= job.source %></td>
<td data-label="Prompt"><%= job.prompt %></td><td data-label="Created"><%~ include('@time', { stamp: job.createdAt }) %></td>
<td data-label=""><% if (job.cancellable) { %><a href="/settings/jobs/<%= job.id %>/cancel">Cancel<span class="visually-hidden"> job <%= job.shortId %></span></a><% } %></td></tr>
<% } %></tbody></table></div>
<% } %>`;
/** The part of a job's page that changes while it runs; polled (htmx) until the job is finished. */
const JOB_LIVE = `<div id="job-live"<% if (it.live.polling) { %> hx-get="/settings/jobs/<%= it.live.id %>/live" hx-trigger="every 2s" hx-swap="outerHTML"<% } %>>
<dl><dt>Status</dt><dd><%~ include('@badge', { badge: it.live.status }) %><% if (it.live.polling) { %> <span class="muted">(this part refreshes while the job runs)</span><% } %></dd>
<dt>Pull request</dt><dd><%~ include('@link', { link: it.live.prUrl }) %></dd><dt>Run</dt><dd><%~ include('@link', { link: it.live.runUrl }) %></dd>
<dt>Updated</dt><dd><%~ include('@time', { stamp: it.live.updatedAt }) %></dd></dl>
<h2>Summary</h2><p><%= it.live.summary || '—' %></p>
<% if (it.live.error) { %><h2>Error</h2><p class="error"><%= it.live.error %></p>
<% } %><h2>Log</h2><pre><%= it.live.log || '—' %></pre>
<% if (it.live.cancellable) { %><div class="actions"><a class="button danger" href="/settings/jobs/<%= it.live.id %>/cancel">Cancel job…</a></div>
<% } %></div>`;
const JOB = `<% layout('@layout') %>
<dl><dt>Job</dt><dd><code><%= it.job.id %></code></dd><dt>Source</dt><dd><%= it.job.source %></dd>
<dt>Branch</dt><dd><code><%= it.job.branch %></code></dd><dt>Provider / model</dt><dd><%= it.job.provider %> / <%= it.job.model %></dd>
<dt>Created</dt><dd><%~ include('@time', { stamp: it.job.createdAt }) %></dd></dl>
<h2>Prompt</h2><pre><%= it.job.prompt %></pre>
<%~ include('@jobLive', { live: it.live }) %>
<p><a href="/settings/jobs">All jobs</a></p>`;
const CANCEL = `<% layout('@layout') %>
<% if (it.job.cancellable) { %><p>Cancel job <code><%= it.job.shortId %></code> (<%~ include('@badge', { badge: it.job.status }) %>)? A running agent is stopped; what it did so far stays on its branch and in its log.</p>
<p class="muted"><%= it.job.prompt %></p>
<form method="post" action="/settings/jobs/<%= it.job.id %>/cancel"><input type="hidden" name="csrf" value="<%= it.csrf %>">
<div class="actions"><button type="submit" class="danger">Cancel job</button> <a href="/settings/jobs/<%= it.job.id %>">Keep it running</a></div></form>
<% } else { %><p>Job <code><%= it.job.shortId %></code> has finished (<%~ include('@badge', { badge: it.job.status }) %>): there is nothing to cancel.</p>
<p><a href="/settings/jobs/<%= it.job.id %>">Back to the job</a></p>
<% } %>`;
export const JOB_VIEWS = { jobs: JOBS, job: JOB, jobLive: JOB_LIVE, cancelJob: CANCEL };
//# sourceMappingURL=jobs.js.map