package refresh

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/lua"
)

// TestAcquireCached covers acquire's {"cached", value} reply: a value
// that appears between Get's first read (a miss) and its acquire, as when
// another refresher publishes in that window. The scripts' reply is checked
// at the runner, then through Get with the newToken hook (called right
// before acquire) publishing the value.
func TestAcquireCached(t *testing.T) {
	e := standaloneEnv(t)
	for _, p := range e.primaries {
		for _, name := range []string{"acquire.lua", "publish.lua", "release.lua"} {
			p.MustDo("SCRIPT", "LOAD", string(lua.MustSource(name)))
		}
	}
	for _, mode := range modes {
		t.Run(mode.name+"/runner", func(t *testing.T) {
			c := e.newCache(t, Options{Functions: mode.functions})
			id := "wait-cached-runner-" + mode.name
			k, _ := c.keys(id)
			stored := string(EncodeValue([]byte("published elsewhere"), time.UnixMilli(1_764_457_200_000)))
			e.mustDo(t, "SET", k.value, stored, "PX", "600000")

			rep, err := c.r.acquire(context.Background(), k, newToken(), c.leaseTTL)
			if err != nil {
				t.Fatalf("acquire: %v", err)
			}
			if rep.state != stateCached || rep.cached != stored {
				t.Fatalf("acquire = {state %d cached %q}, want {stateCached %q}", rep.state, rep.cached, stored)
			}
			if lease, ok := e.rawGet(t, k.lease); ok {
				t.Fatalf("acquire took the lease (%q) although the value exists", lease)
			}
			if raw, _ := e.rawGet(t, k.value); raw != stored {
				t.Fatalf("value = %q after acquire, want it untouched", raw)
			}
		})

		t.Run(mode.name+"/get", func(t *testing.T) {
			c := e.newCache(t, Options{Functions: mode.functions, StaleFor: time.Hour,
				WaitTimeout: 20 * time.Millisecond, OnWaitTimeout: TimeoutFail})
			id := "wait-cached-get-" + mode.name
			k, _ := c.keys(id)
			stored := string(EncodeValue([]byte("published elsewhere"), time.Now()))

			var tokens atomic.Int64
			c.newToken = func() string {
				if tokens.Add(1) == 1 {
					// Get's first read has missed: another refresher
					// publishes now, before this acquire runs.
					if v, ok := e.rawGet(t, k.value); ok {
						t.Errorf("value %q existed before acquire: the first read did not miss", v)
					}
					e.mustDo(t, "SET", k.value, stored, "PX", "600000")
				}
				return newToken()
			}
			var loads atomic.Int64
			loader := func(context.Context) ([]byte, error) {
				loads.Add(1)
				return []byte("loaded here"), nil
			}
			for _, p := range e.primaries {
				p.MustDo("CONFIG", "RESETSTAT")
			}
			v, err := c.Get(context.Background(), id, loader)
			if err != nil || string(v) != "published elsewhere" {
				t.Fatalf("Get = %q, %v; want the stored value", v, err)
			}
			// Commands run since the reset, those run inside scripts
			// included: the hook's GET and SET, Get's GET, one acquire (its
			// GET finds the value, so no SET NX and no PTTL), and no publish
			// or release.
			calls := map[string]int{}
			for _, p := range e.primaries {
				for cmd, n := range p.CommandCalls(t) {
					calls[cmd] += n
				}
			}
			wantCalls := map[string]int{"evalsha": 1, "eval": 0, "fcall": 0, "get": 3, "set": 1, "pttl": 0, "del": 0}
			if mode.functions {
				wantCalls["evalsha"], wantCalls["fcall"] = 0, 1
			}
			for cmd, n := range wantCalls {
				if calls[cmd] != n {
					t.Errorf("%d %s call(s), want %d (all: %v)", calls[cmd], cmd, n, calls)
				}
			}
			if n := loads.Load(); n != 0 {
				t.Errorf("loader called %d time(s), want never", n)
			}
			if n := tokens.Load(); n != 1 {
				t.Errorf("%d acquisitions, want 1", n)
			}
			want := Stats{Misses: 1}
			if s := c.Stats(); s != want {
				t.Errorf("stats = %+v, want %+v (one miss, nothing loaded or published)", s, want)
			}
			if lease, ok := e.rawGet(t, k.lease); ok {
				t.Errorf("lease %q exists: acquire must not take it when the value is cached", lease)
			}
			if raw, _ := e.rawGet(t, k.value); raw != stored {
				t.Errorf("value = %q, want the other refresher's %q untouched", raw, stored)
			}
			// The value served from acquire's reply is kept as the stale
			// copy, like one read by GET.
			e.mustDo(t, "DEL", k.value)
			e.mustDo(t, "SET", k.lease, "someone-else", "PX", "600000")
			v, err = c.Get(context.Background(), id, loader)
			if err != nil || string(v) != "published elsewhere" {
				t.Fatalf("Get while another owner refreshes = %q, %v; want the stale copy", v, err)
			}
			if s := c.Stats(); s.StaleServed != 1 || s.Misses != 2 || s.Loads != 0 {
				t.Errorf("stats = %+v, want 1 stale served, 2 misses, no load", s)
			}
		})
	}
}

