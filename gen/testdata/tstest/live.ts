// Calls every generated TypeScript binding on the servers gen's
// TestTSBindings starts: BINDTEST_STANDALONE (host:port) and
// BINDTEST_CLUSTER (host:port,...). Prints "ok <case>" per passing case and
// exits 1 on the first failure.
import assert from "node:assert/strict";
import Redis, { Cluster } from "ioredis";
import { readFileSync } from "node:fs";
import { createClient, createCluster } from "redis";
import * as catalog from "./gen/catalogrefresh/catalogrefresh";
import * as ratelimiter from "./gen/ratelimiter/ratelimiter";
import * as queue from "./gen/reliablequeue/reliablequeue";
import * as bucket from "./gen/tokenbucket/tokenbucket";
import * as ro from "./gen/rotest/rotest";

type Send = { send(cmd: { name: string }): Promise<unknown> };

// recorded wraps a Conn and records the command names it sends.
function recorded<C extends Send>(conn: C, names: string[]): C {
  return { ...conn, send: (cmd: Parameters<C["send"]>[0]) => { names.push(cmd.name); return conn.send(cmd); } } as C;
}

function hostPort(a: string): { host: string; port: number } {
  const i = a.lastIndexOf(":");
  return { host: a.slice(0, i), port: Number(a.slice(i + 1)) };
}

async function flushAll(addrs: string[]): Promise<void> {
  for (const a of addrs) {
    const r = new Redis(hostPort(a));
    await r.call("SCRIPT", "FLUSH");
    r.disconnect();
  }
}

async function catalogCase(name: string, conn: catalog.Conn, addrs: string[], id: string): Promise<void> {
  const names: string[] = [];
  const b = new catalog.Client(recorded(conn, names));
  const k = b.forCatalogSummary(id);
  await flushAll(addrs);
  const r = await k.acquire({ token: "t1", leaseTTLMs: "60000" });
  assert.equal(r.kind, "acquired");
  assert.deepEqual(names.splice(0), ["EVALSHA", "EVAL"], "NOSCRIPT, then EVAL once");
  const busy = await k.acquire({ token: "t2", leaseTTLMs: "60000" });
  assert.ok(busy.kind === "busy" && busy.pttlMs > 0 && busy.pttlMs <= 60000);
  assert.deepEqual(names.splice(0), ["EVALSHA"]);
  assert.equal(await k.renew({ token: "t1", leaseTTLMs: "60000" }), catalog.RenewReply.Renewed);
  const gen = r.kind === "acquired" ? r.gen : "";
  assert.equal(await k.publish({ token: "t1", candidate: "v1", cacheTTLMs: "60000", gen, revision: "" }), catalog.PublishReply.Published);
  const cached = await k.acquire({ token: "t3", leaseTTLMs: "60000" });
  assert.deepEqual(cached, { kind: "cached", value: "v1", gen: "0" });
  assert.equal(await k.invalidate({ revision: "3" }), 1);
  const again = await k.acquire({ token: "t4", leaseTTLMs: "60000" });
  assert.deepEqual(again, { kind: "acquired", gen: "1" });
  assert.equal(await k.release({ token: "t4" }), catalog.ReleaseReply.Released);
  assert.equal(await k.release({ token: "t4" }), catalog.ReleaseReply.NotOwner);
  await assert.rejects(k.acquire({ token: "", leaseTTLMs: "1" }), (e: unknown) =>
    e instanceof catalog.ScriptError && e.declared === catalog.ErrEmptyToken && e.reply === "ERR empty token");
  await assert.rejects(b.acquire({ lease: "a", value: "b", gen: "c" }, { token: "t", leaseTTLMs: "1" }), catalog.CrossSlotError);
  console.log("ok catalog " + name);
}

