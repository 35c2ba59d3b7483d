"""Calls the generated Python bindings on the servers gen's TestPythonBindings
starts (BINDTEST_STANDALONE host:port, BINDTEST_REPLICATED primary,replica,
BINDTEST_CLUSTER host:port,...): redis-py sync and asyncio on standalone,
sync on the cluster, and the replica reads of both on a primary with a
replica and on the cluster. Prints "ok <case>" per passing case; an
assertion stops it with exit 1."""

import asyncio
import os
import sys
import time

import redis
import redis.asyncio
import redis.asyncio.cluster
from redis.cluster import ClusterNode, RedisCluster

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "gen"))

from catalogrefresh import catalogrefresh as catalog  # noqa: E402
from ratelimiter import ratelimiter  # noqa: E402
from reliablequeue import reliablequeue as queue  # noqa: E402
from rotest import rotest as ro  # noqa: E402
from tokenbucket import tokenbucket as bucket  # noqa: E402


class Recorded:
    def __init__(self, conn, names):
        self.conn, self.names = conn, names

    def send(self, cmd):
        self.names.append(cmd.name)
        return self.conn.send(cmd)


class AsyncRecorded(Recorded):
    async def send(self, cmd):
        self.names.append(cmd.name)
        return await self.conn.send(cmd)


def flush(addrs):
    for a in addrs:
        host, port = a.rsplit(":", 1)
        redis.Redis(host=host, port=int(port)).execute_command("SCRIPT", "FLUSH")


def expect_error(f, declared):
    try:
        f()
    except catalog.ScriptError as e:  # every binding has its own class: match by name
        assert e.declared is declared, (e, declared)
        return e
    except Exception as e:
        assert type(e).__name__ == "ScriptError" and getattr(e, "declared") is declared, (e, declared)
        return e
    raise AssertionError("no error")


def catalog_case(name, conn, addrs, id):
    names = []
    k = catalog.Client(Recorded(conn, names)).for_catalog_summary(id)
    flush(addrs)
    r = k.acquire("t1", "60000")
    assert isinstance(r, catalog.AcquireAcquired) and r.gen == "0", r
    assert names == ["EVALSHA", "EVAL"], names
    del names[:]
    busy = k.acquire("t2", "60000")
    assert isinstance(busy, catalog.AcquireBusy) and 0 < busy.pttl_ms <= 60000, busy
    assert names == ["EVALSHA"], names
    assert k.renew("t1", "60000") == catalog.RENEW_RENEWED
    assert k.publish("t1", "v1", "60000", r.gen, "") == catalog.PUBLISH_PUBLISHED
    assert k.acquire("t3", "60000") == catalog.AcquireCached(value="v1", gen="0")
    assert k.invalidate("3") == 1
    assert k.acquire("t4", "60000") == catalog.AcquireAcquired(gen="1")
    assert k.release("t4") == catalog.RELEASE_RELEASED
    assert k.release("t4") == catalog.RELEASE_NOT_OWNER
    e = expect_error(lambda: k.acquire("", "1"), catalog.ErrEmptyToken)
    assert e.reply == "ERR empty token", e.reply
    try:
        catalog.Client(conn).acquire("a", "b", "c", "t", "1")
        raise AssertionError("cross-slot call sent")
    except catalog.CrossSlotError:
        pass
    print("ok catalog " + name)


