/**
 * The inbox's parts without a browser: which Host values it answers to, the server-side check of an answer against
 * its `requestedSchema`, the snapshot the page gets (order, countdown margin, escaped text), and one answer per
 * question across concurrent requests.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore, type InputRequest, type TaskRecord } from '../../../src/index.js';
import {
  checkAnswer,
  InboxTasks,
  questionView,
  taskKey,
  type AnswerableQuestion,
  type Deliverer,
} from '../src/inbox/inbox-tasks.js';
import { pageHtml } from '../src/inbox/page/assets.js';
import { hostRule } from '../src/inbox/security.js';

const form: InputRequest = {
  method: 'elicitation/create',
  params: {
    message: 'Deploy?',
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: { type: 'boolean' },
        replicas: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
      },
      required: ['confirm'],
    },
  },
} as InputRequest;

function record(overrides: Partial<TaskRecord>): TaskRecord {
  return {
    version: 1,
    server: 'http://127.0.0.1:1/mcp',
    method: 'tools/call',
    name: 'job',
    taskId: 't1',
    localCreatedAt: 1_000_000,
    ttlMs: 100_000,
    status: 'working',
    answeredKeys: [],
    updatedAt: 1_000_000,
    ...overrides,
  } as TaskRecord;
}

/** A deliverer whose questions answer after `gate` resolves, counting what they sent. */
function fakeDeliverer(questions: Map<string, Map<string, AnswerableQuestion>>): Deliverer {
  return {
    via: 'sent',
    sync: async () => undefined,
    questions: (r) => questions.get(taskKey(r.server, r.taskId)) ?? new Map(),
    follower: () => 'inbox',
    cancel: async () => undefined,
    collect: async () => undefined,
    uncollected: () => false,
    warnings: () => [],
    close: async () => undefined,
  };
}