// pollCache returns a Cache for unit-testing pollDelay: no client is
// needed, pollDelay reads only the options.
func pollCache(t *testing.T, poll time.Duration) *Cache {
	t.Helper()
	o, err := Options{PollInterval: poll}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return &Cache{opts: o}
}

// TestPollDelayJitter draws pollDelay many times per case: every delay
// lies in [d/2, 3d/2) where d is PollInterval, or the lease's remaining TTL
// (+1ms) when shorter; it never passes the deadline (left); the draws are
// not all equal, cover the interval, and average d (PollInterval is "the
// mean interval between polls").
func TestPollDelayJitter(t *testing.T) {
	const draws = 10000
	for _, tc := range []struct {
		name string
		poll time.Duration
		pttl int64         // the lease's remaining TTL in ms, -1: none
		left time.Duration // until the WaitTimeout deadline
		d    time.Duration // the interval jittered around: PollInterval
	}{
		{"no TTL", 50 * time.Millisecond, -1, time.Hour, 50 * time.Millisecond},
		{"long lease", 50 * time.Millisecond, 10_000, time.Hour, 50 * time.Millisecond},
		{"default interval", 0, -1, time.Hour, DefaultPollInterval},
		{"minimum interval", time.Millisecond, 500, time.Hour, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pollCache(t, tc.poll)
			lo, hi := tc.d/2, tc.d/2+tc.d // [d/2, 3d/2)
			minD, maxD := time.Duration(1<<62), time.Duration(0)
			var sum time.Duration
			seen := map[time.Duration]bool{}
			for range draws {
				got := c.pollDelay(tc.pttl, tc.left)
				if got < lo || got >= hi {
					t.Fatalf("pollDelay(%d, %v) = %v, outside [%v, %v)", tc.pttl, tc.left, got, lo, hi)
				}
				if got > tc.left {
					t.Fatalf("pollDelay(%d, %v) = %v, past the deadline", tc.pttl, tc.left, got)
				}
				minD, maxD = min(minD, got), max(maxD, got)
				sum += got
				seen[got] = true
			}
			if len(seen) < 2 {
				t.Fatalf("%d draws all %v: no jitter", draws, minD)
			}
			// Uniform over [d/2, 3d/2): the extremes reach the last tenth at
			// each end, and the mean is d (±5%; the standard error is 0.3%).
			if minD >= lo+tc.d/10 || maxD < hi-tc.d/10 {
				t.Errorf("draws span [%v, %v], want most of [%v, %v)", minD, maxD, lo, hi)
			}
			if mean := sum / draws; mean < tc.d*95/100 || mean > tc.d*105/100 {
				t.Errorf("mean delay %v, want %v ±5%%", mean, tc.d)
			}
		})
	}
}

// TestPollDelayShortLease: a lease that ends before the shortest jittered
// poll is polled just past its end, every time.
func TestPollDelayShortLease(t *testing.T) {
	c := pollCache(t, 50*time.Millisecond)
	for _, pttl := range []int64{0, 9, 24} {
		want := time.Duration(pttl+1) * time.Millisecond
		for range 2000 {
			if got := c.pollDelay(pttl, time.Hour); got != want {
				t.Fatalf("pollDelay(%d, 1h) = %v, want %v (the lease's end)", pttl, got, want)
			}
		}
	}
}

