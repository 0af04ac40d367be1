/**
 * The table rows of the side-by-side with `@modelcontextprotocol/ext-tasks` (issue: "every figure as ours ÷ peer and
 * ours ÷ floor, measured in the same run"): correctness, inline latency, CPU per request against the undici floor,
 * fan-out at each size and interval (ours, ext-tasks, ours + push), heap per idle task over HTTP.
 */
import { round } from './measure.js';

export type Row = [string, string, string];
type Get = (name: string) => Record<string, any> | undefined;

const div = (a: unknown, b: unknown): string =>
  typeof a === 'number' && typeof b === 'number' && b !== 0 ? String(round(a / b, 2)) : '–';
const show = (v: unknown): string => (v === undefined || v === null ? '–' : String(v));

function correctnessRows(get: Get): Row[] {
  const c = get('correctness');
  if (!c) return [];
  const cell = (x: any): string => {
    if (!x) return '–';
    const client = x.client.status === 'rejected' ? x.client.message.split(':')[0] : x.client.status;
    const server =
      typeof x.server === 'object'
        ? ` · server ${x.server.serverStatus}, updates ${x.server.updates}, cancels ${x.server.cancels}`
        : ' · inline';
    return `${x.ok ? '✓' : '✗'} ${client}${server}`;
  };
  return ['inline', 'task', 'question', 'cancel'].map((name) => [
    `1. correctness, ${name} (ours / ext-tasks)`,
    `${cell(c.ours?.[name])} / ${cell(c.peer?.[name])}`,
    'both ✓ expected',
  ]);
}

function requestRows(get: Get): Row[] {
  const rows: Row[] = [];
  const inline = get('inline');
  if (inline) {
    const [o, f, p] = [inline.ours, inline.official, inline.peer ?? {}];
    rows.push([
      '4. inline echo, p50 ms (ours / official / ext-tasks)',
      `${o.medianMs} / ${f.medianMs} / ${show(p.medianMs)}`,
      `ours÷peer ${div(o.medianMs, p.medianMs)}, ours÷official ${div(o.medianMs, f.medianMs)}`,
    ]);
    rows.push([
      '4. inline echo, p99 ms (ours / official / ext-tasks)',
      `${o.p99Ms} / ${f.p99Ms} / ${show(p.p99Ms)}`,
      `ours÷peer ${div(o.p99Ms, p.p99Ms)} (target ≤ 1)`,
    ]);
    rows.push([
      '4. inline echo, calls/s (ours / official / ext-tasks)',
      `${o.throughputPerS} / ${f.throughputPerS} / ${show(p.throughputPerS)}`,
      `ours÷peer ${div(o.throughputPerS, p.throughputPerS)}`,
    ]);
  }
  const cost = get('request-cost');
  if (cost) {
    const { inline: i, poll } = cost.cpuMsPerRequest;
    rows.push([
      '5. floor: bare undici POST, CPU ms (inline echo / tasks/get)',
      `${i.floor} / ${poll.floor}`,
      'the floor of every ÷floor below',
    ]);
    rows.push([
      '5. CPU ms per inline call (ours / ours-fetch / official / ext-tasks)',
      `${i.ours} / ${i.oursFetch} / ${i.official} / ${show(i.peer)}`,
      `ours÷floor ${div(i.ours, i.floor)} (target ≤ 1.5), ours÷peer ${div(i.ours, i.peer)}`,
    ]);
    rows.push([
      '5. CPU ms per tasks/get (ours / ours-fetch)',
      `${poll.ours} / ${poll.oursFetch}`,
      `ours÷floor ${div(poll.ours, poll.floor)} (target ≤ 1.5)`,
    ]);
    rows.push([
      '5. CPU ms, no tracer provider / provider recording (inline echo)',
      `${i.ours} / ${show(i.oursTraced)}`,
      `traced÷ours ${div(i.oursTraced, i.ours)} (${show(cost.tracedSpans)} spans recorded in all)`,
    ]);
    rows.push([
      '5. CPU ms, no tracer provider / provider recording (tasks/get)',
      `${poll.ours} / ${show(poll.oursTraced)}`,
      `traced÷ours ${div(poll.oursTraced, poll.ours)}`,
    ]);
    const bare = get('request-cost-no-otel')?.cpuMsPerRequest;
    if (bare) {
      rows.push([
        '5. without @opentelemetry/api: floor / ours, CPU ms (inline echo)',
        `${bare.inline.floor} / ${bare.inline.ours}`,
        `ours÷floor ${div(bare.inline.ours, bare.inline.floor)} (with the API, no provider: ${div(i.ours, i.floor)})`,
      ]);
      rows.push([
        '5. without @opentelemetry/api: floor / ours, CPU ms (tasks/get)',
        `${bare.poll.floor} / ${bare.poll.ours}`,
        `ours÷floor ${div(bare.poll.ours, bare.poll.floor)} (with the API, no provider: ${div(poll.ours, poll.floor)})`,
      ]);
    }
  }
  return rows;
}

