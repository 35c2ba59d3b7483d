package refresh

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/lua"
)

// TestRedis runs every scenario against a real redis-server: standalone and
// the 6-node cluster.
func TestRedis(t *testing.T) {
	scenarios := []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"PausedWriter", testPausedWriter},
		{"PausedWriterNegativeControl", testNegativeControl},
		{"PausedWriterNoSuccessor", testPausedWriterNoSuccessor},
		{"PausedWriterSuccessorHoldsLease", testPausedWriterSuccessorHoldsLease},
		{"ReleaseAfterLoaderFailure", testReleaseAfterLoaderFailure},
		{"ReleaseNegativeControl", testReleaseNegativeControl},
		{"ReleaseOnCancel", testReleaseOnCancel},
		{"OneLoadPerColdKey", testOneLoadPerColdKey},
		{"AdmissionLimit", testAdmissionLimit},
		{"TimeoutFallbackAdmission", testTimeoutFallbackAdmission},
		{"TimeoutFail", testTimeoutFail},
		{"WaiterServedByPoll", testWaiterServedByPoll},
		{"Tokens", testTokens},
		{"Stale", testStale},
		{"HitAndMiss", testHitAndMiss},
		{"BadStoredValue", testBadStoredValue},
		{"CallPaths", testCallPaths},
		{"FunctionNotLoaded", testFunctionNotLoaded},
		{"InvalidationRace", testInvalidationRace},
		{"InvalidationRaceNegativeControl", testInvalidationRaceNegativeControl},
		{"Revisions", testRevisions},
		{"RenewalKeepsSlowLoad", testRenewalKeepsSlowLoad},
		{"RenewalStopsAfterTakeover", testRenewalStopsAfterTakeover},
		{"ErrorCodes", testErrorCodes},
	}
	for _, deploy := range []struct {
		name  string
		start func(*testing.T) *env
	}{{"standalone", standaloneEnv}, {"cluster", clusterEnv}} {
		t.Run(deploy.name, func(t *testing.T) {
			e := deploy.start(t)
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) { sc.run(t, e) })
			}
		})
	}
}

var modes = []struct {
	name      string
	functions bool
}{{"scripts", false}, {"functions", true}}

// pausedWriter is the seed's fixture. OLD's loader reads its snapshot,
// signals, and blocks (a paused process: no renewal); OLD's short lease
// expires; CURRENT acquires, loads a
// newer snapshot and publishes; OLD resumes and tries to publish. It returns
// OLD's Get outcome and both caches.
func pausedWriter(t *testing.T, e *env, id string, oldOpts, curOpts Options, hook func(*Cache)) (outcome, *Cache, *Cache) {
	t.Helper()
	oldOpts.LeaseTTL = 50 * time.Millisecond
	oldOpts.NoRenew = true // a paused process does not renew either
	old := e.newCache(t, oldOpts)
	cur := e.newCache(t, curOpts)
	if hook != nil {
		hook(old)
	}
	k, _ := old.keys(id)

	snapshot, resume := make(chan struct{}), make(chan struct{})
	oldDone := goGet(old, id, func(context.Context) ([]byte, error) {
		v := []byte("OLD snapshot") // read from the origin
		close(snapshot)
		<-resume
		return v, nil
	})
	receive(t, snapshot, "OLD's loader to read its snapshot")
	e.waitGone(t, k.lease) // OLD's lease expires while OLD is paused

	v, err := cur.Get(context.Background(), id, value("CURRENT snapshot"))
	if err != nil || string(v) != "CURRENT snapshot" {
		t.Fatalf("CURRENT Get = %q, %v", v, err)
	}
	if s := cur.Stats(); s.Loads != 1 || s.PublishesAccepted != 1 {
		t.Fatalf("CURRENT did not load and publish: %+v", s)
	}
	close(resume)
	return receive(t, oldDone, "OLD's Get"), old, cur
}