// TestPollDelayDeadline: close to the WaitTimeout deadline the delay is
// cut to what is left, never more.
func TestPollDelayDeadline(t *testing.T) {
	c := pollCache(t, 50*time.Millisecond)
	for _, left := range []time.Duration{time.Nanosecond, time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 60 * time.Millisecond} {
		capped := 0
		for range 2000 {
			got := c.pollDelay(-1, left)
			if got > left {
				t.Fatalf("pollDelay(-1, %v) = %v, past the deadline", left, got)
			}
			if got <= 0 {
				t.Fatalf("pollDelay(-1, %v) = %v, not positive", left, got)
			}
			if got == left {
				capped++
			}
		}
		// Below d/2 = 25ms every draw is cut to left.
		if left < 25*time.Millisecond && capped != 2000 {
			t.Errorf("left %v: %d of 2000 draws cut to the deadline, want all", left, capped)
		}
	}
}

// TestPollDelayNeverPastLeaseTTL checks the "Busy lease" bound of docs/go.md:
// polls are "jittered PollInterval, never past the lease's remaining TTL".
// One millisecond past the TTL is allowed (pollDelay aims just past the
// expiry); anything later means the waiter sleeps while the lease is free.
func TestPollDelayNeverPastLeaseTTL(t *testing.T) {
	c := pollCache(t, 50*time.Millisecond)
	for _, pttl := range []int64{0, 9, 30, 60, 1000} {
		limit := time.Duration(pttl+1) * time.Millisecond
		worst := time.Duration(0)
		for range 10000 {
			worst = max(worst, c.pollDelay(pttl, time.Hour))
		}
		if worst > limit {
			t.Errorf("lease PTTL %dms: a poll delay reached %v, past the remaining TTL (+1ms = %v)", pttl, worst, limit)
		}
	}
}

// TestPollBoundsGet: a waiting Get follows both bounds end to end. With
// a PollInterval of 10s it still gives up at a 50ms WaitTimeout deadline, and
// still takes over a lease that expires after 100ms, well before a single
// PollInterval has passed.
func TestPollBoundsGet(t *testing.T) {
	e := standaloneEnv(t)
	t.Run("deadline", func(t *testing.T) {
		c := e.newCache(t, Options{PollInterval: 10 * time.Second, WaitTimeout: 50 * time.Millisecond, OnWaitTimeout: TimeoutFail})
		id := "wait-poll-deadline"
		k, _ := c.keys(id)
		e.mustDo(t, "SET", k.lease, "someone-else", "PX", "600000")
		start := time.Now()
		v, err := c.Get(context.Background(), id, func(context.Context) ([]byte, error) {
			t.Error("loader called under TimeoutFail")
			return nil, nil
		})
		el := time.Since(start)
		if !errors.Is(err, ErrWaitTimeout) || v != nil {
			t.Fatalf("Get = %q, %v; want ErrWaitTimeout", v, err)
		}
		if el < 50*time.Millisecond || el > 3*time.Second {
			t.Fatalf("gave up after %v; want just after the 50ms deadline, not a 5-15s poll later", el)
		}
		if s := c.Stats(); s.WaitTimeouts != 1 || s.Misses != 1 || s.Loads != 0 {
			t.Fatalf("stats = %+v", s)
		}
		if lease, _ := e.rawGet(t, k.lease); lease != "someone-else" {
			t.Fatalf("lease = %q, want the holder's", lease)
		}
	})
	t.Run("lease TTL", func(t *testing.T) {
		c := e.newCache(t, Options{PollInterval: 10 * time.Second, WaitTimeout: time.Minute})
		id := "wait-poll-lease"
		k, _ := c.keys(id)
		e.mustDo(t, "SET", k.lease, "abandoned", "PX", "100")
		start := time.Now()
		v, err := c.Get(context.Background(), id, value("after the lease"))
		el := time.Since(start)
		if err != nil || string(v) != "after the lease" {
			t.Fatalf("Get = %q, %v", v, err)
		}
		if el > 3*time.Second {
			t.Fatalf("took over the 100ms lease after %v; the poll was not bounded by the lease's TTL", el)
		}
		if s := c.Stats(); s.Misses != 1 || s.Loads != 1 || s.PublishesAccepted != 1 || s.WaitTimeouts != 0 {
			t.Fatalf("stats = %+v", s)
		}
		if stored, _ := e.storedPayload(t, k.value); stored != "after the lease" {
			t.Fatalf("stored %q", stored)
		}
		if lease, ok := e.rawGet(t, k.lease); ok {
			t.Fatalf("lease %q left after the publication", lease)
		}
	})
}