def examples_case(name, make, addrs, id):
    flush(addrs)
    rl = ratelimiter.Client(make(ratelimiter)).for_api(id)
    now = int(time.time() * 1000)
    assert rl.allow(str(now), "60000", "1") == ratelimiter.AllowAllowed(remaining=0)
    assert rl.allow(str(now + 1), "60000", "1") == ratelimiter.AllowRefused(retry_after_ms=59999)
    expect_error(lambda: rl.allow("x", "1", "1"), ratelimiter.ErrInvalidNowMs)
    q = queue.Client(make(queue)).for_mailer(id)
    assert q.claim("60000") is None
    assert q.enqueue("j1", "60000") == 1
    assert q.claim("60000") == "j1"
    assert q.ack("j1") == queue.ACK_ACKED
    tb = bucket.Client(make(bucket)).for_api_gateway(id)
    assert tb.take("1", "600000", "1") == bucket.TakeTaken(tokens=0)
    refused = tb.take("1", "600000", "1")
    assert isinstance(refused, bucket.TakeRefused) and refused.wait_ms > 0, refused
    names = []
    store = ro.Client(Recorded(make(ro), names)).for_store(id)
    assert store.peek() is None
    assert names == ["EVALSHA_RO", "EVAL_RO"], names
    del names[:]
    store.put("x")
    assert names == ["EVALSHA", "EVAL"], names
    print("ok examples " + name)


async def async_case(name, c, addrs, id):
    names = []
    k = catalog.AsyncClient(AsyncRecorded(catalog.AsyncRedisPyConn(c), names)).for_catalog_summary(id)
    flush(addrs)
    r = await k.acquire("t1", "60000")
    assert isinstance(r, catalog.AcquireAcquired), r
    assert names == ["EVALSHA", "EVAL"], names
    assert await k.publish("t1", "v1", "60000", r.gen, "") == catalog.PUBLISH_PUBLISHED
    assert await k.acquire("t2", "60000") == catalog.AcquireCached(value="v1", gen="0")
    try:
        await k.acquire("", "1")
        raise AssertionError("no error")
    except catalog.ScriptError as e:
        assert e.declared is catalog.ErrEmptyToken
    await c.close()
    print("ok catalog " + name)


def placeholder_case():
    """A key builder raises PlaceholderError for a value its caller's
    declared pattern refuses (ASCII \\w as Go's: "é" is not a word
    character) or that would break a key's hash tag; harmless braces pass."""
    b = ro.Client(None)
    cat = catalog.Client(None)

    def refused(f, placeholder):
        try:
            f()
        except (ro.PlaceholderError, catalog.PlaceholderError) as e:
            assert isinstance(e, ValueError)
            assert e.placeholder == placeholder, (e, placeholder)
            return e
        raise AssertionError("accepted")

    refused(lambda: b.for_store(""), "id")
    refused(lambda: b.for_store("a}b"), "id")
    refused(lambda: b.for_store("é"), "id")
    b.for_store("x-1_Y")
    refused(lambda: b.for_audit("a{b", "1"), "ns")
    e = refused(lambda: b.for_audit("a", "x}y"), "id")
    assert e.reason == "must not hold '}': it is inside the hash tag of <ns>:{t-<id>}:item and would end it early", e.reason
    b.for_audit("a", "")
    b.for_audit("a}", "{")
    refused(lambda: cat.for_catalog_summary("4}2"), "id")
    cat.for_catalog_summary("{x")
    cat.for_catalog_summary("")
    refused(lambda: ro.AsyncClient(None).for_store("é"), "id")
    print("ok placeholders")


class Scripted:
    """A Conn that replies from a list, recording the commands."""

    def __init__(self, replies):
        self.replies, self.sent = list(replies), []

    def send(self, cmd):
        self.sent.append(cmd)
        if not self.replies:
            return catalog.ErrorReply("ERR nothing scripted")
        return self.replies.pop(0)()


class AsyncScripted(Scripted):
    async def send(self, cmd):
        return Scripted.send(self, cmd)


def timeout():
    raise TimeoutError("Timeout reading from socket")