func testPausedWriter(t *testing.T, e *env) {
	for _, mode := range modes {
		for _, tc := range []struct {
			policy    RejectPolicy
			wantValue string // "" means ErrLeaseLost
		}{
			{RejectReread, "CURRENT snapshot"},
			{RejectFail, ""},
			{RejectServeStale, ""}, // no stale copy: stale serving is off
		} {
			t.Run(mode.name+"/"+tc.policy.String(), func(t *testing.T) {
				id := "pw-" + mode.name + "-" + tc.policy.String() + "-" + e.name
				got, old, _ := pausedWriter(t, e, id, Options{Functions: mode.functions, OnRejected: tc.policy}, Options{Functions: mode.functions}, nil)
				k, _ := old.keys(id)

				if tc.wantValue != "" {
					if got.err != nil || string(got.v) != tc.wantValue {
						t.Errorf("OLD Get = %q, %v; want %q", got.v, got.err, tc.wantValue)
					}
				} else if !errors.Is(got.err, ErrLeaseLost) || got.v != nil {
					t.Errorf("OLD Get = %q, %v; want ErrLeaseLost", got.v, got.err)
				}
				if string(got.v) == "OLD snapshot" {
					t.Error("OLD's Get served its rejected candidate")
				}
				if stored, ok := e.storedPayload(t, k.value); !ok || stored != "CURRENT snapshot" {
					t.Errorf("stored value = %q (exists %v), want CURRENT snapshot", stored, ok)
				}
				if _, ok := e.rawGet(t, k.lease); ok {
					t.Error("lease still exists after CURRENT's publication")
				}
				s := old.Stats()
				if s.PublishesRejected != 1 || s.PublishesAccepted != 0 || s.Loads != 1 || s.Misses != 1 || s.LoaderErrors != 0 {
					t.Errorf("OLD stats = %+v, want 1 miss, 1 load, 1 rejected publish", s)
				}
			})
		}
	}
	// With a stale copy, serve-stale serves it: neither OLD's candidate nor
	// CURRENT's value.
	t.Run("scripts/serve-stale-with-copy", func(t *testing.T) {
		id := "pw-stalecopy-" + e.name
		got, old, _ := pausedWriter(t, e, id, Options{OnRejected: RejectServeStale, StaleFor: time.Hour}, Options{}, func(old *Cache) {
			k, _ := old.keys(id)
			if v, err := old.Get(context.Background(), id, value("v0")); err != nil || string(v) != "v0" {
				t.Fatalf("first Get = %q, %v", v, err)
			}
			e.mustDo(t, "DEL", k.value) // the cached value expires
		})
		if got.err != nil || string(got.v) != "v0" {
			t.Errorf("OLD Get = %q, %v; want the stale copy v0", got.v, got.err)
		}
		if s := old.Stats(); s.PublishesRejected != 1 || s.StaleServed != 1 {
			t.Errorf("OLD stats = %+v", s)
		}
	})
}

// testNegativeControl runs the same fixture with the
// regression's unconditional publish: OLD's older snapshot overwrites
// CURRENT's. It proves the fixture reaches the dangerous interleaving.
func testNegativeControl(t *testing.T, e *env) {
	id := "pw-negative-" + e.name
	got, old, _ := pausedWriter(t, e, id, Options{}, Options{}, unconditionalPublish)
	k, _ := old.keys(id)
	if stored, _ := e.storedPayload(t, k.value); stored != "OLD snapshot" {
		t.Fatalf("stored value = %q: the unconditional publish did not regress the cache; the fixture misses the interleaving", stored)
	}
	if got.err != nil || string(got.v) != "OLD snapshot" {
		t.Fatalf("OLD Get = %q, %v", got.v, got.err)
	}
	if s := old.Stats(); s.PublishesAccepted != 1 || s.PublishesRejected != 0 {
		t.Fatalf("OLD stats = %+v", s)
	}
}

// A lease that expired without a successor: OLD's publication is still
// rejected, nothing is stored, and with nothing to re-read OLD gets
// ErrLeaseLost.
func testPausedWriterNoSuccessor(t *testing.T, e *env) {
	id := "pw-nosucc-" + e.name
	old := e.newCache(t, Options{LeaseTTL: 50 * time.Millisecond, NoRenew: true})
	k, _ := old.keys(id)
	snapshot, resume := make(chan struct{}), make(chan struct{})
	done := goGet(old, id, func(context.Context) ([]byte, error) {
		close(snapshot)
		<-resume
		return []byte("OLD snapshot"), nil
	})
	receive(t, snapshot, "OLD's loader")
	e.waitGone(t, k.lease)
	close(resume)
	got := receive(t, done, "OLD's Get")
	if !errors.Is(got.err, ErrLeaseLost) || got.v != nil {
		t.Fatalf("OLD Get = %q, %v; want ErrLeaseLost", got.v, got.err)
	}
	if !strings.Contains(got.err.Error(), k.value) || !strings.Contains(got.err.Error(), "LeaseTTL 50ms") {
		t.Errorf("error %q does not name the key and the lease TTL", got.err)
	}
	if v, ok := e.rawGet(t, k.value); ok {
		t.Fatalf("value stored after a rejected publication: %q", v)
	}
	if s := old.Stats(); s.PublishesRejected != 1 {
		t.Fatalf("stats = %+v", s)
	}
}