function fanoutRows(get: Get, tasks: number, interval: number): Row[] {
  const [o, p, q] = ['ours', 'ext', 'push'].map((k) => get(`peer-${k}-${tasks}-${interval}`));
  if (!o && !p && !q) return [];
  const floorPoll = get('request-cost')?.cpuMsPerRequest?.poll?.floor as number | undefined;
  const label = `2. ${tasks} tasks, I=${interval} ms (ours / ext-tasks / ours+push)`;
  const three = (f: (r: Record<string, any>) => unknown): string =>
    [o, p, q].map((r) => (r ? show(f(r)) : '–')).join(' / ');
  const rtt = q?.loopbackRoundTripMs?.p50Ms as number | undefined;
  const pushTarget = rtt !== undefined ? round(rtt + 50, 1) : undefined;
  return [
    [
      `${label}: polls ÷ minimum`,
      three((r) => r.disciplineRatio),
      `ours÷peer ${div(o?.disciplineRatio, p?.disciplineRatio)} (1 = the floor; push needs fewer)`,
    ],
    [`${label}: early polls`, three((r) => r.earlyPolls), 'target 0'],
    [
      `${label}: delay p50 ms`,
      three((r) => r.delay.p50Ms),
      `ours÷peer ${div(o?.delay.p50Ms, p?.delay.p50Ms)}, push÷peer ${div(q?.delay.p50Ms, p?.delay.p50Ms)}`,
    ],
    [
      `${label}: delay p99 ms`,
      three((r) => r.delay.p99Ms),
      `ours÷peer ${div(o?.delay.p99Ms, p?.delay.p99Ms)} (target ≤ 1), ours÷I ${div(o?.delay.p99Ms, interval)} (target ≤ 1.5); push ≤ RTT+50 = ${show(pushTarget)}`,
    ],
    [
      `${label}: CPU ms per 1,000 polls`,
      three((r) => r.cpuMsPer1000Polls),
      `ours÷peer ${div(o?.cpuMsPer1000Polls, p?.cpuMsPer1000Polls)}, ours÷floor ${floorPoll ? div(o?.cpuMsPer1000Polls, floorPoll * 1000) : '–'}`,
    ],
    [
      `${label}: CPU ms per task (polling phase)`,
      three((r) => r.cpuMsPerTask),
      `ours÷peer ${div(o?.cpuMsPerTask, p?.cpuMsPerTask)}, push÷peer ${div(q?.cpuMsPerTask, p?.cpuMsPerTask)}`,
    ],
    [`${label}: tasks/get per task`, three((r) => round(r.tasksGetTotal / tasks, 2)), 'push target ≤ 1.2'],
    [
      `${label}: scheduler lag p50 / p99 ms (ours; ours+push)`,
      `${show(o?.schedulerLagMs?.p50)} / ${show(o?.schedulerLagMs?.p99)}; ${show(q?.schedulerLagMs?.p50)} / ${show(q?.schedulerLagMs?.p99)}`,
      'due → sent',
    ],
    [
      `${label}: tasks not completed on the client`,
      three((r) => r.failureCount ?? 0),
      'details in results.json (failures)',
    ],
  ];
}

function heapRows(get: Get, sizes: number[]): Row[] {
  const rows: Row[] = [];
  for (const n of sizes) {
    const [o, p] = [get(`hold-http-ours-${n}`), get(`hold-http-peer-${n}`)];
    if (!o && !p) continue;
    rows.push([
      `3. ${n} idle tasks over HTTP: client heap per task KB (ours / ext-tasks)`,
      `${show(o?.heapPerTaskKb.held)} / ${show(p?.heapPerTaskKb.held)}`,
      `ours÷peer ${div(o?.heapPerTaskKb.held, p?.heapPerTaskKb.held)}; ours target ≤ 3.5`,
    ]);
  }
  return rows;
}

/** Every side-by-side row, in the order, from the phase results of one run. */
export function sideBySideRows(
  get: Get,
  sizes: { peerTasks: number[]; peerIntervalsMs: number[]; holdHttpTasks: number[] },
): Row[] {
  const rows = [...correctnessRows(get)];
  for (const tasks of sizes.peerTasks)
    for (const interval of sizes.peerIntervalsMs) rows.push(...fanoutRows(get, tasks, interval));
  rows.push(...heapRows(get, sizes.holdHttpTasks), ...requestRows(get));
  return rows;
}
