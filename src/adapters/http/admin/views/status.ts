/* Messaging, health and the web chat. */

const MESSAGING = `<% layout('@layout') %>
<% for (const channel of it.channels) { %><h2><%= channel.title %></h2>
<% if (channel.polling) { %><p>Updates are fetched by long polling (<code><%= channel.variables.mode %>=polling</code>), by one replica at a time; no webhook is used.</p>
<% } %><% if (!channel.configured) { %><p>No bot token is configured<% if (channel.registers) { %> or registered<% } %> (<code><%= channel.variables.botToken %></code><% if (channel.registers) { %>, or <code>POST /api/messaging/<%= channel.id %>/register</code> once <code>PUBLIC_URL</code> is set: a registration sends the webhook secret to the address it names, so it must be this service's<% } %>).</p>
<% } else if (channel.webhook === undefined) { %><p>A bot token is configured.<% if (!channel.registers) { %> The platform delivers to <code>/api/messaging/<%= channel.id %>/webhook</code> on this gateway's public address (set in the platform's app settings).<% } %></p>
<% } else if (channel.webhook === null) { %><p class="error">The platform could not be asked: <%= channel.error %></p>
<% } else { %><dl><dt>Webhook URL</dt><dd><%= channel.webhook.url || '(none)' %></dd><dt>Pending updates</dt><dd><%= channel.webhook.pendingUpdateCount %></dd>
<dt>Last error</dt><dd><% if (channel.webhook.lastErrorMessage) { %><%= channel.webhook.lastErrorMessage %> (<%~ include('@time', { stamp: channel.lastErrorAt }) %>)<% } else { %>none<% } %></dd></dl>
<% } %><h3>Allowed chats</h3>
<% if (channel.allowedChatIds.length === 0) { %><p>None: set <code><%= channel.variables.allowedChats %></code>.</p>
<% } else { %><ul><% for (const chat of channel.allowedChatIds) { %><li><code><%= chat %></code></li><% } %></ul>
<% } %><% } %>`;

const COUNTS = `<% if (it.counts.rows.length === 0) { %><p>Nothing yet.</p>
<% } else { %><div class="table-wrap"><table><thead><tr><% for (const head of it.counts.head) { %><th scope="col"><%= head %></th><% } %></tr></thead><tbody>
<% for (const row of it.counts.rows) { %><tr><% for (const cell of row) { %><td><%= cell %></td><% } %></tr>
<% } %></tbody></table></div>
<% } %>`;

const HEALTH = `<% layout('@layout') %>
<dl><dt>Version</dt><dd><%= it.facts.version %></dd><dt>Up for</dt><dd><%= it.uptime %> (since <%~ include('@time', { stamp: it.facts.startedAt }) %>)</dd>
<dt>Database</dt><dd><%= it.facts.databaseEngine %></dd><dt>Job runner</dt><dd><%= it.facts.jobRunner %></dd></dl>
<h2>Queues</h2><%~ include('@counts', { counts: it.queues }) %>
<h2>Jobs</h2><%~ include('@counts', { counts: it.jobs }) %>
<h2>Trigger action runs</h2><%~ include('@counts', { counts: it.runs }) %>
<h2>Tables</h2>
<% if (it.tables === null) { %><p class="error">The table sizes could not be read.</p>
<% } else { %><div class="table-wrap"><table><thead><tr><th scope="col">Table</th><th scope="col" class="number">Rows (estimate)</th><th scope="col" class="number">Size</th></tr></thead><tbody>
<% for (const table of it.tables) { %><tr><td><code><%= table.name %></code></td><td class="number"><%= table.rows %></td><td class="number"><data value="<%= table.bytes %>"><%= table.size %></data></td></tr>
<% } %></tbody></table></div>
<p class="muted">Row counts are the database's estimates (— until it has analyzed a table); sizes include indexes.</p>
<% } %>`;

const CHAT = `<% layout('@layout') %>
<% if (it.turns.length === 0) { %><p>Ask the agent anything, or to start a job. <code>/new</code> starts a fresh conversation.</p>
<% } %><ol class="chat" aria-label="Conversation"><% for (const turn of it.turns) { %><li class="<%= turn.role %>"><strong><%= turn.who %>:</strong> <span class="turn"><%= turn.text %></span></li>
<% } %></ol>
<form method="post" action="/settings/chat"><input type="hidden" name="csrf" value="<%= it.csrf %>"><label for="message">Message</label>
<textarea id="message" name="message" rows="3" required></textarea><p><button type="submit">Send</button></p></form>`;

export const STATUS_VIEWS = { messaging: MESSAGING, counts: COUNTS, health: HEALTH, chat: CHAT } as const;