// A wrong-token publication while the successor holds the lease: rejected,
// the successor's lease is untouched, and the successor then publishes.
func testPausedWriterSuccessorHoldsLease(t *testing.T, e *env) {
	id := "pw-holds-" + e.name
	old := e.newCache(t, Options{LeaseTTL: 50 * time.Millisecond, NoRenew: true})
	cur := e.newCache(t, Options{})
	k, _ := old.keys(id)

	oldRead, oldResume := make(chan struct{}), make(chan struct{})
	oldDone := goGet(old, id, func(context.Context) ([]byte, error) {
		close(oldRead)
		<-oldResume
		return []byte("OLD snapshot"), nil
	})
	receive(t, oldRead, "OLD's loader")
	e.waitGone(t, k.lease)

	curToken := make(chan string, 1)
	curResume := make(chan struct{})
	curDone := goGet(cur, id, func(context.Context) ([]byte, error) {
		tok, _ := e.rawGet(t, k.lease)
		curToken <- tok
		<-curResume
		return []byte("CURRENT snapshot"), nil
	})
	token := receive(t, curToken, "CURRENT's loader")

	close(oldResume)
	got := receive(t, oldDone, "OLD's Get")
	if !errors.Is(got.err, ErrLeaseLost) { // re-read finds nothing yet
		t.Fatalf("OLD Get = %q, %v; want ErrLeaseLost", got.v, got.err)
	}
	if lease, _ := e.rawGet(t, k.lease); lease != token {
		t.Fatalf("lease = %q after OLD's rejected publication, want CURRENT's token %q", lease, token)
	}
	if v, ok := e.rawGet(t, k.value); ok {
		t.Fatalf("value stored by a rejected publication: %q", v)
	}
	close(curResume)
	if got := receive(t, curDone, "CURRENT's Get"); got.err != nil || string(got.v) != "CURRENT snapshot" {
		t.Fatalf("CURRENT Get = %q, %v", got.v, got.err)
	}
	if stored, _ := e.storedPayload(t, k.value); stored != "CURRENT snapshot" {
		t.Fatalf("stored value = %q", stored)
	}
}

// A loader failure after the lease passed to a successor: the token-safe
// release leaves the successor's lease alone. A failure while the lease is
// still owned releases it at once.
func testReleaseAfterLoaderFailure(t *testing.T, e *env) {
	boom := errors.New("origin down")
	t.Run("successor", func(t *testing.T) {
		id := "rel-succ-" + e.name
		got, old, lease, token, cur := releaseRace(t, e, id, boom, nil)
		var le *LoadError
		if !errors.As(got.err, &le) || !errors.Is(got.err, boom) || le.ID != id || le.ReleaseErr != nil || got.v != nil {
			t.Fatalf("OLD Get = %q, %v; want a LoadError wrapping the loader's error", got.v, got.err)
		}
		if lease != token {
			t.Fatalf("successor's lease = %q after OLD's release, want %q", lease, token)
		}
		if cur.err != nil || string(cur.v) != "CURRENT snapshot" {
			t.Fatalf("CURRENT Get = %q, %v", cur.v, cur.err)
		}
		s := old.Stats()
		if s.LoaderErrors != 1 || s.Loads != 1 || s.PublishesRejected != 0 {
			t.Fatalf("OLD stats = %+v", s)
		}
		// The release ran natively (DELIFEQ) where every node has it, with
		// the script elsewhere: the path counters say which.
		wantNative := uint64(0)
		if kindHasDelifeq(redistest.DefaultKind(t)) {
			wantNative = 1
		}
		if s.Releases != 1 || s.ReleasesNative != wantNative {
			t.Fatalf("OLD released %d times, %d natively, on %s; want 1, %d", s.Releases, s.ReleasesNative, redistest.DefaultKind(t).Name, wantNative)
		}
	})
	t.Run("owner", func(t *testing.T) {
		id := "rel-own-" + e.name
		c := e.newCache(t, Options{})
		k, _ := c.keys(id)
		v, err := c.Get(context.Background(), id, func(context.Context) ([]byte, error) {
			if _, ok := e.rawGet(t, k.lease); !ok {
				t.Error("no lease while loading")
			}
			return nil, boom
		})
		if !errors.Is(err, boom) || v != nil {
			t.Fatalf("Get = %q, %v", v, err)
		}
		if lease, ok := e.rawGet(t, k.lease); ok {
			t.Fatalf("lease %q kept after the loader failed", lease)
		}
		if _, ok := e.rawGet(t, k.value); ok {
			t.Fatal("value stored after the loader failed")
		}
		// The next Get refreshes at once.
		if v, err := c.Get(context.Background(), id, value("v1")); err != nil || string(v) != "v1" {
			t.Fatalf("Get after the failure = %q, %v", v, err)
		}
		if s := c.Stats(); s.LoaderErrors != 1 || s.Loads != 2 || s.PublishesAccepted != 1 {
			t.Fatalf("stats = %+v", s)
		}
	})
}

