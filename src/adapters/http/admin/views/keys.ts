/*
 * API keys: the list, above it the key just created when the page is the answer to the form that
 * created it (shown once), and the revoke confirmation.
 */

const KEYS = `<% layout('@layout') %>
<% if (it.created) { %><div class="notice" role="status" data-answer-of="/settings/keys"><p>Key <strong><%= it.created.name %></strong> created. Copy it now: it is not shown again.</p>
<code class="key" id="new-key"><%= it.created.key %></code><p><button type="button" data-copy="new-key" hidden>Copy</button></p>
<p class="muted">Without JavaScript, reloading this page would send the form again and create another key (the browser asks first). Done? <a href="/settings/keys">Back to the API keys</a>, where it is listed by its prefix.</p></div>
<% } %><h2>Keys</h2>
<% if (it.keys.length === 0) { %><p>No API keys yet.</p>
<% } else { %><div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
<% for (const key of it.keys) { %><tr><td data-label="Name"><%= key.name %></td><td data-label="Prefix"><code><%= key.prefix %>…</code></td><td data-label="Created"><%~ include('@time', { stamp: key.createdAt }) %></td>
<td data-label="Last used"><% if (key.lastUsedAt) { %><%~ include('@time', { stamp: key.lastUsedAt }) %><% } else { %>never<% } %></td>
<td data-label=""><a href="/settings/keys/<%= key.id %>/revoke">Revoke<span class="visually-hidden"> <%= key.name %></span></a></td></tr>
<% } %></tbody></table></div>
<% } %><h2>Create a key</h2>
<form method="post" action="/settings/keys"><input type="hidden" name="csrf" value="<%= it.csrf %>">
<label for="name">Name</label><input id="name" name="name" type="text" required maxlength="100">
<p><button type="submit">Create key</button></p></form>`;

const REVOKE = `<% layout('@layout') %>
<p>Revoke <strong><%= it.key.name %></strong> (<code><%= it.key.prefix %>…</code>)? Callers using it get 401 at once.</p>
<form method="post" action="/settings/keys/<%= it.key.id %>/revoke"><input type="hidden" name="csrf" value="<%= it.csrf %>">
<div class="actions"><button type="submit" class="danger">Revoke</button> <a href="/settings/keys">Cancel</a></div></form>`;

export const KEY_VIEWS = { keys: KEYS, revokeKey: REVOKE } as const;
