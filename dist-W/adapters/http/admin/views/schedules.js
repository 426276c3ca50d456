/* Schedules: each schedule of CRONS_FILE with its next and last occurrence; and the reload banner. */
/** The problems of the last refused reload of the trigger and schedule files (`it.reloadProblems`). */
const RELOAD_PROBLEMS = `<% if (it.reloadProblems && it.reloadProblems.length > 0) { %><div class="error" role="alert"><p><strong>The last reload was refused</strong>: the service runs the triggers and schedules it had before. Fix these problems and save the file again (or run <code>npx agent-gateway reload</code>):</p>
<ul><% for (const problem of it.reloadProblems) { %><li><code><%= problem %></code></li><% } %></ul></div>
<% } %>`;
const SCHEDULES = `<% layout('@layout') %>
<%~ include('@reloadProblems', { reloadProblems: it.reloadProblems }) %>
<p>Schedules come from the schedule file (<code>CRONS_FILE</code>); a change to it, <code>SIGHUP</code> or <code>npx agent-gateway reload</code> reloads it. Check a file with <code>npx agent-gateway crons check</code>. Each occurrence runs once across every replica.</p>
<% if (it.schedules.length === 0) { %><p>No schedules are configured.</p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Name</th><th scope="col">Schedule</th><th scope="col">State</th><th scope="col">Next run</th><th scope="col">Last run</th><th scope="col">Outcome</th><th scope="col">Actions</th></tr></thead><tbody>
<% for (const s of it.schedules) { %><tr><td data-label="Name"><%= s.name %></td><td data-label="Schedule"><code><%= s.expression %></code><% if (s.timezone) { %> <span class="muted">(<%= s.timezone %>)</span><% } %><% if (!s.catchUp) { %> <span class="muted">no catch-up</span><% } %></td>
<td data-label="State"><%~ include('@badge', { badge: s.state }) %></td><td data-label="Next run"><%~ include('@time', { stamp: s.next }) %></td>
<td data-label="Last run"><% if (s.last) { %><% if (s.last.href) { %><a href="<%= s.last.href %>"><%~ include('@time', { stamp: s.last.occurrence }) %></a><% } else { %><%~ include('@time', { stamp: s.last.occurrence }) %><% } %><% if (s.last.catchUp) { %> <span class="muted">(catch-up)</span><% } %><% } else { %>—<% } %></td>
<td data-label="Outcome"><% if (s.last) { %><%~ include('@badge', { badge: s.last.status }) %><% if (s.last.error) { %> <%= s.last.error %><% } %><% } else { %>—<% } %></td>
<td data-label="Actions"><ol><% for (const action of s.actions) { %><li><%= action %></li><% } %></ol></td></tr>
<% } %></tbody></table></div>
<% } %>`;
export const SCHEDULE_VIEWS = { schedules: SCHEDULES, reloadProblems: RELOAD_PROBLEMS };
//# sourceMappingURL=schedules.js.map