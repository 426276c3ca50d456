/*
 * The page frame and the small partials every page uses. A partial reads its own key (eta's
 * include merges the including template's data into the partial's). Eta templates, auto-escaped: `<%= %>`
 * escapes, `<%~ %>` is used only for the output of other templates (already escaped).
 */
const STYLE = `*,*::before,*::after{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
a{color:#1a4fb5}
.skip{position:absolute;left:-999px;top:0;background:#fff;color:#1a4fb5;padding:.5rem}.skip:focus{left:.5rem}
header{background:#1d3557;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
header .brand{font-weight:700}
header nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .9rem}
header nav a{color:#fff;text-decoration:none;display:inline-block;padding:.2rem 0;border-bottom:3px solid transparent}
header nav a:hover{border-bottom-color:#a8c3f5}
header nav a[aria-current=page]{border-bottom-color:#f4a261;font-weight:600}
header form{margin-left:auto}
main{max-width:64rem;margin:1rem auto 3rem;padding:0 1rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}h2{font-size:1.2rem;margin:1.75rem 0 .5rem}
p,li,dd{overflow-wrap:anywhere}td,th{overflow-wrap:break-word}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
th{font-weight:600;background:#f0f2f5}
td.number,th.number{text-align:right;white-space:nowrap}
td ol{margin:0;padding-left:1.2rem}
@media (max-width:40rem){
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.stack tr{display:block;border-bottom:1px solid #ccc;padding:.4rem 0}
table.stack td{display:block;position:relative;border:0;padding:.15rem .25rem .15rem 7rem;min-height:1.9rem;overflow-wrap:anywhere}
table.stack td::before{content:attr(data-label);position:absolute;left:.25rem;width:6.5rem;font-weight:600;color:#444}
table.stack td.number{text-align:left}}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #ddd;padding:.5rem;margin:.25rem 0;max-height:32rem;overflow:auto;font-size:.9rem}
code{overflow-wrap:anywhere;font-size:.95em}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1rem;margin:0}
dt{font-weight:600}dd{margin:0}
@media (max-width:32rem){dl{grid-template-columns:minmax(0,1fr)}dt{margin-top:.4rem}}
label{display:block;margin:.5rem 0 .25rem;font-weight:600}
input[type=text],input[type=password],textarea{padding:.45rem;font:inherit;width:24rem;max-width:100%;border:1px solid #888;border-radius:3px}
textarea{width:100%}
button,.button{font:inherit;padding:.4rem .9rem;cursor:pointer;border:1px solid #1d3557;background:#1d3557;color:#fff;border-radius:3px;text-decoration:none;display:inline-block}
.secondary{background:#fff;color:#1d3557}
.danger{background:#b00020;border-color:#b00020;color:#fff}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:1rem 0}
.notice{background:#e6f4ea;border:1px solid #9cd3ac;padding:.75rem 1rem;margin:1rem 0}
.error{background:#fdecea;border:1px solid #f0a3a3;padding:.75rem 1rem;margin:1rem 0}
code.key{display:block;font-size:1.05rem;word-break:break-all;background:#fff;border:1px solid #ccc;padding:.5rem}
.badge{display:inline-block;padding:0 .55rem;border-radius:1rem;font-size:.85rem;font-weight:600;border:1px solid;white-space:nowrap}
.badge-succeeded,.badge-enabled,.badge-approved{background:#e6f4ea;color:#1e6b34;border-color:#9cd3ac}
.badge-failed{background:#fdecea;color:#a3121a;border-color:#f0a3a3}
.badge-running,.badge-pending,.badge-awaiting_approval{background:#e8f0fe;color:#1a4fb5;border-color:#a8c3f5}
.badge-queued,.badge-disabled,.badge-other{background:#f1f1f1;color:#444;border-color:#bbb}
.badge-cancelled,.badge-not_runnable,.badge-denied,.badge-expired,.badge-missed,.badge-skipped{background:#fff4e5;color:#8a4b00;border-color:#f2c48d}
.ago{color:#555;font-size:.9em}
.muted{color:#555}
ol.chat{list-style:none;padding:0}ol.chat li{margin:.5rem 0;padding:.5rem .75rem;border-radius:6px;background:#fff;border:1px solid #ddd}
ol.chat li.user{background:#eef3fb}.turn{white-space:pre-wrap}
section.action{border-top:1px solid #ccc;margin-top:1.5rem}
:focus-visible{outline:3px solid #f4a261;outline-offset:2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}`;
const LAYOUT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title><%= it.title %> · Agent Gateway</title><link rel="icon" href="data:,">
<% if (it.scripts.htmx) { %><meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"historyCacheSize":0}'>
<% } %><style>${STYLE}</style></head>
<body><a class="skip" href="#main">Skip to the content</a>
<header><span class="brand">Agent Gateway</span>
<% if (it.csrf !== undefined) { %><nav aria-label="Settings"><ul>
<% for (const item of it.nav) { %><li><a href="<%= item.href %>"<% if (item.current) { %> aria-current="page"<% } %>><%= item.label %></a></li>
<% } %></ul></nav>
<form method="post" action="/settings/logout"><input type="hidden" name="csrf" value="<%= it.csrf %>"><button type="submit" class="secondary">Log out</button></form>
<% } %></header>
<main id="main"><h1><%= it.title %></h1>
<% if (it.flash) { %><p class="<%= it.flash.kind === 'error' ? 'error' : 'notice' %>" role="<%= it.flash.kind === 'error' ? 'alert' : 'status' %>"><%= it.flash.text %></p>
<% } %><%~ it.body %></main>
<% if (it.scripts.ui) { %><script src="/settings/static/ui.js" defer></script>
<% } %><% if (it.scripts.htmx) { %><script src="/settings/static/htmx.min.js" defer></script>
<% } %></body></html>`;
/** A Stamp (see present.ts), or a dash. */
const TIME = `<% const stamp = it.stamp; if (stamp) { %><time datetime="<%= stamp.iso %>"><%= stamp.text %></time><% if (stamp.ago) { %> <span class="ago">(<%= stamp.ago %>)</span><% } %><% } else { %>—<% } %>`;
/** A badge (see present.ts). */
const BADGE = `<span class="<%= it.badge.className %>"><%= it.badge.text %></span>`;
/** An outside link (present.ts: only http(s) URLs get an href), or a dash. */
const LINK = `<% const link = it.link; if (link && link.href) { %><a href="<%= link.href %>" rel="noreferrer"><%= link.text %></a><% } else if (link) { %><%= link.text %><% } else { %>—<% } %>`;
export const LAYOUT_VIEWS = { layout: LAYOUT, time: TIME, badge: BADGE, link: LINK };
//# sourceMappingURL=layout.js.map