async function examplesCase(name: string, conns: { rl: ratelimiter.Conn; q: queue.Conn; tb: bucket.Conn; ro: ro.Conn }, addrs: string[], id: string): Promise<void> {
  await flushAll(addrs);
  const rl = new ratelimiter.Client(conns.rl).forAPI(id);
  const now = Date.now();
  assert.deepEqual(await rl.allow({ nowMs: String(now), windowMs: "60000", limit: "1" }), { kind: "allowed", remaining: 0 });
  assert.deepEqual(await rl.allow({ nowMs: String(now + 1), windowMs: "60000", limit: "1" }), { kind: "refused", retryAfterMs: 59999 });
  await assert.rejects(rl.allow({ nowMs: "x", windowMs: "1", limit: "1" }), (e: unknown) => e instanceof ratelimiter.ScriptError && e.declared === ratelimiter.ErrInvalidNowMs);

  const q = new queue.Client(conns.q).forMailer(id);
  assert.equal(await q.claim({ retentionMs: "60000" }), null);
  assert.equal(await q.enqueue({ job: "j1", retentionMs: "60000" }), 1);
  assert.equal(await q.claim({ retentionMs: "60000" }), "j1");
  assert.equal(await q.ack({ job: "j1" }), queue.AckReply.Acked);
  assert.equal(await q.requeue({ job: "j1", retentionMs: "60000" }), queue.RequeueReply.NotProcessing);

  const tb = new bucket.Client(conns.tb).forAPIGateway(id);
  assert.deepEqual(await tb.take({ capacity: "1", refillMs: "600000", cost: "1" }), { kind: "taken", tokens: 0 });
  const refused = await tb.take({ capacity: "1", refillMs: "600000", cost: "1" });
  assert.ok(refused.kind === "refused" && refused.waitMs > 0);

  const names: string[] = [];
  const store = new ro.Client(recorded(conns.ro, names)).forStore(id);
  assert.equal(await store.peek({}), null);
  assert.deepEqual(names.splice(0), ["EVALSHA_RO", "EVAL_RO"]);
  await store.put({ value: "x" });
  assert.deepEqual(names.splice(0), ["EVALSHA", "EVAL"]);
  console.log("ok examples " + name);
}

// A key builder throws a PlaceholderError for a value its caller's
// declared pattern refuses (ASCII \w as Go's: "é" is not a word character)
// or that would break a key's hash tag, and accepts harmless braces.
function placeholderCase(): void {
  const conn: ro.Conn = { send: () => Promise.reject(new Error("nothing is sent")) };
  const b = new ro.Client(conn);
  const cat = new catalog.Client({ send: () => Promise.reject(new Error("nothing is sent")) });
  const refused = (f: () => unknown, placeholder: string) =>
    assert.throws(f, (e: unknown) => (e instanceof ro.PlaceholderError || e instanceof catalog.PlaceholderError) && e.placeholder === placeholder);
  refused(() => b.forStore(""), "id");
  refused(() => b.forStore("a}b"), "id");
  refused(() => b.forStore("é"), "id");
  b.forStore("x-1_Y");
  refused(() => b.forAudit("a{b", "1"), "ns");
  refused(() => b.forAudit("a", "x}y"), "id");
  b.forAudit("a", "");
  b.forAudit("a}", "{");
  refused(() => cat.forCatalogSummary("4}2"), "id");
  cat.forCatalogSummary("{x");
  cat.forCatalogSummary("");
  assert.throws(() => b.forAudit("a", "x}y"), { message: `caller audit: placeholder <id> = "x}y" must not hold '}': it is inside the hash tag of <ns>:{t-<id>}:item and would end it early` });
  console.log("ok placeholders");
}

// The call protocol on a scripted Conn: EVAL follows only an error reply
// whose code is NOSCRIPT (either server's text), once, with the body; a
// timeout resends only an idempotent script (renew), once.
async function protocolCase(): Promise<void> {
  const scripted = (replies: Array<() => catalog.Reply>) => {
    const sent: catalog.Command[] = [];
    const conn: catalog.Conn = {
      send: async (cmd) => {
        sent.push(cmd);
        const f = replies.shift();
        return f ? f() : new catalog.ErrorReply("ERR nothing scripted");
      },
    };
    return { k: new catalog.Client(conn).forCatalogSummary("1"), sent, names: () => sent.map((c) => c.name) };
  };
  const err = (m: string) => () => new catalog.ErrorReply(m);
  for (const [reply, want] of [
    ["NOSCRIPT No matching script. Please use EVAL.", ["EVALSHA", "EVAL"]],
    ["NOSCRIPT No matching script.", ["EVALSHA", "EVAL"]],
    ["ERR NOSCRIPT-like text", ["EVALSHA"]],
    ["NOSCRIPTX", ["EVALSHA"]],
  ] as const) {
    const c = scripted([err(reply), err("NOSCRIPT again")]);
    await assert.rejects(c.k.release({ token: "t" }), catalog.ScriptError);
    assert.deepEqual(c.names(), want, reply);
    assert.equal(c.sent[0].script, catalog.ReleaseSHA1);
    if (c.sent.length === 2) assert.ok(c.sent[1].script.includes("redis.call"), "EVAL sends the body");
  }
  const timeout = () => { throw new Error("Command timed out"); };
  let c = scripted([timeout, () => 1]);
  await assert.rejects(c.k.acquire({ token: "t", leaseTTLMs: "1" }), /timed out/);
  assert.deepEqual(c.names(), ["EVALSHA"], "acquire is not resent after a timeout");
  c = scripted([timeout, () => 1]);
  assert.equal(await c.k.renew({ token: "t", leaseTTLMs: "1" }), catalog.RenewReply.Renewed);
  assert.deepEqual(c.names(), ["EVALSHA", "EVALSHA"], "idempotent renew is resent once");
  c = scripted([timeout, timeout, () => 1]);
  await assert.rejects(c.k.renew({ token: "t", leaseTTLMs: "1" }), /timed out/);
  assert.deepEqual(c.names(), ["EVALSHA", "EVALSHA"], "only once");
  console.log("ok protocol");
}

