package refresh

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// 200 concurrent Gets of one cold key: exactly one origin load. The loader
// holds until all 200 have missed, so all 200 really contend.
func testOneLoadPerColdKey(t *testing.T, e *env) {
	const n = 200
	id := "cold-one-" + e.name
	c := e.newCache(t, Options{})
	var loads atomic.Int64
	load := func(context.Context) ([]byte, error) {
		loads.Add(1)
		waitUntil(t, "all Gets to miss", func() bool { return c.Stats().Misses == n })
		return []byte("summary"), nil
	}
	results := make(chan outcome, n)
	for range n {
		go func() {
			v, err := c.Get(context.Background(), id, load)
			results <- outcome{v, err}
		}()
	}
	for range n {
		got := receive(t, results, "a Get")
		if got.err != nil || string(got.v) != "summary" {
			t.Fatalf("Get = %q, %v", got.v, got.err)
		}
	}
	if got := loads.Load(); got != 1 {
		t.Fatalf("%d origin loads for one cold key, want 1", got)
	}
	s := c.Stats()
	if s.Misses != n || s.Hits != 0 || s.Loads != 1 || s.PublishesAccepted != 1 || s.WaitTimeouts != 0 || s.LoaderErrors != 0 {
		t.Fatalf("stats = %+v", s)
	}
	k, _ := c.keys(id)
	if stored, _ := e.storedPayload(t, k.value); stored != "summary" {
		t.Fatalf("stored %q", stored)
	}
}

// 1,000 concurrent Gets over 100 cold keys never run more loads at once
// than MaxConcurrentLoads. The first loaders wait until the limit is
// reached, so the test also proves the limit is not merely unreached.
func testAdmissionLimit(t *testing.T, e *env) {
	const limit, keys, gets = 4, 100, 1000
	c := e.newCache(t, Options{MaxConcurrentLoads: limit})
	var g maxGauge
	var reached atomic.Bool
	var loads atomic.Int64
	load := func(id string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) {
			loads.Add(1)
			g.enter()
			defer g.leave()
			if !reached.Load() {
				waitUntil(t, "the admission limit to fill", func() bool { return reached.Load() || g.current() >= limit })
				reached.Store(true)
			}
			return []byte("v-" + id), nil
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, gets)
	for i := range gets {
		id := fmt.Sprintf("adm-%s-%d", e.name, i%keys)
		wg.Go(func() {
			v, err := c.Get(context.Background(), id, load(id))
			if err == nil && string(v) != "v-"+id {
				err = fmt.Errorf("Get(%s) = %q", id, v)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Above the limit is the failure under test; below it means the
	// barrier above did not hold.
	if m := g.highest(); m != limit {
		t.Fatalf("max concurrent loads %d, want exactly the limit %d", m, limit)
	}
	s := c.Stats()
	if loads.Load() != keys || s.Loads != keys || s.PublishesAccepted != keys || s.Hits+s.Misses != gets || s.WaitTimeouts != 0 {
		t.Fatalf("loads %d, stats %+v; want one load per key", loads.Load(), s)
	}
	t.Logf("max concurrent loads %d (limit %d), admission waits %d, misses %d", g.highest(), limit, s.AdmissionWaits, s.Misses)
}

// Waiters that time out together go through the same admission limit: 20
// callers time out on a lease that never ends; at most 2 load at once.
func testTimeoutFallbackAdmission(t *testing.T, e *env) {
	const n, limit = 20, 2
	id := "fallback-" + e.name
	c := e.newCache(t, Options{MaxConcurrentLoads: limit, WaitTimeout: 20 * time.Millisecond})
	k, _ := c.keys(id)
	e.mustDo(t, "SET", k.lease, "someone-else", "PX", "600000")

	var g maxGauge
	var reached atomic.Bool
	load := func(context.Context) ([]byte, error) {
		g.enter()
		defer g.leave()
		// The first loaders hold both slots until every other caller
		// queues for one.
		if !reached.Load() {
			waitUntil(t, "both slots loading and the other callers queued", func() bool {
				return reached.Load() || g.current() == limit && c.Stats().AdmissionWaits >= n-limit
			})
			reached.Store(true)
		}
		return []byte("direct"), nil
	}
	results := make(chan outcome, n)
	for range n {
		go func() {
			v, err := c.Get(context.Background(), id, load)
			results <- outcome{v, err}
		}()
	}
	for range n {
		if got := receive(t, results, "a Get"); got.err != nil || string(got.v) != "direct" {
			t.Fatalf("Get = %q, %v", got.v, got.err)
		}
	}
	if m := g.highest(); m != limit {
		t.Fatalf("max concurrent fallback loads %d, limit %d", m, limit)
	}
	s := c.Stats()
	if s.WaitTimeouts != n || s.Loads != n || s.AdmissionWaits < n-limit || s.PublishesAccepted != 0 {
		t.Fatalf("stats = %+v", s)
	}
	if v, ok := e.rawGet(t, k.value); ok {
		t.Fatalf("a fallback load was published: %q", v)
	}
	if lease, _ := e.rawGet(t, k.lease); lease != "someone-else" {
		t.Fatalf("lease = %q, want the holder's", lease)
	}
}

func testTimeoutFail(t *testing.T, e *env) {
	id := "tofail-" + e.name
	c := e.newCache(t, Options{WaitTimeout: 30 * time.Millisecond, OnWaitTimeout: TimeoutFail})
	k, _ := c.keys(id)
	e.mustDo(t, "SET", k.lease, "someone-else", "PX", "600000")
	start := time.Now()
	v, err := c.Get(context.Background(), id, func(context.Context) ([]byte, error) {
		t.Error("loader called under TimeoutFail")
		return nil, nil
	})
	if !errors.Is(err, ErrWaitTimeout) || v != nil {
		t.Fatalf("Get = %q, %v; want ErrWaitTimeout", v, err)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Fatalf("gave up after %v, before the 30ms deadline", el)
	}
	if s := c.Stats(); s.WaitTimeouts != 1 || s.Loads != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

// A waiter polls until the holder publishes and is served that value
// without loading.
func testWaiterServedByPoll(t *testing.T, e *env) {
	id := "poll-" + e.name
	c := e.newCache(t, Options{})
	k, _ := c.keys(id)
	e.mustDo(t, "SET", k.lease, "holder-token", "PX", "600000")
	done := goGet(c, id, func(context.Context) ([]byte, error) {
		t.Error("the waiter loaded")
		return nil, nil
	})
	waitUntil(t, "the waiter to miss", func() bool { return c.Stats().Misses == 1 })
	// The holder publishes through the real script.
	pr, err := c.r.publish(context.Background(), k, "holder-token", string(EncodeValue([]byte("holder's"), time.Now())), "60000", "0", "")
	if err != nil || pr != published {
		t.Fatalf("holder's publish = %v, %v", pr, err)
	}
	if got := receive(t, done, "the waiter"); got.err != nil || string(got.v) != "holder's" {
		t.Fatalf("waiter Get = %q, %v", got.v, got.err)
	}
	if s := c.Stats(); s.Loads != 0 || s.WaitTimeouts != 0 {
		t.Fatalf("stats = %+v", s)
	}
}
