// Calls every generated TypeScript binding on the servers gen's
// TestTSBindings starts: BINDTEST_STANDALONE (host:port) and
// BINDTEST_CLUSTER (host:port,...). Prints "ok <case>" per passing case and
// exits 1 on the first failure.
import assert from "node:assert/strict";
import Redis, { Cluster } from "ioredis";
import { createClient } from "redis";
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

async function main(): Promise<void> {
  const standalone = process.env.BINDTEST_STANDALONE;
  const cluster = process.env.BINDTEST_CLUSTER?.split(",");
  if (!standalone || !cluster) throw new Error("BINDTEST_STANDALONE and BINDTEST_CLUSTER must be set");

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
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
