/* Pages without a session: the closed UI, the login, and the page of every refused request. */

const CLOSED = `<% layout('@layout') %>
<p>The admin UI opens once an admin password is set. On the server, run:</p>
<pre>npx agent-gateway admin set-password</pre>
<p>Run it with the server's <code>DATA_DIR</code> or <code>DATABASE_URL</code> (from its directory, for <code>.env</code>): the command says first which database it uses, which must be this server's (<code>through the running server</code> on the embedded database). Set elsewhere, the password does not open this page.</p>`;

const LOGIN = `<% layout('@layout') %>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p>
<% } %><form method="post" action="/settings/login"><input type="hidden" name="nonce" value="<%= it.nonce %>"><input type="text" name="username" value="admin" autocomplete="username" hidden><label for="password">Admin password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<p><button type="submit">Log in</button></p></form>`;

const ERROR = `<% layout('@layout') %>
<p class="error" role="alert"><%= it.message %></p>
<p><a href="<%= it.back.href %>"><%= it.back.label %></a></p>`;

export const AUTH_VIEWS = { closed: CLOSED, login: LOGIN, error: ERROR } as const;
