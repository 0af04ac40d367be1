/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The inbox page's script (bundled for the browser at build time, served as `/app.js`). It builds every element
 * with `createElement` and puts every string from the inbox in `textContent`, `value` or a checked `href` (http and
 * https only): no server text is ever parsed as markup. The list follows the server-sent `tasks` events; forms the
 * person is filling are kept across updates.
 */
import { checkContent, setField, type FormField } from '../../input/schema-fields.js';
import type { InboxSnapshot, QuestionView, TaskDetails, TaskView } from '../view.js';

const csrf = document.querySelector<HTMLMetaElement>('meta[name="inbox-csrf"]')?.content ?? '';
const list = document.getElementById('tasks') as HTMLOListElement;
const connection = document.getElementById('connection') as HTMLElement;
let snapshot: InboxSnapshot = { now: Date.now(), tasks: [], warnings: [] };
let clockOffsetMs = 0;
/** Notes shown under a task after this page acted on it (answer taken, refused…), by task id. */
const notes = new Map<string, string>();

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Inbox-CSRF': csrf },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = (await response.json()) as Record<string, unknown>;
  } catch {
    parsed = {};
  }
  return { status: response.status, body: parsed };
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${String(m % 60).padStart(2, '0')}m` : `${Math.floor(h / 24)} d`;
}

const clock = (ms: number): string => new Date(ms).toLocaleTimeString();

function updateClocks(): void {
  const now = Date.now() + clockOffsetMs;
  for (const item of list.querySelectorAll<HTMLLIElement>('li.task')) {
    const task = snapshot.tasks.find((t) => t.id === item.dataset.id);
    if (!task) continue;
    const age = item.querySelector('.age');
    if (age) age.textContent = `started ${duration(now - task.createdAt)} ago`;
    const left = item.querySelector<HTMLElement>('.left');
    if (!left) continue;
    if (task.expiresAt === null) left.textContent = 'never expires';
    else if (now >= task.expiresAt) left.textContent = 'TTL passed';
    else left.textContent = `${duration(task.expiresAt - now)} left`;
    const urgent = task.outcome === undefined && task.urgentAt !== null && now >= task.urgentAt;
    left.classList.toggle('urgent', urgent);
  }
}

function fieldInput(field: FormField): HTMLElement {
  const wrap = el('div', 'field');
  wrap.dataset.field = field.name;
  const label = el('label', 'label', `${field.label}${field.required ? ' *' : ''}`);
  const id = `f-${Math.random().toString(36).slice(2)}`;
  label.htmlFor = id;
  wrap.append(label);
  switch (field.kind) {
    case 'boolean': {
      const input = el('input');
      input.type = 'checkbox';
      input.id = id;
      input.checked = field.default === true;
      wrap.append(input);
      break;
    }
    case 'enum': {
      const select = el('select');
      select.id = id;
      if (!field.required || field.default === undefined) select.append(el('option', undefined, ''));
      for (const option of field.options) {
        const o = el('option', undefined, option.title);
        o.value = option.value;
        select.append(o);
      }
      select.value = field.default ?? '';
      wrap.append(select);
      break;
    }
    case 'multi': {
      const box = el('div', 'choices');
      box.id = id;
      for (const option of field.options) {
        const line = el('label');
        const input = el('input');
        input.type = 'checkbox';
        input.value = option.value;
        input.checked = field.default?.includes(option.value) ?? false;
        line.append(input, document.createTextNode(` ${option.title}`));
        box.append(line);
      }
      wrap.append(box);
      break;
    }
    case 'number': {
      const input = el('input');
      input.type = 'number';
      input.id = id;
      input.step = field.integer ? '1' : 'any';
      if (field.minimum !== undefined) input.min = String(field.minimum);
      if (field.maximum !== undefined) input.max = String(field.maximum);
      if (field.default !== undefined) input.value = String(field.default);
      wrap.append(input);
      break;
    }
    default: {
      const input = el('input');
      input.type = 'text';
      input.id = id;
      if (field.kind === 'string') {
        if (field.default !== undefined) input.value = field.default;
        if (field.maxLength !== undefined) input.maxLength = field.maxLength;
        if (field.format) input.placeholder = field.format;
      }
      wrap.append(input);
    }
  }
  if (field.description) wrap.append(el('span', 'hint', field.description));
  return wrap;
}

/** The content of a filled form: fields left empty are left out (defaults and `required` are checked after). */
function readForm(form: HTMLFormElement, fields: readonly FormField[]): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    const wrap = [...form.querySelectorAll<HTMLElement>('.field')].find(
      (w) => w.dataset.field === field.name,
    );
    if (!wrap) continue;
    let value: unknown;
    if (field.kind === 'boolean') value = wrap.querySelector<HTMLInputElement>('input')?.checked ?? false;
    else if (field.kind === 'multi')
      value = [...wrap.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value);
    else if (field.kind === 'enum') value = wrap.querySelector('select')?.value || undefined;
    else {
      const raw = wrap.querySelector<HTMLInputElement>('input')?.value ?? '';
      value = raw === '' ? undefined : field.kind === 'number' ? Number(raw) : raw;
    }
    if (value !== undefined) setField(content, field.name, value);
  }
  return content;
}

function questionForm(task: TaskView, question: QuestionView): HTMLFormElement {
  const form = el('form', 'question');
  form.dataset.key = question.key;
  form.dataset.answerable = String(question.answerable);
  form.noValidate = true;
  form.append(el('div', 'question-text', question.message || `(${question.method})`));
  const problems = el('div', 'problems');
  const buttons = el('div', 'buttons');
  const send = async (action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>) => {
    for (const b of buttons.querySelectorAll('button')) b.disabled = true;
    problems.textContent = '';
    try {
      const answer = await post('/api/answer', { id: task.id, key: question.key, action, content });
      const result = answer.body.result;
      if (result === 'taken')
        notes.set(
          task.id,
          `The server took the answer (${action}) at ${clock(Number(answer.body.takenAt))}.`,
        );
      else if (result === 'queued')
        notes.set(
          task.id,
          `Answer (${action}) queued at ${clock(Number(answer.body.at))} for ${String(answer.body.holder)}, which follows this task and sends it.`,
        );
      else if (result === 'already-answered')
        notes.set(task.id, 'This question was already answered elsewhere.');
      else if (result === 'invalid') {
        problems.textContent = (answer.body.problems as string[]).join('\n');
        for (const b of buttons.querySelectorAll('button')) b.disabled = false;
        return;
      } else notes.set(task.id, `The answer was not delivered: ${String(answer.body.error ?? result)}`);
      render();
    } catch (error) {
      problems.textContent = `Could not reach the inbox: ${String(error)}`;
      for (const b of buttons.querySelectorAll('button')) b.disabled = false;
    }
  };
  if (question.mode === 'form') {
    for (const field of question.fields) form.append(fieldInput(field));
    const accept = el('button', 'accept', 'Accept');
    accept.type = 'submit';
    buttons.append(accept);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const checked = checkContent(question.fields, readForm(form, question.fields));
      if ('problems' in checked) problems.textContent = checked.problems.join('\n');
      else void send('accept', checked.content);
    });
  } else if (question.mode === 'url') {
    form.append(el('div', 'url-host', `Opens a page on ${question.urlHost ?? ''}`));
    // Warnings come before the link, so they are read before anything is clicked
    const warnings = question.urlWarnings ?? [];
    if (warnings.length > 0) {
      const box = el('div', 'url-warnings');
      box.setAttribute('role', 'alert');
      box.append(...warnings.map((warning) => el('p', 'url-warning', warning)));
      form.append(box);
    }
    if (question.urlHref) {
      const link = el('a', 'url-text', question.url);
      link.href = question.urlHref;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      form.append(link);
      const done = el('button', 'accept', 'Done (accept)');
      done.type = 'submit';
      buttons.append(done);
    } else form.append(el('div', 'url-text', `${question.url ?? ''} (not an http(s) link: not opened)`));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      // Only a link the person could open can be accepted
      if (question.urlHref) void send('accept');
    });
  } else form.addEventListener('submit', (event) => event.preventDefault());
  if (question.mode !== 'other') {
    const decline = el('button', 'secondary decline', 'Decline');
    decline.type = 'button';
    decline.addEventListener('click', () => void send('decline'));
    const cancel = el('button', 'secondary dismiss', 'Cancel');
    cancel.type = 'button';
    cancel.title = 'Dismiss without choosing';
    cancel.addEventListener('click', () => void send('cancel'));
    buttons.append(decline, cancel);
  }
  if (!question.answerable) {
    for (const b of buttons.querySelectorAll('button')) b.disabled = true;
    form.append(el('div', 'note', 'Not answerable from this inbox (no process here follows this task).'));
  }
  form.append(buttons, problems);
  return form;
}

function statusText(task: TaskView): string {
  if (task.outcome === undefined && task.cancelRequested) return 'cancel requested';
  return task.status;
}

function taskItem(task: TaskView, item: HTMLLIElement): void {
  item.classList.toggle('waiting', task.questions.length > 0);
  item.classList.toggle('ended', task.outcome !== undefined);
  let head = item.querySelector<HTMLElement>('.head');
  if (!head) {
    head = el('div', 'head');
    item.prepend(head);
  }
  head.replaceChildren();
  const row = el('div', 'row');
  const status = el('span', `status ${task.status}`, statusText(task));
  row.append(el('span', 'tool', task.tool), status);
  if (task.uncollected) row.append(el('span', 'badge uncollected', 'uncollected'));
  row.append(el('span', 'age note'), el('span', 'left'));
  const actions = el('span', 'actions');
  if (task.outcome === undefined && !task.cancelRequested) {
    const cancel = el('button', 'danger cancel-task', 'Cancel task');
    cancel.type = 'button';
    cancel.addEventListener('click', async () => {
      cancel.disabled = true;
      const result = await post('/api/cancel', { id: task.id });
      if (result.status !== 200)
        notes.set(task.id, `The cancel was not delivered: ${String(result.body.error)}`);
      render();
    });
    actions.append(cancel);
  }
  const open = el('button', 'secondary open-details', 'Details');
  open.type = 'button';
  open.addEventListener('click', () => void showDetails(task.id));
  actions.append(open);
  row.append(actions);
  head.append(row);
  if (task.statusMessage !== undefined) head.append(el('div', 'message', task.statusMessage));
  const meta = el('div', 'row');
  meta.append(el('span', 'taskid', task.taskId), el('span', 'server', task.server));
  meta.append(
    el('span', 'note follower', `followed by: ${task.follower}${task.holder ? ` (${task.holder})` : ''}`),
  );
  head.append(meta);
  for (const answer of task.answers) {
    const taken = answer.takenAt
      ? `, taken by the server at ${clock(answer.takenAt)}`
      : ` (${answer.via}; not yet taken by the server)`;
    head.append(
      el(
        'div',
        'note answer',
        `[${answer.key}] ${answer.action} by ${answer.by} at ${clock(answer.at)}${taken}`,
      ),
    );
  }
  const note = notes.get(task.id);
  if (note) head.append(el('div', 'note page-note', note));
  // Questions: keep forms being filled; drop the ones answered or gone, rebuild one whose answerability changed.
  const wanted = new Map(task.questions.map((q) => [q.key, q]));
  for (const form of item.querySelectorAll<HTMLFormElement>('form.question')) {
    const question = wanted.get(form.dataset.key ?? '');
    if (!question || form.dataset.answerable !== String(question.answerable)) form.remove();
  }
  for (const question of task.questions) {
    const present = [...item.querySelectorAll<HTMLFormElement>('form.question')].some(
      (f) => f.dataset.key === question.key,
    );
    if (!present) item.append(questionForm(task, question));
  }
}

function render(): void {
  const items = new Map(
    [...list.querySelectorAll<HTMLLIElement>('li.task')].map((li) => [li.dataset.id ?? '', li]),
  );
  const wanted: HTMLLIElement[] = [];
  for (const task of snapshot.tasks) {
    let item = items.get(task.id);
    if (!item) {
      item = el('li', 'task');
      item.dataset.id = task.id;
    }
    items.delete(task.id);
    taskItem(task, item);
    wanted.push(item);
  }
  for (const gone of items.values()) gone.remove();
  wanted.forEach((item, i) => {
    if (list.children[i] !== item) list.insertBefore(item, list.children[i] ?? null);
  });
  (document.getElementById('empty') as HTMLElement).hidden = snapshot.tasks.length > 0;
  const warnings = document.getElementById('warnings') as HTMLElement;
  warnings.replaceChildren(...snapshot.warnings.map((w) => el('p', undefined, w)));
  updateClocks();
}

async function showDetails(id: string): Promise<void> {
  const response = await fetch(`/api/tasks/${encodeURIComponent(id)}`, { credentials: 'same-origin' });
  if (!response.ok) return;
  const details = (await response.json()) as TaskDetails;
  (document.getElementById('details-title') as HTMLElement).textContent =
    `${details.task.tool}: ${details.task.status} (${details.task.taskId})`;
  (document.getElementById('details-record') as HTMLElement).textContent = details.recordText;
  (document.getElementById('details-outcome') as HTMLElement).textContent =
    details.outcomeText ?? 'not ended yet';
  (document.getElementById('details-answers') as HTMLElement).replaceChildren(
    ...details.task.answers.map((a) =>
      el('li', undefined, `[${a.key}] ${a.action} by ${a.by} at ${clock(a.at)} (${a.via})`),
    ),
  );
  (document.getElementById('details') as HTMLDialogElement).showModal();
  if (details.task.outcome !== undefined) await post('/api/collect', { id });
}

function connect(): void {
  const events = new EventSource('/events');
  events.addEventListener('open', () => {
    connection.textContent = 'live';
    connection.classList.add('live');
  });
  events.addEventListener('error', () => {
    connection.textContent = 'reconnecting…';
    connection.classList.remove('live');
  });
  events.addEventListener('tasks', (event) => {
    snapshot = JSON.parse((event as MessageEvent<string>).data) as InboxSnapshot;
    clockOffsetMs = snapshot.now - Date.now();
    render();
  });
}

(document.getElementById('new-link') as HTMLButtonElement).addEventListener('click', async () => {
  const result = await post('/api/link', {});
  (document.getElementById('link') as HTMLOutputElement).textContent = String(result.body.link ?? '');
});
setInterval(updateClocks, 1000);
connect();
