import { writeHeapSnapshot } from "node:v8";
import { readFileSync, unlinkSync } from "node:fs";
import { TaskClient } from "../dist/index.js";
import { benchCatalog, InMemoryTransport, TaskServerCore } from "../dist/testing/index.js";
const n = Number(process.env.N ?? 1e4);
const api = process.env.API ?? "callTool";
const bench = benchCatalog();
const core = new TaskServerCore({ pollIntervalMs: 6e4, inlineBudgetMs: 0, ttlMs: null, catalog: bench.catalog });
let client = new TaskClient({ transport: new InMemoryTransport(core) });
function owners(file) {
  const s = JSON.parse(readFileSync(file, "utf8"));
  const f = s.snapshot.meta.node_fields;
  const nf = f.length;
  const nodes = s.nodes;
  const strings = s.strings;
  const edges = s.edges;
  const ef = s.snapshot.meta.edge_fields.length;
  const types = s.snapshot.meta.node_types[0];
  const iType = f.indexOf("type"), iName = f.indexOf("name"), iEdges = f.indexOf("edge_count"), iSize = f.indexOf("self_size");
  const eTo = s.snapshot.meta.edge_fields.indexOf("to_node"), eName = s.snapshot.meta.edge_fields.indexOf("name_or_index"), eType = s.snapshot.meta.edge_fields.indexOf("type");
  const etypes = s.snapshot.meta.edge_types[0];
  const m = /* @__PURE__ */ new Map();
  let e = 0;
  for (let i = 0; i < nodes.length; i += nf) {
    const owner = strings[nodes[i + iName]];
    for (let k = 0; k < nodes[i + iEdges]; k++, e += ef) {
      const to = edges[e + eTo];
      if (types[nodes[to + iType]] === "array" && strings[nodes[to + iName]] === "(object properties)") {
        const key = types[nodes[i + iType]] + ":" + owner.slice(0, 60) + " via " + String(etypes[edges[e + eType]]) + ":" + (etypes[edges[e + eType]] === "element" || etypes[edges[e + eType]] === "hidden" ? edges[e + eName] : strings[edges[e + eName]]);
        const v = m.get(key) ?? [0, 0];
        v[0]++;
        v[1] += nodes[to + iSize];
        m.set(key, v);
      }
    }
  }
  return m;
}
function agg(file) {
  const s = JSON.parse(readFileSync(file, "utf8"));
  const f = s.snapshot.meta.node_fields;
  const nf = f.length;
  const nodes = s.nodes;
  const strings = s.strings;
  const types = s.snapshot.meta.node_types[0];
  const m = /* @__PURE__ */ new Map();
  for (let i = 0; i < nodes.length; i += nf) {
    const t = types[nodes[i + f.indexOf("type")]];
    const name = strings[nodes[i + f.indexOf("name")]];
    const key = `${t}:${t === "string" || t === "concatenated string" ? "" : name.slice(0, 70)}`;
    const v = m.get(key) ?? [0, 0];
    v[0]++;
    v[1] += nodes[i + f.indexOf("self_size")];
    m.set(key, v);
  }
  return m;
}
await Promise.all(Array.from({ length: 20 }, () => client.callTool("echo", { text: "warm-up" })));
let pending = [];
let handles = [];
for (let i = 0; i < n; i++) {
  if (api === "startTool") {
    const s = await client.startTool("sleep_ms", { ms: 864e5 });
    handles.push(s.task);
  } else await new Promise((resolve) => {
    const c2 = client.callTool("sleep_ms", { ms: 864e5 }, { onTask: () => resolve() });
    c2.catch(() => {
    });
    pending.push(c2);
  });
}
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 100));
globalThis.gc?.();
const bf = writeHeapSnapshot("/tmp/b.heapsnapshot");
const b = agg(bf);
const ob = owners(bf);
unlinkSync(bf);
await client.close();
client = void 0;
pending = void 0;
handles = void 0;
await new Promise((r) => setTimeout(r, 300));
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 100));
globalThis.gc?.();
const cf = writeHeapSnapshot("/tmp/c.heapsnapshot");
const c = agg(cf);
const oc = owners(cf);
unlinkSync(cf);
for (const [k, v] of ob) {
  const o = oc.get(k) ?? [0, 0];
  if (v[1] - o[1] > n * 8) console.log("props owner", k, ((v[0] - o[0]) / n).toFixed(2), ((v[1] - o[1]) / n).toFixed(0));
}
const rows = [];
let tot = 0;
for (const [k, v] of b) {
  const o = c.get(k) ?? [0, 0];
  const dc = v[0] - o[0], ds = v[1] - o[1];
  tot += ds;
  if (Math.abs(ds) > n * 8) rows.push([k, dc / n, ds / n]);
}
rows.sort((x, y) => y[2] - x[2]);
console.log(api, "client bytes/task total", (tot / n).toFixed(0));
for (const r of rows.slice(0, 40)) console.log(r[2].toFixed(0).padStart(6), r[1].toFixed(2).padStart(6), r[0]);
process.exit(0);
