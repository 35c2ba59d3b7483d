package refresh

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/lua"
)

// Tokens are 128 random bits, new for every acquisition, including the
// re-acquisition after waiting for an admission slot; a lease is released
// at once when no slot is free.
func testTokens(t *testing.T, e *env) {
	c := e.newCache(t, Options{MaxConcurrentLoads: 1})
	var mu sync.Mutex
	var tokens []string
	c.newToken = func() string {
		tok := newToken()
		mu.Lock()
		tokens = append(tokens, tok)
		mu.Unlock()
		return tok
	}
	idA, idB := "tok-a-"+e.name, "tok-b-"+e.name
	ka, _ := c.keys(idA)
	kb, _ := c.keys(idB)

	loadingA, resumeA := make(chan struct{}), make(chan struct{})
	doneA := goGet(c, idA, func(context.Context) ([]byte, error) {
		mu.Lock()
		first := tokens[0]
		mu.Unlock()
		if lease, _ := e.rawGet(t, ka.lease); lease != first {
			t.Errorf("lease of A = %q, want the first token %q", lease, first)
		}
		close(loadingA)
		<-resumeA
		return []byte("a"), nil
	})
	receive(t, loadingA, "A's loader")
	doneB := goGet(c, idB, value("b"))
	waitUntil(t, "B to wait for a slot", func() bool { return c.Stats().AdmissionWaits == 1 })
	if lease, ok := e.rawGet(t, kb.lease); ok {
		t.Errorf("B kept its lease %q while waiting for a slot", lease)
	}
	close(resumeA)
	for _, ch := range []<-chan outcome{doneA, doneB} {
		if got := receive(t, ch, "a Get"); got.err != nil {
			t.Fatal(got.err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(tokens) != 3 {
		t.Fatalf("%d acquisitions, want 3 (A, B, B again after the slot wait): %v", len(tokens), tokens)
	}
	seen := map[string]bool{}
	for _, tok := range tokens {
		if len(tok) != 32 || !isHex(tok) || seen[tok] {
			t.Fatalf("bad or reused token %q in %v", tok, tokens)
		}
		seen[tok] = true
	}
}

// Stale serving, with a fake clock for publish times and deadlines.
func testStale(t *testing.T, e *env) {
	const cacheTTL, staleFor = time.Minute, 10 * time.Second
	t0 := time.UnixMilli(1_764_457_200_000)
	newStale := func(t *testing.T, clock *atomic.Int64) *Cache {
		c := e.newCache(t, Options{CacheTTL: cacheTTL, StaleFor: staleFor, WaitTimeout: 20 * time.Millisecond, OnWaitTimeout: TimeoutFail})
		clock.Store(t0.UnixMilli())
		c.now = func() time.Time { return time.UnixMilli(clock.Load()) }
		return c
	}
	boom := errors.New("origin down")
	failing := func(context.Context) ([]byte, error) { return nil, boom }

	t.Run("while another owner refreshes", func(t *testing.T) {
		var clock atomic.Int64
		c := newStale(t, &clock)
		id := "stale-busy-" + e.name
		k, _ := c.keys(id)
		if v, err := c.Get(context.Background(), id, value("v0")); err != nil || string(v) != "v0" {
			t.Fatalf("Get = %q, %v", v, err)
		}
		raw, _ := e.rawGet(t, k.value)
		if _, pub, _ := DecodeValue([]byte(raw)); !pub.Equal(t0) {
			t.Fatalf("stored publish time %v, want %v", pub, t0)
		}
		e.mustDo(t, "DEL", k.value) // expired
		e.mustDo(t, "SET", k.lease, "other", "PX", "600000")
		clock.Store(t0.Add(cacheTTL + staleFor - time.Millisecond).UnixMilli())
		if v, err := c.Get(context.Background(), id, failing); err != nil || string(v) != "v0" {
			t.Fatalf("Get while busy = %q, %v; want the stale copy", v, err)
		}
		clock.Store(t0.Add(cacheTTL + staleFor).UnixMilli()) // the hard deadline
		if v, err := c.Get(context.Background(), id, failing); !errors.Is(err, ErrWaitTimeout) {
			t.Fatalf("Get past the stale deadline = %q, %v; want ErrWaitTimeout", v, err)
		}
		if s := c.Stats(); s.StaleServed != 1 || s.Loads != 1 || s.WaitTimeouts != 1 {
			t.Fatalf("stats = %+v", s)
		}
	})
	t.Run("failed refresh does not extend the deadline", func(t *testing.T) {
		var clock atomic.Int64
		c := newStale(t, &clock)
		id := "stale-fail-" + e.name
		k, _ := c.keys(id)
		if _, err := c.Get(context.Background(), id, value("v0")); err != nil {
			t.Fatal(err)
		}
		e.mustDo(t, "DEL", k.value)
		clock.Store(t0.Add(cacheTTL + staleFor - time.Millisecond).UnixMilli())
		if v, err := c.Get(context.Background(), id, failing); err != nil || string(v) != "v0" {
			t.Fatalf("Get with a failing loader = %q, %v; want the stale copy", v, err)
		}
		if _, ok := e.rawGet(t, k.lease); ok {
			t.Fatal("lease kept after the failed refresh")
		}
		clock.Store(t0.Add(cacheTTL + staleFor).UnixMilli())
		v, err := c.Get(context.Background(), id, failing)
		if !errors.Is(err, boom) || v != nil {
			t.Fatalf("Get past the deadline = %q, %v; want the loader's error", v, err)
		}
		if s := c.Stats(); s.StaleServed != 1 || s.LoaderErrors != 2 || s.Loads != 3 {
			t.Fatalf("stats = %+v", s)
		}
	})
	t.Run("a newer publication moves the deadline", func(t *testing.T) {
		var clock atomic.Int64
		c := newStale(t, &clock)
		id := "stale-newer-" + e.name
		k, _ := c.keys(id)
		if _, err := c.Get(context.Background(), id, value("v0")); err != nil {
			t.Fatal(err)
		}
		// Another process publishes v1 later; this process reads it.
		e.mustDo(t, "SET", k.value, string(EncodeValue([]byte("v1"), t0.Add(30*time.Second))), "PX", "60000")
		if v, _ := c.Get(context.Background(), id, failing); string(v) != "v1" {
			t.Fatalf("hit = %q", v)
		}
		e.mustDo(t, "DEL", k.value)
		clock.Store(t0.Add(cacheTTL + staleFor + time.Second).UnixMilli())
		if v, err := c.Get(context.Background(), id, failing); err != nil || string(v) != "v1" {
			t.Fatalf("Get = %q, %v; want the stale copy v1 (published at t0+30s)", v, err)
		}
	})
}

func testHitAndMiss(t *testing.T, e *env) {
	id := "hit-" + e.name
	c := e.newCache(t, Options{CacheTTL: 90 * time.Second})
	k, _ := c.keys(id)
	v, err := c.Get(context.Background(), id, value("first"))
	if err != nil || string(v) != "first" {
		t.Fatalf("miss Get = %q, %v", v, err)
	}
	v[0] = 'X' // the caller owns the slice
	v, err = c.Get(context.Background(), id, value("second"))
	if err != nil || string(v) != "first" {
		t.Fatalf("hit Get = %q, %v; want the cached first", v, err)
	}
	pttl, err := e.do(t, "PTTL", k.value).ToInt64()
	if err != nil || pttl <= 0 || pttl > 90_000 {
		t.Fatalf("value PTTL = %d, %v; want CacheTTL 90s", pttl, err)
	}
	if s := c.Stats(); s.Hits != 1 || s.Misses != 1 || s.Loads != 1 || s.PublishesAccepted != 1 {
		t.Fatalf("stats = %+v", s)
	}
	if _, err := c.Get(context.Background(), "", value("x")); err == nil {
		t.Fatal("Get with an empty id succeeded")
	}
	if _, err := c.Get(context.Background(), id, nil); err == nil {
		t.Fatal("Get with a nil loader succeeded")
	}
}

func testBadStoredValue(t *testing.T, e *env) {
	id := "bad-" + e.name
	c := e.newCache(t, Options{})
	k, _ := c.keys(id)
	e.mustDo(t, "SET", k.value, "written by someone else")
	v, err := c.Get(context.Background(), id, value("x"))
	if !errors.Is(err, ErrBadValue) || v != nil || !strings.Contains(err.Error(), k.value) {
		t.Fatalf("Get = %q, %v; want ErrBadValue naming %s", v, err, k.value)
	}
}

// After SCRIPT FLUSH (a restart, a failover to a replica never loaded) the
// EVALSHA fails with NOSCRIPT and the EVAL fallback runs the body; deployed
// scripts run by SHA, and Functions by FCALL.
func testCallPaths(t *testing.T, e *env) {
	c := e.newCache(t, Options{})
	for _, p := range e.primaries {
		p.MustDo("SCRIPT", "FLUSH")
	}
	id := "noscript-" + e.name
	if v, err := c.Get(context.Background(), id, value("v")); err != nil || string(v) != "v" {
		t.Fatalf("Get after SCRIPT FLUSH = %q, %v", v, err)
	}
	k, _ := c.keys(id)
	if stored, _ := e.storedPayload(t, k.value); stored != "v" {
		t.Fatalf("stored %q", stored)
	}
	// With the scripts deployed (SCRIPT LOAD on every primary), a cold Get
	// runs acquire and publish by SHA only; with Functions, by FCALL only.
	for _, p := range e.primaries {
		for _, name := range lua.Names() {
			p.MustDo("SCRIPT", "LOAD", string(lua.MustSource(name)))
		}
	}
	for _, mode := range modes {
		c := e.newCache(t, Options{Functions: mode.functions})
		for _, p := range e.primaries {
			p.MustDo("CONFIG", "RESETSTAT")
		}
		if _, err := c.Get(context.Background(), "calls-"+mode.name+"-"+e.name, value("v")); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, p := range e.primaries {
			for cmd, n := range p.CommandCalls(t) {
				got[cmd] += n
			}
		}
		want := map[string]int{"evalsha": 2}
		if mode.functions {
			want = map[string]int{"fcall": 2}
		}
		for _, cmd := range []string{"eval", "evalsha", "fcall"} {
			if got[cmd] != want[cmd] {
				t.Errorf("%s: %d %s calls, want %d (all: %v)", mode.name, got[cmd], cmd, want[cmd], got)
			}
		}
	}
}

func testFunctionNotLoaded(t *testing.T, e *env) {
	c := e.newCache(t, Options{Functions: true, Version: 99})
	_, err := c.Get(context.Background(), "fn-"+e.name, value("v"))
	var ce *CallError
	if !errors.As(err, &ce) || ce.Op != "acquire" || !strings.Contains(ce.Hint, "catalog_refresh_acquire_v99") || !strings.Contains(ce.Hint, "catalog_refresh_v99") {
		t.Fatalf("Get = %v; want a CallError with a hint naming the function and library", err)
	}
}
