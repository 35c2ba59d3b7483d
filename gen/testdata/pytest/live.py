"""Calls the generated Python bindings on the servers gen's TestPythonBindings
starts (BINDTEST_STANDALONE host:port, BINDTEST_CLUSTER host:port,...):
redis-py sync and asyncio on standalone, sync on the cluster. Prints
"ok <case>" per passing case; an assertion stops it with exit 1."""

import asyncio
import os
import sys
import time

import redis
import redis.asyncio
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


async def async_case(addr, id):
    host, port = addr.rsplit(":", 1)
    c = redis.asyncio.Redis(host=host, port=int(port))
    names = []
    k = catalog.AsyncClient(AsyncRecorded(catalog.AsyncRedisPyConn(c), names)).for_catalog_summary(id)
    flush([addr])
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
    print("ok catalog standalone/redis-py-asyncio")


def main():
    standalone = os.environ["BINDTEST_STANDALONE"]
    cluster = os.environ["BINDTEST_CLUSTER"].split(",")
    host, port = standalone.rsplit(":", 1)
    r = redis.Redis(host=host, port=int(port))
    catalog_case("standalone/redis-py", catalog.RedisPyConn(r), [standalone], "py")
    examples_case("standalone/redis-py", lambda mod: mod.RedisPyConn(r), [standalone], "py")
    asyncio.run(async_case(standalone, "py-async"))
    rc = RedisCluster(startup_nodes=[ClusterNode(a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in cluster])
    catalog_case("cluster/redis-py", catalog.RedisPyConn(rc), cluster, "pyc")
    examples_case("cluster/redis-py", lambda mod: mod.RedisPyConn(rc), cluster, "pyc")


main()