describe('inbox Host rule (DNS rebinding)', () => {
  it('a loopback inbox answers to its loopback names and port only', () => {
    const allow = hostRule('127.0.0.1', 4711);
    expect(['127.0.0.1:4711', 'localhost:4711', '[::1]:4711'].map(allow)).toEqual([true, true, true]);
    expect(['evil.example:4711', '127.0.0.1:4712', '127.0.0.1', '10.0.0.5:4711'].map(allow)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('a wildcard bind answers to IP literals, never to a DNS name', () => {
    const allow = hostRule('0.0.0.0', 8765);
    expect(['10.0.0.5:8765', '[fe80::1]:8765', 'localhost:8765'].map(allow)).toEqual([true, true, true]);
    expect(['rebind.example:8765', '10.0.0.5:80'].map(allow)).toEqual([false, false]);
  });
});

describe('the server-side check of an answer', () => {
  it('accept needs content valid for requestedSchema; defaults are filled in', () => {
    expect(checkAnswer(form, 'accept', { confirm: true })).toEqual({
      response: { action: 'accept', content: { confirm: true, replicas: 3 } },
    });
    expect(checkAnswer(form, 'accept', { replicas: 12 })).toEqual({
      problems: ['confirm: required', 'replicas: must be at most 9'],
    });
    expect(checkAnswer(form, 'accept', 'yes')).toEqual({ problems: ['content must be an object'] });
  });

  it('decline and cancel carry no content; anything else is refused', () => {
    expect(checkAnswer(form, 'decline', { confirm: true })).toEqual({ response: { action: 'decline' } });
    expect(checkAnswer(form, 'cancel', undefined)).toEqual({ response: { action: 'cancel' } });
    expect(checkAnswer(form, 'approve', {})).toEqual({
      problems: ['action must be accept, decline or cancel'],
    });
    const url = {
      method: 'elicitation/create',
      params: { mode: 'url', url: 'https://x.example', message: 'm' },
    };
    expect(checkAnswer(url as InputRequest, 'accept', { sneaky: 1 })).toEqual({
      response: { action: 'accept' },
    });
    // A URL the inbox will not open cannot be accepted (4.6): only declined or cancelled
    for (const target of ['javascript:alert(1)', 'not a url', 42]) {
      const unopenable = { method: 'elicitation/create', params: { mode: 'url', url: target, message: 'm' } };
      expect(checkAnswer(unopenable as InputRequest, 'accept', undefined)).toEqual({
        problems: ['this URL is not opened (only http and https URLs are): decline or cancel instead'],
      });
      expect(checkAnswer(unopenable as InputRequest, 'decline', undefined)).toEqual({
        response: { action: 'decline' },
      });
    }
  });
});

describe('URL-mode questions for the page', () => {
  const ask = (url: unknown): InputRequest =>
    ({
      method: 'elicitation/create',
      params: { mode: 'url', message: 'visit', url, elicitationId: 'e' },
    }) as InputRequest;

  it("carry the terminal's warnings: a non-ASCII host and a host-like user name (4.6a)", () => {
    const view = questionView('k', ask('https://accounts.google.com@xn--pple-43d.com:8443/login'), true);
    expect(view).toMatchObject({
      mode: 'url',
      urlHost: 'xn--pple-43d.com:8443',
      urlHref: 'https://accounts.google.com@xn--pple-43d.com:8443/login',
      urlWarnings: [
        'warning: the host is written with non-ASCII letters (\u0430pple.com); the real host is xn--pple-43d.com. Letters of other scripts can look exactly like Latin ones: open it only if xn--pple-43d.com is the site you expect.',
        'warning: "accounts.google.com" before the @ is a user name, not the site: this URL leads to xn--pple-43d.com.',
      ],
    });
    // A host written in Unicode by the server is shown in its punycode form, with the same warning
    expect(questionView('k', ask('https://\u0430pple.com/'), true)).toMatchObject({
      urlHost: 'xn--pple-43d.com',
      urlWarnings: [
        expect.stringMatching(/^warning: the host is written with non-ASCII letters \(\u0430pple\.com\)/),
      ],
    });
    expect(questionView('k', ask('https://pay.example/x'), true)).toMatchObject({
      urlHost: 'pay.example',
      urlHref: 'https://pay.example/x',
      urlWarnings: [],
    });
  });

  it('give no link for a URL that is not opened, and say why', () => {
    const js = questionView('k', ask('javascript:alert(1)'), true);
    expect(js).toMatchObject({
      urlHost: '(no host: a javascript: URL)',
      urlWarnings: ['warning: a javascript: URL; only http and https URLs are opened'],
    });
    expect(js.urlHref).toBeUndefined();
    const broken = questionView('k', ask('not a url\u202e'), true);
    expect(broken).toMatchObject({
      url: 'not a url\\u202e',
      urlHost: '(not a URL)',
      urlWarnings: ['warning: this is not a valid URL; it will not be opened'],
    });
    expect(broken.urlHref).toBeUndefined();
  });
});

describe('the snapshot and answers', () => {
  it('orders waiting tasks first, escapes server text, and marks the expiring margin', async () => {
    const store = new MemoryTaskStore();
    await store.put(record({ taskId: 'done', status: 'completed', outcome: { status: 'cancelled' } }));
    await store.put(record({ taskId: 'running', statusMessage: 'ok \u202Egnp.exe' }));
    await store.put(
      record({ taskId: 'asking', status: 'input_required', task: { inputRequests: { confirm: form } } }),
    );
    const tasks = new InboxTasks({ store, deliverer: fakeDeliverer(new Map()), refreshMs: 60_000 });
    await tasks.refresh();
    const views = tasks.snapshot.tasks;
    expect(views.map((t) => t.taskId)).toEqual(['asking', 'running', 'done']);
    expect(views[1]?.statusMessage).toBe('ok \\u202egnp.exe');
    expect(views[0]?.expiresAt).toBe(1_100_000);
    expect(views[0]?.urgentAt).toBe(1_080_000); // 20 % of the TTL before it runs out
    expect(views[0]?.questions).toMatchObject([{ key: 'confirm', mode: 'form', answerable: false }]);
    await tasks.close();
  });

  it('two concurrent answers to one question: one is taken, the other already answered, one respond call', async () => {
    const store = new MemoryTaskStore();
    await store.put(record({ status: 'input_required', task: { inputRequests: { confirm: form } } }));
    const sent: unknown[] = [];
    const question: AnswerableQuestion = {
      key: 'confirm',
      request: form,
      respond: async (response, options) => {
        sent.push({ response, options });
        await new Promise((r) => setTimeout(r, 20));
        return true;
      },
    };
    const id = taskKey('http://127.0.0.1:1/mcp', 't1');
    const tasks = new InboxTasks({
      store,
      deliverer: fakeDeliverer(new Map([[id, new Map([['confirm', question]])]])),
      refreshMs: 60_000,
    });
    await tasks.refresh();
    expect(await tasks.answer(id, 'confirm', 'accept', { replicas: 0 }, 'browser-1')).toEqual({
      result: 'invalid',
      problems: ['confirm: required', 'replicas: must be at least 1'],
    });
    const [a, b] = await Promise.all([
      tasks.answer(id, 'confirm', 'accept', { confirm: true }, 'browser-1'),
      tasks.answer(id, 'confirm', 'decline', undefined, 'browser-2'),
    ]);
    expect(a.result).toBe('taken');
    expect(b).toEqual({ result: 'already-answered' });
    expect(sent).toEqual([
      {
        response: { action: 'accept', content: { confirm: true, replicas: 3 } },
        options: { answeredBy: 'browser-1' },
      },
    ]);
    await tasks.refresh();
    expect(tasks.snapshot.tasks[0]?.questions).toEqual([]); // gone from the page at once
    await tasks.close();
  });

  it('the page shell carries only a base64url CSRF token', () => {
    expect(pageHtml('abc_DEF-123')).toContain('<meta name="inbox-csrf" content="abc_DEF-123">');
    expect(() => pageHtml('"><script>')).toThrow(TypeError);
  });
});