const roCommands = ["evalsha_ro", "eval_ro", "fcall_ro", "evalsha", "eval", "fcall"];
type Calls = Record<string, number>;

// roleCalls sums INFO commandstats calls of roCommands over the replicas
// and over the primaries of addrs.
async function roleCalls(addrs: string[]): Promise<{ replicas: Calls; primaries: Calls }> {
  const out = { replicas: {} as Calls, primaries: {} as Calls };
  for (const a of addrs) {
    const r = new Redis(hostPort(a));
    const info = String(await r.call("INFO", "commandstats")) + String(await r.call("INFO", "replication"));
    r.disconnect();
    const sum = info.includes("role:slave") ? out.replicas : out.primaries;
    for (const c of roCommands) {
      const m = new RegExp("^cmdstat_" + c + ":calls=(\\d+)", "m").exec(info);
      sum[c] = (sum[c] ?? 0) + (m ? Number(m[1]) : 0);
    }
  }
  return out;
}

function delta(before: Calls, after: Calls): Calls {
  const d: Calls = {};
  for (const c of roCommands) if (after[c] !== before[c]) d[c] = after[c] - before[c];
  return d;
}

// prepare loads the ro library's Functions on the primaries (replicated to
// the replicas) and empties every node's script cache.
async function prepare(primaries: string[], replicas: string[], addrs: string[]): Promise<void> {
  const code = readFileSync(process.env.BINDTEST_RO_FUNCTIONS ?? "", "utf8");
  for (const p of primaries) {
    const r = new Redis(hostPort(p));
    await r.call("FUNCTION", "LOAD", "REPLACE", code);
    r.disconnect();
  }
  for (const a of replicas) {
    const r = new Redis(hostPort(a));
    for (let i = 0; ; i++) {
      const libs = (await r.call("FUNCTION", "LIST", "LIBRARYNAME", "ro_test_v1")) as unknown[];
      if (libs.length > 0) break;
      if (i > 100000) throw new Error("replica " + a + " never got the Functions library");
    }
    r.disconnect();
  }
  await flushAll(addrs);
}

async function roles(addrs: string[]): Promise<{ primaries: string[]; replicas: string[] }> {
  const out = { primaries: [] as string[], replicas: [] as string[] };
  for (const a of addrs) {
    const r = new Redis(hostPort(a));
    const info = String(await r.call("INFO", "replication"));
    r.disconnect();
    (info.includes("role:slave") ? out.replicas : out.primaries).push(a);
  }
  return out;
}

// replicaCase calls the no-writes script peek through conn, scripts then
// Functions, and checks which role served the _RO commands. exact: the
// client sends every read to the replica (after SCRIPT FLUSH: 3 EVALSHA_RO,
// 1 EVAL_RO, then 3 FCALL_RO, none on a primary); otherwise the client
// spreads reads over the primary and its replicas: every call is a _RO
// command and a replica serves at least one (the scripts are loaded on
// every node first, as deploy does).
async function replicaCase(name: string, conn: ro.Conn, addrs: string[], exact: boolean, id: string): Promise<void> {
  const { primaries, replicas } = await roles(addrs);
  await prepare(primaries, replicas, addrs);
  const names: string[] = [];
  const reads = new ro.Client(recorded(conn, names)).forStore(id);
  const fn = new ro.Client(recorded(conn, names), { mode: "functions" }).forStore(id);
  const n = exact ? 3 : 6;
  if (!exact) {
    for (const a of addrs) {
      const r = new Redis(hostPort(a));
      await r.call("SCRIPT", "LOAD", readFileSync(process.env.BINDTEST_RO_PEEK ?? "", "utf8"));
      r.disconnect();
    }
  }
  const b0 = await roleCalls(addrs);
  for (let i = 0; i < n; i++) await reads.peek({});
  const b1 = await roleCalls(addrs);
  for (let i = 0; i < n; i++) await fn.peek({});
  const b2 = await roleCalls(addrs);
  const sent = names.splice(0);
  assert.ok(sent.every((c) => c.endsWith("_RO")), "every read is a _RO command: " + sent.join(" "));
  const rs = delta(b0.replicas, b1.replicas), ps = delta(b0.primaries, b1.primaries);
  const rf = delta(b1.replicas, b2.replicas), pf = delta(b1.primaries, b2.primaries);
  if (exact) {
    assert.deepEqual({ rs, ps, rf, pf }, { rs: { evalsha_ro: 3, eval_ro: 1 }, ps: {}, rf: { fcall_ro: 3 }, pf: {} }, name);
  } else {
    assert.ok((rs.evalsha_ro ?? 0) >= 1 && (rs.evalsha_ro ?? 0) + (ps.evalsha_ro ?? 0) === n && !rs.evalsha && !ps.evalsha, name + ": " + JSON.stringify({ rs, ps }));
    assert.ok((rf.fcall_ro ?? 0) >= 1 && (rf.fcall_ro ?? 0) + (pf.fcall_ro ?? 0) === n && !rf.fcall && !pf.fcall, name + ": " + JSON.stringify({ rf, pf }));
  }
  console.log("ok replica " + name);
}