// releaseRace is the release fixture: OLD's loader blocks while its short
// lease expires; CURRENT acquires and holds the lease while loading; OLD's
// loader then fails with boom and OLD releases. hook (nil for none) changes
// OLD before the race. It returns OLD's Get outcome, OLD, the lease as it
// is right after OLD's release ("" when gone), CURRENT's token, and
// CURRENT's Get outcome (CURRENT completes its load after OLD's release).
func releaseRace(t *testing.T, e *env, id string, boom error, hook func(*Cache)) (got outcome, old *Cache, lease, token string, cur outcome) {
	t.Helper()
	old = e.newCache(t, Options{LeaseTTL: 50 * time.Millisecond, NoRenew: true})
	if hook != nil {
		hook(old)
	}
	curCache := e.newCache(t, Options{})
	k, _ := old.keys(id)

	oldRead, oldResume := make(chan struct{}), make(chan struct{})
	oldDone := goGet(old, id, func(context.Context) ([]byte, error) {
		close(oldRead)
		<-oldResume
		return nil, boom
	})
	receive(t, oldRead, "OLD's loader")
	e.waitGone(t, k.lease)

	curToken, curResume := make(chan string, 1), make(chan struct{})
	curDone := goGet(curCache, id, func(context.Context) ([]byte, error) {
		tok, _ := e.rawGet(t, k.lease)
		curToken <- tok
		<-curResume
		return []byte("CURRENT snapshot"), nil
	})
	token = receive(t, curToken, "CURRENT's loader")

	close(oldResume)
	got = receive(t, oldDone, "OLD's Get")
	lease, _ = e.rawGet(t, k.lease)
	close(curResume)
	return got, old, lease, token, receive(t, curDone, "CURRENT's Get")
}

// testReleaseNegativeControl runs the release fixture with the regression's
// unconditional release (a plain DEL of the lease): OLD deletes CURRENT's
// lease. It proves the fixture reaches the interleaving the token-safe
// release (script or DELIFEQ) guards against.
func testReleaseNegativeControl(t *testing.T, e *env) {
	id := "rel-negative-" + e.name
	_, _, lease, token, cur := releaseRace(t, e, id, errors.New("origin down"), unconditionalRelease)
	if token == "" || lease != "" {
		t.Fatalf("lease = %q after the unconditional release (CURRENT's token %q): the fixture misses the interleaving", lease, token)
	}
	// CURRENT lost the lease it held: its publication is refused.
	if !errors.Is(cur.err, ErrLeaseLost) {
		t.Fatalf("CURRENT Get = %q, %v; want ErrLeaseLost after its lease was deleted", cur.v, cur.err)
	}
}

// A cancelled Get still releases its lease.
func testReleaseOnCancel(t *testing.T, e *env) {
	id := "cancel-" + e.name
	c := e.newCache(t, Options{})
	k, _ := c.keys(id)
	ctx, cancel := context.WithCancel(context.Background())
	loading := make(chan struct{})
	done := make(chan outcome, 1)
	go func() {
		v, err := c.Get(ctx, id, func(ctx context.Context) ([]byte, error) {
			close(loading)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		done <- outcome{v, err}
	}()
	receive(t, loading, "the loader")
	cancel()
	got := receive(t, done, "Get")
	if !errors.Is(got.err, context.Canceled) {
		t.Fatalf("Get = %q, %v; want context.Canceled", got.v, got.err)
	}
	if _, ok := e.rawGet(t, k.lease); ok {
		t.Fatal("lease kept after a cancelled load")
	}
}

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
