/**
 * The page's HTML shell and style sheet. The shell carries no data and no inline script (the policy allows scripts
 * from this origin only); the session's CSRF token rides in a `<meta>` (base64url, so it needs no escaping).
 *
 * @module
 */

/** The HTML of the inbox page for a session. */
export function pageHtml(csrf: string): string {
  if (!/^[\w-]+$/.test(csrf)) throw new TypeError('csrf token must be base64url');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="inbox-csrf" content="${csrf}">
<title>mcp-tasks inbox</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body>
<header>
  <h1>mcp-tasks inbox</h1>
  <span id="connection" class="connection">connecting…</span>
  <button type="button" id="new-link" class="secondary">Sign-in link for another browser</button>
  <output id="link"></output>
</header>
<section id="warnings"></section>
<main>
  <p id="empty" hidden>No tasks in this store yet.</p>
  <ol id="tasks"></ol>
</main>
<dialog id="details">
  <form method="dialog"><button type="submit" id="close-details">Close</button></form>
  <h2 id="details-title"></h2>
  <h3>Answers given here</h3>
  <ul id="details-answers"></ul>
  <h3>Outcome</h3>
  <pre id="details-outcome"></pre>
  <h3>Record</h3>
  <pre id="details-record"></pre>
</dialog>
</body>
</html>
`;
}

/** The page's style sheet. */
export const PAGE_CSS = `
:root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; }
body { margin: 0; }
header { display: flex; gap: 1rem; align-items: center; padding: .75rem 1.25rem; background: #fff; border-bottom: 1px solid #d8dde3; flex-wrap: wrap; }
h1 { font-size: 1.15rem; margin: 0; }
.connection { font-size: .85rem; color: #57606a; }
.connection.live { color: #1a7f37; }
#link { font-family: ui-monospace, monospace; font-size: .8rem; word-break: break-all; }
main { padding: 1rem 1.25rem; max-width: 72rem; }
ol#tasks { list-style: none; padding: 0; margin: 0; display: grid; gap: .75rem; }
li.task { background: #fff; border: 1px solid #d8dde3; border-radius: 8px; padding: .75rem 1rem; }
li.task.waiting { border-color: #bf8700; box-shadow: 0 0 0 2px #fff8c5 inset; }
li.task.ended { opacity: .85; }
.row { display: flex; gap: .75rem; align-items: baseline; flex-wrap: wrap; }
.actions { display: inline-flex; gap: .5rem; }
.tool { font-weight: 600; }
.status { font-size: .8rem; padding: .1rem .45rem; border-radius: 999px; background: #eaeef2; }
.status.input_required { background: #fff8c5; }
.status.working { background: #ddf4ff; }
.status.completed { background: #dafbe1; }
.status.failed, .status.expired, .status.unknown { background: #ffebe9; }
.status.cancelled { background: #eaeef2; }
.badge { font-size: .75rem; padding: .1rem .4rem; border-radius: 4px; background: #ffebe9; color: #82071e; }
.note { font-size: .8rem; color: #57606a; }
.message, .server, .taskid, .question-text, .label, .url-text, .url-host, .url-warning, pre { unicode-bidi: isolate; direction: ltr; }
.server, .taskid { font-family: ui-monospace, monospace; font-size: .78rem; color: #57606a; }
.left { font-variant-numeric: tabular-nums; font-size: .85rem; }
.left.urgent { color: #cf222e; font-weight: 700; }
form.question { margin-top: .6rem; padding: .6rem .75rem; border: 1px solid #d8dde3; border-radius: 6px; background: #fbfcfd; display: grid; gap: .5rem; }
form.question .field { display: grid; gap: .2rem; justify-items: start; }
form.question .field input[type=text], form.question .field input[type=number], form.question .field select { width: 28rem; max-width: 100%; }
.choices { display: flex; gap: 1rem; }
form.question .hint { font-size: .78rem; color: #57606a; }
form.question .buttons { display: flex; gap: .5rem; }
.problems { color: #cf222e; font-size: .85rem; white-space: pre-wrap; }
button { font: inherit; padding: .3rem .8rem; border-radius: 6px; border: 1px solid #1f883d; background: #1f883d; color: #fff; cursor: pointer; }
button.secondary { background: #f6f8fa; color: #1b1f24; border-color: #d0d7de; }
button.danger { background: #fff; color: #cf222e; border-color: #cf222e; }
button:disabled { opacity: .5; cursor: default; }
input[type=text], input[type=number], select { font: inherit; padding: .25rem .4rem; max-width: 28rem; }
dialog { max-width: 60rem; width: 90vw; }
pre { background: #f6f8fa; padding: .5rem; overflow: auto; max-height: 24rem; white-space: pre-wrap; word-break: break-word; }
.url-warnings { border: 2px solid #cf222e; border-radius: 6px; background: #ffebe9; padding: .4rem .6rem; }
.url-warning { margin: .2rem 0; color: #82071e; font-weight: 600; }
#warnings p { margin: .5rem 1.25rem; color: #82071e; }
`;