async function main(): Promise<void> {
  placeholderCase();
  await protocolCase();
  const standalone = process.env.BINDTEST_STANDALONE;
  const cluster = process.env.BINDTEST_CLUSTER?.split(",");
  const replicated = process.env.BINDTEST_REPLICATED?.split(",");
  if (!standalone || !cluster || !replicated) throw new Error("BINDTEST_STANDALONE, BINDTEST_REPLICATED and BINDTEST_CLUSTER must be set");

  // Standalone: neither client sends reads to a replica by itself; a
  // client connected to the replica serves the binding's reads.
  const ioRep = new Redis(hostPort(replicated[1]));
  await replicaCase("standalone/ioredis", ro.ioredisConn(ioRep), replicated, true, "ts-io-rep");
  ioRep.disconnect();
  const nrRep = createClient({ url: "redis://" + replicated[1] });
  await nrRep.connect();
  await replicaCase("standalone/node-redis", ro.nodeRedisConn(nrRep), replicated, true, "ts-nr-rep");
  await nrRep.quit();
  // Cluster: ioredis with scaleReads "slave" sends every read-only command
  // to a replica; node-redis with useReplicas spreads them over the primary
  // and its replicas.
  const iocRep = new Cluster(cluster.map(hostPort), { scaleReads: "slave" });
  await replicaCase("cluster/ioredis", ro.ioredisConn(iocRep), cluster, true, "ts-ioc-rep");
  iocRep.disconnect();
  const nrc = createCluster({ rootNodes: cluster.map((a) => ({ url: "redis://" + a })), useReplicas: true });
  await nrc.connect();
  await replicaCase("cluster/node-redis", ro.nodeRedisClusterConn(nrc), cluster, false, "ts-nrc-rep");
  await nrc.quit();

  const io = new Redis(hostPort(standalone));
  await catalogCase("standalone/ioredis", catalog.ioredisConn(io), [standalone], "ts-io");
  await examplesCase("standalone/ioredis", { rl: ratelimiter.ioredisConn(io), q: queue.ioredisConn(io), tb: bucket.ioredisConn(io), ro: ro.ioredisConn(io) }, [standalone], "ts-io");
  io.disconnect();

  const nr = createClient({ url: "redis://" + standalone });
  await nr.connect();
  await catalogCase("standalone/node-redis", catalog.nodeRedisConn(nr), [standalone], "ts-nr");
  await examplesCase("standalone/node-redis", { rl: ratelimiter.nodeRedisConn(nr), q: queue.nodeRedisConn(nr), tb: bucket.nodeRedisConn(nr), ro: ro.nodeRedisConn(nr) }, [standalone], "ts-nr");
  await nr.quit();

  const ioc = new Cluster(cluster.map(hostPort));
  await catalogCase("cluster/ioredis", catalog.ioredisConn(ioc), cluster, "ts-ioc");
  await examplesCase("cluster/ioredis", { rl: ratelimiter.ioredisConn(ioc), q: queue.ioredisConn(ioc), tb: bucket.ioredisConn(ioc), ro: ro.ioredisConn(ioc) }, cluster, "ts-ioc");
  ioc.disconnect();

  const nc = createCluster({ rootNodes: cluster.map((a) => ({ url: "redis://" + a })) });
  await nc.connect();
  await catalogCase("cluster/node-redis", catalog.nodeRedisClusterConn(nc), cluster, "ts-nc");
  await examplesCase("cluster/node-redis", { rl: ratelimiter.nodeRedisClusterConn(nc), q: queue.nodeRedisClusterConn(nc), tb: bucket.nodeRedisClusterConn(nc), ro: ro.nodeRedisClusterConn(nc) }, cluster, "ts-nc");
  await nc.quit();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
