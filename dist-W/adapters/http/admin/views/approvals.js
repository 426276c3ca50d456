/* Approvals: actions waiting for a person, with approve and deny, and the recent decisions. */
const APPROVALS = `<% layout('@layout') %>
<p>Trigger actions with <code>"approval": true</code> wait here for a decision. Approved, the run goes on with that action; denied or expired (after <%= it.timeout %>), the action and those after it never run.</p>
<h2>Waiting</h2>
<% if (it.pending.length === 0) { %><p>No action is waiting for approval.</p>
<% } else { %><% for (const approval of it.pending) { %><section class="approval" aria-labelledby="approval-<%= approval.id %>">
<h3 id="approval-<%= approval.id %>"><%= approval.trigger %>, action <%= approval.actionIndex %> (<%= approval.actionType %>)</h3>
<p>Fired by <code>/api<%= approval.watchPath %></code> <%~ include('@time', { stamp: approval.createdAt }) %>; expires <%~ include('@time', { stamp: approval.expiresAt }) %>.<% if (approval.deliveryHref) { %> <a href="<%= approval.deliveryHref %>">The request</a><% } %></p>
<pre><code><%= approval.summary %></code></pre>
<div class="actions"><form method="post" action="/settings/approvals/<%= approval.id %>/approve"><input type="hidden" name="csrf" value="<%= it.csrf %>"><button type="submit">Approve</button></form>
<form method="post" action="/settings/approvals/<%= approval.id %>/deny"><input type="hidden" name="csrf" value="<%= it.csrf %>"><button type="submit" class="danger">Deny</button></form></div>
</section>
<% } %><% } %><h2>Decided recently</h2>
<% if (it.decided.length === 0) { %><p>No decision yet.</p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Asked</th><th scope="col">Trigger</th><th scope="col">Action</th><th scope="col">Outcome</th><th scope="col">By</th><th scope="col">When</th></tr></thead><tbody>
<% for (const approval of it.decided) { %><tr><td data-label="Asked"><a href="<%= approval.runHref %>"><%~ include('@time', { stamp: approval.createdAt }) %></a></td><td data-label="Trigger"><%= approval.trigger %></td><td data-label="Action"><%= approval.actionIndex %> (<%= approval.actionType %>)</td>
<td data-label="Outcome"><%~ include('@badge', { badge: approval.status }) %></td><td data-label="By"><%= approval.decidedBy %></td><td data-label="When"><%~ include('@time', { stamp: approval.decidedAt }) %></td></tr>
<% } %></tbody></table></div>
<% } %>`;
export const APPROVAL_VIEWS = { approvals: APPROVALS };
//# sourceMappingURL=approvals.js.map