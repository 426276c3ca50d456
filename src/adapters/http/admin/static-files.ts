import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Copies the text of `[data-copy]` targets; the page works without it (the key is selectable).
 * A page that is the answer to a form (an element with `data-answer-of`: the new API key's
 * notice) takes the address of its plain page in the history, so that a reload fetches that page
 * instead of sending the form again (which would create a second key).
 */
const UI_SCRIPT = `var answer = document.querySelector('[data-answer-of]');
if (answer) history.replaceState(null, '', answer.getAttribute('data-answer-of'));
document.querySelectorAll('[data-copy]').forEach(function (b) {
  b.hidden = false;
  b.addEventListener('click', function () {
    var t = document.getElementById(b.getAttribute('data-copy'));
    navigator.clipboard.writeText(t.textContent.trim()).then(function () { b.textContent = 'Copied'; }, function () { b.textContent = 'Select the key and copy it'; });
  });
});
`;

export interface StaticFile {
  readonly type: string;
  readonly body: string;
}

/**
 * The admin UI's scripts, read once at start-up: its own copy button, and htmx (the installed
 * package's build) for the live parts of pages. Served same-origin, behind the session.
 */
export const loadStaticFiles = (): ReadonlyMap<string, StaticFile> => {
  const htmx = readFileSync(createRequire(import.meta.url).resolve('htmx.org/dist/htmx.min.js'), 'utf8');
  return new Map([
    ['ui.js', { type: 'text/javascript; charset=utf-8', body: UI_SCRIPT }],
    ['htmx.min.js', { type: 'text/javascript; charset=utf-8', body: htmx }],
  ]);
};
