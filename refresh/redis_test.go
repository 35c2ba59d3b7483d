package refresh

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
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
