package refresh

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
)

// env is one Redis deployment the suite runs against: a standalone server
// or a 6-node cluster. The bundled Functions library is loaded on every
// primary.
type env struct {
	name      string
	client    rueidis.Client      // what a Cache uses
	primaries []*redistest.Server // SCRIPT FLUSH, FUNCTION LOAD
}

// standaloneEnv and clusterEnv start a deployment that the subtests of one
// test share (each subtest uses its own ids); the processes stop in that
// test's Cleanup.
func standaloneEnv(t *testing.T) *env {
	t.Helper()
	s := redistest.Standalone(t)
	e := &env{name: "standalone", client: s.Client(), primaries: []*redistest.Server{s}}
	e.loadFunctions(t)
	return e
}

func clusterEnv(t *testing.T) *env {
	t.Helper()
	c := redistest.NewCluster(t)
	e := &env{name: "cluster", client: c.Client(), primaries: c.Primaries}
	e.loadFunctions(t)
	return e
}

func (e *env) loadFunctions(t *testing.T) {
	t.Helper()
	lib := string(loadManifest(t).FunctionsLibrary())
	for _, p := range e.primaries {
		p.MustDo("FUNCTION", "LOAD", "REPLACE", lib)
	}
}

// do runs a raw command on key's node.
func (e *env) do(t *testing.T, cmd, key string, args ...string) rueidis.RedisResult {
	t.Helper()
	c := e.client
	return c.Do(context.Background(), c.B().Arbitrary(cmd).Keys(key).Args(args...).Build())
}

// rawGet reads key with a plain GET.
func (e *env) rawGet(t *testing.T, key string) (string, bool) {
	t.Helper()
	v, err := e.do(t, "GET", key).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false
	}
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	return v, true
}

// storedPayload reads the value key with a plain GET and decodes it.
func (e *env) storedPayload(t *testing.T, key string) (string, bool) {
	t.Helper()
	raw, ok := e.rawGet(t, key)
	if !ok {
		return "", false
	}
	p, _, err := DecodeValue([]byte(raw))
	if err != nil {
		t.Fatalf("stored value of %s: %v", key, err)
	}
	return string(p), true
}

func (e *env) mustDo(t *testing.T, cmd, key string, args ...string) {
	t.Helper()
	if err := e.do(t, cmd, key, args...).Error(); err != nil {
		t.Fatalf("%s %s %v: %v", cmd, key, args, err)
	}
}

// waitGone waits until key does not exist (a lease expiring by its TTL).
func (e *env) waitGone(t *testing.T, key string) {
	t.Helper()
	waitUntil(t, key+" to expire", func() bool {
		n, err := e.do(t, "EXISTS", key).ToInt64()
		return err == nil && n == 0
	})
}

// waitUntil polls cond until it holds; the generous deadline only bounds a
// broken test, it is never part of the choreography.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// newCache returns a Cache on e with test-friendly defaults: leases and
// waits long enough never to end by accident on a loaded machine.
func (e *env) newCache(t *testing.T, o Options) *Cache {
	t.Helper()
	if o.LeaseTTL == 0 {
		o.LeaseTTL = time.Minute
	}
	if o.WaitTimeout == 0 {
		o.WaitTimeout = time.Minute
	}
	if o.PollInterval == 0 {
		o.PollInterval = 5 * time.Millisecond
	}
	c, err := New(e.client, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// outcome is a Get's result, delivered from a goroutine.
type outcome struct {
	v   []byte
	err error
}

func goGet(c *Cache, id string, load func(context.Context) ([]byte, error)) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		v, err := c.Get(context.Background(), id, load)
		ch <- outcome{v, err}
	}()
	return ch
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// value returns a loader that returns v.
func value(v string) func(context.Context) ([]byte, error) {
	return func(context.Context) ([]byte, error) { return []byte(v), nil }
}

// unconditionalPublish makes c publish like the regression the scripts fix:
// a plain SET of the candidate, whatever the lease holds. Test only.
func unconditionalPublish(c *Cache) {
	c.publishFn = func(ctx context.Context, k keys, token, candidate, ttl, gen, rev string) (publishResult, error) {
		px, err := strconv.ParseInt(ttl, 10, 64)
		if err != nil {
			return 0, err
		}
		cl := c.r.client
		if err := cl.Do(ctx, cl.B().Set().Key(k.value).Value(candidate).PxMilliseconds(px).Build()).Error(); err != nil {
			return 0, err
		}
		return published, nil
	}
}

// unconditionalRelease makes c release like the regression the token-safe
// release fixes: a plain DEL of the lease, whoever holds it. Test only.
func unconditionalRelease(c *Cache) {
	c.releaseFn = func(ctx context.Context, k keys, token string) (renewal, error) {
		cl := c.r.client
		n, err := cl.Do(ctx, cl.B().Del().Key(k.lease).Build()).AsInt64()
		return renewal{extended: n == 1}, err
	}
}

// maxGauge tracks the highest concurrency seen.
type maxGauge struct {
	mu       sync.Mutex
	cur, max int
}

func (g *maxGauge) enter() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cur++
	g.max = max(g.max, g.cur)
	return g.cur
}

func (g *maxGauge) leave() {
	g.mu.Lock()
	g.cur--
	g.mu.Unlock()
}

func (g *maxGauge) current() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cur
}

func (g *maxGauge) highest() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}

func loadManifest(t testing.TB) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}
