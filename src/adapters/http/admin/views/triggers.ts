/* Triggers: the loaded triggers and the recent action runs, and the page of one trigger run. */

const TRIGGERS = `<% layout('@layout') %>
<%~ include('@reloadProblems', { reloadProblems: it.reloadProblems }) %>
<p>The trigger file is reloaded when it changes, on <code>SIGHUP</code> and by <code>npx agent-gateway reload</code>; an invalid file is refused and the running triggers stay. Check a file with <code>npx agent-gateway triggers check</code>.</p>
<h2>Loaded triggers</h2>
<% if (it.triggers.length === 0) { %><p>No triggers are configured.</p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Name</th><th scope="col">Watches</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead><tbody>
<% for (const trigger of it.triggers) { %><tr><td data-label="Name"><%= trigger.name %></td><td data-label="Watches"><code><%= trigger.watchPath %></code><% for (const test of trigger.when) { %><br>when <code><%= test %></code><% } %></td><td data-label="State"><%~ include('@badge', { badge: trigger.state }) %></td>
<td data-label="Actions"><ol><% for (const action of trigger.actions) { %><li><%= action %></li><% } %></ol></td></tr>
<% } %></tbody></table></div>
<% } %><h2>Recent action runs</h2>
<% if (it.runs.length === 0) { %><p>No action has run yet.</p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Finished</th><th scope="col">Trigger</th><th scope="col">Action</th><th scope="col">Status</th><th scope="col" class="number">Attempts</th><th scope="col">Error</th></tr></thead><tbody>
<% for (const run of it.runs) { %><tr><td data-label="Finished"><a href="<%= run.href %>"><%~ include('@time', { stamp: run.finishedAt }) %></a></td><td data-label="Trigger"><%= run.trigger %></td><td data-label="Action"><%= run.action %></td>
<td data-label="Status"><a href="<%= run.href %>"><%~ include('@badge', { badge: run.status }) %><span class="visually-hidden"> — details of <%= run.trigger %> action <%= run.action %></span></a></td><td data-label="Attempts" class="number"><%= run.attempts %></td><td data-label="Error"><%= run.error %></td></tr>
<% } %></tbody></table></div>
<% } %>`;

const RUN = `<% layout('@layout') %>
<dl><dt>Trigger</dt><dd><%= it.trigger %><% if (!it.configured) { %> <span class="muted">(no longer configured)</span><% } %></dd>
<dt>Run</dt><dd><code><%= it.runId %></code></dd>
<% if (it.request) { %><dt>Request</dt><dd><code>/api<%= it.request.watchPath %></code>, received <%~ include('@time', { stamp: it.request.receivedAt }) %></dd>
<% } else if (it.occurrence) { %><dt>Schedule</dt><dd><a href="/settings/schedules"><%= it.occurrence.schedule %></a>, occurrence <%~ include('@time', { stamp: it.occurrence.at }) %></dd>
<% } else { %><dt>Request</dt><dd class="muted">not stored any more: the values the actions got cannot be shown</dd>
<% } %></dl>
<% for (const action of it.actions) { %><section class="action" id="action-<%= action.index %>" aria-labelledby="action-<%= action.index %>-title">
<h2 id="action-<%= action.index %>-title">Action <%= action.index %>: <%= action.type %> <%~ include('@badge', { badge: action.status }) %></h2>
<dl><dt>Started</dt><dd><%~ include('@time', { stamp: action.startedAt }) %></dd><dt>Took</dt><dd><%= action.took %></dd>
<dt>Attempts</dt><dd><%= action.attempts %></dd>
<% if (action.exitCode !== null) { %><dt>Exit code</dt><dd><%= action.exitCode %></dd>
<% } %><% if (action.httpStatus !== null) { %><dt>HTTP status</dt><dd><%= action.httpStatus %></dd>
<% } %><% if (action.error) { %><dt>Error</dt><dd><%= action.error %></dd>
<% } %></dl>
<% if (action.rendered && action.rendered.type === 'command') { %><h3>Command</h3><pre><code><%= action.rendered.template %></code></pre>
<% if (action.rendered.values === null) { %><p class="muted">The request is not stored any more: the values are unknown.</p>
<% } else if (action.rendered.values.length > 0) { %><div class="table-wrap"><table class="stack"><caption class="visually-hidden">Values the command got</caption><thead><tr><th scope="col">Token</th><th scope="col">Variable</th><th scope="col">Value</th></tr></thead><tbody>
<% for (const value of action.rendered.values) { %><tr><td data-label="Token"><code><%= value.token %></code></td><td data-label="Variable"><code><%= value.variable %></code></td><td data-label="Value"><pre><%= value.value %></pre></td></tr>
<% } %></tbody></table></div>
<% } %><% } else if (action.rendered && action.rendered.type === 'webhook') { %><h3>Webhook</h3><p><code><%= action.rendered.method %> <%= action.rendered.target %></code></p>
<% } else if (action.rendered && action.rendered.type === 'agent') { %><h3>Agent job</h3>
<p><% if (action.rendered.jobId) { %><a href="/settings/jobs/<%= action.rendered.jobId %>">Job <code><%= action.rendered.jobId %></code></a><% } else { %>No job was started.<% } %></p>
<pre><%= action.rendered.template %></pre>
<% } else { %><p class="muted">This action is no longer in the trigger as configured: it was changed or removed since it ran (the trigger or schedule file was reloaded), or the trigger is gone. Its definition cannot be shown as it ran.</p>
<% } %><% if (action.output !== null) { %><h3>Output</h3><pre><%= action.output || '(none)' %></pre>
<% } %></section>
<% } %><p><a href="/settings/triggers">All triggers and runs</a></p>`;

export const TRIGGER_VIEWS = { triggers: TRIGGERS, run: RUN } as const;
