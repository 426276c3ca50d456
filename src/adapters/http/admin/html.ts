/** Escapes text for HTML content and attribute values. */
export const esc = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#1d3557;color:#fff;padding:.75rem 1.5rem;display:flex;gap:1.5rem;align-items:center}
header a{color:#fff;margin-right:.75rem}pre{white-space:pre-wrap;background:#fff;border:1px solid #ddd;padding:.5rem}
dt{font-weight:600}dd{margin:0 0 .5rem}ol.chat{padding-left:1.2rem}ol.chat li{margin:.4rem 0}textarea{font:inherit;width:100%}header form{margin-left:auto}main{max-width:60rem;margin:1.5rem auto;padding:0 1.5rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #ddd}
label{display:block;margin:.5rem 0 .25rem}input[type=text],input[type=password]{padding:.4rem;font:inherit;width:20rem;max-width:100%}
button{font:inherit;padding:.4rem .9rem;cursor:pointer}.danger{background:#b00020;color:#fff;border:0}
.notice{background:#e8f4ea;border:1px solid #9c9;padding:1rem}.error{background:#fdecea;border:1px solid #e99;padding:1rem}
code.key{font-size:1.1rem;word-break:break-all;background:#fff;border:1px solid #ccc;padding:.5rem;display:block}
:focus-visible{outline:3px solid #f4a261;outline-offset:2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}`;

/** One page of the admin UI. `csrf` adds the logout form (the user is signed in). */
export const page = (title: string, body: string, csrf?: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · Agent Gateway</title><style>${STYLE}</style></head>
<body><header><strong>Agent Gateway</strong>${
  csrf === undefined
    ? ''
    : `<nav aria-label="Settings"><a href="/settings/keys">API keys</a> <a href="/settings/triggers">Triggers</a> <a href="/settings/jobs">Jobs</a>
<a href="/settings/messaging">Messaging</a> <a href="/settings/chat">Chat</a> <a href="/settings/health">Health</a></nav>
<form method="post" action="/settings/logout"><input type="hidden" name="csrf" value="${esc(csrf)}"><button type="submit">Log out</button></form>`
}</header>
<main><h1>${esc(title)}</h1>${body}</main><script src="/settings/static/ui.js" defer></script></body></html>`;

/** Copies the text of `[data-copy]` targets; the page works without it (the key is selectable). */
export const UI_SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function (b) {
  b.hidden = false;
  b.addEventListener('click', function () {
    var t = document.getElementById(b.getAttribute('data-copy'));
    navigator.clipboard.writeText(t.textContent.trim()).then(function () { b.textContent = 'Copied'; });
  });
});`;