async def protocol_case():
    """EVAL follows only an error reply whose code is NOSCRIPT (either
    server's text), once, with the body; a timeout resends only an
    idempotent script (renew), once; sync and asyncio."""
    for reply, want in [
        ("NOSCRIPT No matching script. Please use EVAL.", ["EVALSHA", "EVAL"]),
        ("NOSCRIPT No matching script.", ["EVALSHA", "EVAL"]),
        ("ERR NOSCRIPT-like text", ["EVALSHA"]),
        ("NOSCRIPTX", ["EVALSHA"]),
    ]:
        for is_async in (False, True):
            c = (AsyncScripted if is_async else Scripted)([lambda: catalog.ErrorReply(reply), lambda: catalog.ErrorReply("NOSCRIPT again")])
            try:
                if is_async:
                    await catalog.AsyncClient(c).for_catalog_summary("1").release("t")
                else:
                    catalog.Client(c).for_catalog_summary("1").release("t")
                raise AssertionError("no error")
            except catalog.ScriptError:
                pass
            assert [x.name for x in c.sent] == want, (reply, c.sent)
            assert c.sent[0].script == catalog.RELEASE_SHA1
            if len(c.sent) == 2:
                assert "redis.call" in c.sent[1].script
    for is_async in (False, True):
        def call(replies, script):
            c = (AsyncScripted if is_async else Scripted)(replies)
            k = (catalog.AsyncClient(c) if is_async else catalog.Client(c)).for_catalog_summary("1")
            return c, (lambda: k.acquire("t", "1")) if script == "acquire" else (lambda: k.renew("t", "1"))

        async def result(thunk):
            v = thunk()
            return await v if is_async else v

        c, v = call([timeout, lambda: 1], "acquire")
        try:
            await result(v)
            raise AssertionError("acquire resent after a timeout")
        except TimeoutError:
            pass
        assert [x.name for x in c.sent] == ["EVALSHA"], c.sent
        c, v = call([timeout, lambda: 1], "renew")
        assert await result(v) == catalog.RENEW_RENEWED
        assert [x.name for x in c.sent] == ["EVALSHA", "EVALSHA"], c.sent
        c, v = call([timeout, timeout, lambda: 1], "renew")
        try:
            await result(v)
            raise AssertionError("renew resent twice")
        except TimeoutError:
            pass
        assert [x.name for x in c.sent] == ["EVALSHA", "EVALSHA"], c.sent
    print("ok protocol")


RO_COMMANDS = ["evalsha_ro", "eval_ro", "fcall_ro", "evalsha", "eval", "fcall"]


def node(a):
    host, port = a.rsplit(":", 1)
    return redis.Redis(host=host, port=int(port))


def role_calls(addrs):
    """INFO commandstats calls of RO_COMMANDS summed over the replicas and
    over the primaries."""
    replicas, primaries = dict.fromkeys(RO_COMMANDS, 0), dict.fromkeys(RO_COMMANDS, 0)
    for a in addrs:
        n = node(a)
        stats = n.info("commandstats")
        into = replicas if n.info("replication")["role"] == "slave" else primaries
        for c in RO_COMMANDS:
            into[c] += stats.get("cmdstat_" + c, {}).get("calls", 0)
    return replicas, primaries


def delta(before, after):
    return {c: after[c] - before[c] for c in RO_COMMANDS if after[c] != before[c]}


def prepare(addrs):
    """Loads the ro library's Functions on the primaries (replicated to the
    replicas) and empties every node's script cache; returns the replicas."""
    with open(os.environ["BINDTEST_RO_FUNCTIONS"]) as f:
        code = f.read()
    replicas = [a for a in addrs if node(a).info("replication")["role"] == "slave"]
    for a in addrs:
        if a not in replicas:
            node(a).execute_command("FUNCTION", "LOAD", "REPLACE", code)
    for a in replicas:
        for i in range(100001):
            if node(a).execute_command("FUNCTION", "LIST", "LIBRARYNAME", "ro_test_v1"):
                break
        else:
            raise AssertionError("replica %s never got the Functions library" % a)
    flush(addrs)
    return replicas


WANT_REPLICA = ({"evalsha_ro": 3, "eval_ro": 1}, {}, {"fcall_ro": 3}, {})


