/* The delivery log: stored requests that fired triggers, one in full, and its replay. */

const DELIVERIES = `<% layout('@layout') %>
<p>Every request that fired a trigger — webhooks, code-host and chat deliveries — is kept here for <code>RETENTION_ACTION_RUNS_DAYS</code>, and never less than 15 days (for good when it is 0); the records of its trigger runs for <code>RETENTION_ACTION_RUNS_DAYS</code>. Open one to see how its actions went, or to replay it.</p>
<form method="get" action="/settings/deliveries" class="filters"><p>
<label for="path">Path</label> <input id="path" name="path" value="<%= it.filter.path %>" placeholder="/webhook" maxlength="200">
<label for="trigger">Trigger</label> <input id="trigger" name="trigger" value="<%= it.filter.trigger %>" maxlength="200">
<button type="submit" class="secondary">Filter</button><% if (it.filtered) { %> <a href="/settings/deliveries">Show all</a><% } %></p></form>
<% if (it.deliveries.length === 0) { %><p><%= it.filtered ? 'No stored delivery matches.' : 'No request has fired a trigger yet (or all have passed the retention period).' %></p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Received</th><th scope="col">Path</th><th scope="col">Triggers fired</th><th scope="col">Replay of</th></tr></thead><tbody>
<% for (const delivery of it.deliveries) { %><tr><td data-label="Received"><a href="<%= delivery.href %>"><%~ include('@time', { stamp: delivery.receivedAt }) %><span class="visually-hidden"> — delivery <%= delivery.id %></span></a></td><td data-label="Path"><code>/api<%= delivery.path %></code></td>
<td data-label="Triggers fired"><%= delivery.triggers %></td><td data-label="Replay of"><% if (delivery.replayOf) { %><a href="<%= delivery.replayOf.href %>"><code><%= delivery.replayOf.id %></code></a><% } else { %>—<% } %></td></tr>
<% } %></tbody></table></div>
<% if (it.next) { %><p><a href="<%= it.next %>">Older deliveries</a></p><% } %>
<% } %>`;

const DELIVERY = `<% layout('@layout') %>
<dl><dt>Id</dt><dd><code><%= it.id %></code></dd>
<dt>Path</dt><dd><code>/api<%= it.path %></code></dd>
<dt>Received</dt><dd><%~ include('@time', { stamp: it.receivedAt }) %></dd>
<% if (it.replayOf) { %><dt>Replay of</dt><dd><a href="<%= it.replayOf.href %>"><code><%= it.replayOf.id %></code></a></dd><% } %>
</dl>
<form method="post" action="/settings/deliveries/<%= it.id %>/replay"><input type="hidden" name="csrf" value="<%= it.csrf %>"><input type="hidden" name="nonce" value="<%= it.nonce %>">
<p><button type="submit">Replay</button> <span class="muted">fires its triggers again, as they are configured now, with this request as it was stored</span></p></form>
<h2>Trigger runs</h2>
<% if (it.runs.length === 0) { %><p class="muted"><% if (it.triggers) { %>Fired <%= it.triggers %>; its runs were not recorded (stored before the delivery log).<% } else { %>No trigger run.<% } %></p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Trigger</th><th scope="col">Action</th><th scope="col">Status</th><th scope="col">Outcome</th></tr></thead><tbody>
<% for (const run of it.runs) { %><% if (run.actions.length === 0) { %><tr><td data-label="Trigger"><a href="<%= run.href %>"><%= run.trigger %></a></td><td data-label="Action">—</td><td data-label="Status">waiting or running</td><td data-label="Outcome">—</td></tr>
<% } %><% for (const action of run.actions) { %><tr><td data-label="Trigger"><a href="<%= action.href %>"><%= run.trigger %></a></td><td data-label="Action"><%= action.label %></td>
<td data-label="Status"><%~ include('@badge', { badge: action.status }) %></td><td data-label="Outcome"><%= action.outcome %></td></tr>
<% } %><% } %></tbody></table></div>
<% } %><h2>Request as stored</h2>
<pre><code><%= it.request %></code></pre>
<p><a href="/settings/deliveries">All deliveries</a></p>`;

export const DELIVERY_VIEWS = { deliveries: DELIVERIES, delivery: DELIVERY } as const;