def replica_case(name, conn, addrs, id):
    """Three reads by EVALSHA_RO after SCRIPT FLUSH (one EVAL_RO), three by
    FCALL_RO: the replicas serve them all, the primaries none."""
    prepare(addrs)
    names = []
    reads = ro.Client(Recorded(conn, names)).for_store(id)
    fn = ro.Client(Recorded(conn, names), "functions").for_store(id)
    r0, p0 = role_calls(addrs)
    for _ in range(3):
        reads.peek()
    r1, p1 = role_calls(addrs)
    for _ in range(3):
        fn.peek()
    r2, p2 = role_calls(addrs)
    assert all(n.endswith("_RO") for n in names), names
    got = (delta(r0, r1), delta(p0, p1), delta(r1, r2), delta(p1, p2))
    assert got == WANT_REPLICA, (name, got)
    print("ok replica " + name)


async def async_replica_case(name, client, addrs, id):
    prepare(addrs)
    names = []
    conn = AsyncRecorded(ro.AsyncRedisPyConn(client), names)
    reads = ro.AsyncClient(conn).for_store(id)
    fn = ro.AsyncClient(conn, "functions").for_store(id)
    r0, p0 = role_calls(addrs)
    for _ in range(3):
        await reads.peek()
    r1, p1 = role_calls(addrs)
    for _ in range(3):
        await fn.peek()
    r2, p2 = role_calls(addrs)
    assert all(n.endswith("_RO") for n in names), names
    got = (delta(r0, r1), delta(p0, p1), delta(r1, r2), delta(p1, p2))
    assert got == WANT_REPLICA, (name, got)
    await client.close()
    print("ok replica " + name)


def main():
    placeholder_case()
    asyncio.run(protocol_case())
    replicated = os.environ["BINDTEST_REPLICATED"].split(",")
    cluster = os.environ["BINDTEST_CLUSTER"].split(",")
    # Standalone: redis-py does not send reads to a replica by itself (only
    # through Sentinel); a client connected to the replica serves them.
    replica_case("standalone/redis-py", ro.RedisPyConn(node(replicated[1])), replicated, "py-rep")
    host, port = replicated[1].rsplit(":", 1)
    asyncio.run(async_replica_case("standalone/redis-py-asyncio", redis.asyncio.Redis(host=host, port=int(port)), replicated, "py-async-rep"))
    # Cluster: read_from_replicas=True, the adapter naming the replica.
    rcr = RedisCluster(startup_nodes=[ClusterNode(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in cluster], read_from_replicas=True)
    replica_case("cluster/redis-py", ro.RedisPyConn(rcr), cluster, "pyc-rep")
    arc = redis.asyncio.cluster.RedisCluster(startup_nodes=[redis.asyncio.cluster.ClusterNode(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in cluster], read_from_replicas=True)
    asyncio.run(async_replica_case("cluster/redis-py-asyncio", arc, cluster, "pyc-async-rep"))

    standalone = os.environ["BINDTEST_STANDALONE"]
    cluster = os.environ["BINDTEST_CLUSTER"].split(",")
    host, port = standalone.rsplit(":", 1)
    r = redis.Redis(host=host, port=int(port))
    catalog_case("standalone/redis-py", catalog.RedisPyConn(r), [standalone], "py")
    examples_case("standalone/redis-py", lambda mod: mod.RedisPyConn(r), [standalone], "py")
    asyncio.run(async_case("standalone/redis-py-asyncio", redis.asyncio.Redis(host=host, port=int(port)), [standalone], "py-async"))
    rc = RedisCluster(startup_nodes=[ClusterNode(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in cluster])
    catalog_case("cluster/redis-py", catalog.RedisPyConn(rc), cluster, "pyc")
    examples_case("cluster/redis-py", lambda mod: mod.RedisPyConn(rc), cluster, "pyc")
    ac = redis.asyncio.cluster.RedisCluster(startup_nodes=[redis.asyncio.cluster.ClusterNode(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in cluster])
    asyncio.run(async_case("cluster/redis-py-asyncio", ac, cluster, "pyc-async"))


main()
