package refresh

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// The version 2 scenarios of TestRedis: invalidation, revisions, renewal.

// invalidationRace is the seed's open case: OLD's loader reads its snapshot
// (revision 7) and blocks while holding a valid lease; the source is
// updated and the writer invalidates with invalidate (run before resume);
// OLD resumes and publishes. It returns OLD's Get outcome.
func invalidationRace(t *testing.T, e *env, old *Cache, id string, invalidate func()) outcome {
	t.Helper()
	snapshot, resume := make(chan struct{}), make(chan struct{})
	done := goGet(old, id, func(context.Context) ([]byte, error) {
		v := []byte("rev7") // read before the update
		close(snapshot)
		<-resume
		return v, nil
	})
	receive(t, snapshot, "OLD's loader to read revision 7")
	invalidate()
	close(resume)
	return receive(t, done, "OLD's Get")
}

func testInvalidationRace(t *testing.T, e *env) {
	for _, mode := range modes {
		t.Run(mode.name+"/no-successor", func(t *testing.T) {
			id := "inv-" + mode.name + "-" + e.name
			old := e.newCache(t, Options{Functions: mode.functions, OnRejected: RejectFail})
			writer := e.newCache(t, Options{Functions: mode.functions})
			k, _ := old.keys(id)
			got := invalidationRace(t, e, old, id, func() {
				if lease, ok := e.rawGet(t, k.lease); !ok || lease == "" {
					t.Fatal("OLD holds no lease before the invalidation")
				}
				gen, err := writer.Invalidate(context.Background(), id)
				if err != nil || gen != 1 {
					t.Fatalf("Invalidate = %d, %v; want generation 1", gen, err)
				}
				if _, ok := e.rawGet(t, k.lease); ok {
					t.Fatal("the invalidation left OLD's lease")
				}
			})
			if !errors.Is(got.err, ErrInvalidated) || got.v != nil {
				t.Fatalf("OLD Get = %q, %v; want ErrInvalidated", got.v, got.err)
			}
			if v, ok := e.rawGet(t, k.value); ok {
				t.Fatalf("OLD's pre-invalidation snapshot was stored: %q", v)
			}
			s := old.Stats()
			if s.RejectedInvalidated != 1 || s.PublishesRejected != 1 || s.RejectedLeaseLost != 0 || s.RejectedOlderRevision != 0 || s.PublishesAccepted != 0 || s.LoaderErrors != 0 || s.Misses != 1 {
				t.Fatalf("OLD stats = %+v, want one invalidated rejection", s)
			}
			if s := writer.Stats(); s.Invalidations != 1 {
				t.Fatalf("writer stats = %+v", s)
			}
			// The next refresh acquires under generation 1 and publishes.
			if v, err := old.Get(context.Background(), id, value("rev8")); err != nil || string(v) != "rev8" {
				t.Fatalf("Get after the invalidation = %q, %v", v, err)
			}
			if stored, _ := e.storedPayload(t, k.value); stored != "rev8" {
				t.Fatalf("stored %q, want rev8", stored)
			}
		})
	}
	// A successor publishes the new revision before OLD resumes: OLD is
	// served the successor's value (RejectReread), never its own.
	t.Run("scripts/successor-reread", func(t *testing.T) {
		id := "inv-succ-" + e.name
		old := e.newCache(t, Options{StaleFor: time.Hour})
		writer := e.newCache(t, Options{})
		k, _ := old.keys(id)
		if v, err := old.Get(context.Background(), id, value("rev6")); err != nil || string(v) != "rev6" {
			t.Fatalf("first Get = %q, %v", v, err)
		}
		e.mustDo(t, "DEL", k.value) // rev6 expires; OLD keeps a stale copy
		got := invalidationRace(t, e, old, id, func() {
			if _, err := writer.Invalidate(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			if v, err := writer.Get(context.Background(), id, value("rev8")); err != nil || string(v) != "rev8" {
				t.Fatalf("successor Get = %q, %v", v, err)
			}
		})
		if got.err != nil || string(got.v) != "rev8" {
			t.Fatalf("OLD Get = %q, %v; want the successor's rev8", got.v, got.err)
		}
		if stored, _ := e.storedPayload(t, k.value); stored != "rev8" {
			t.Fatalf("stored %q, want rev8", stored)
		}
		if s := old.Stats(); s.RejectedInvalidated != 1 || s.StaleServed != 0 {
			t.Fatalf("OLD stats = %+v", s)
		}
	})
	// Invalidate drops this process's stale copy: with stale serving on and
	// nothing to re-read, the rejected Get must not fall back to rev6.
	t.Run("scripts/no-stale-after-invalidate", func(t *testing.T) {
		id := "inv-stale-" + e.name
		old := e.newCache(t, Options{StaleFor: time.Hour, OnRejected: RejectServeStale})
		k, _ := old.keys(id)
		if _, err := old.Get(context.Background(), id, value("rev6")); err != nil {
			t.Fatal(err)
		}
		e.mustDo(t, "DEL", k.value)
		got := invalidationRace(t, e, old, id, func() {
			if _, err := old.Invalidate(context.Background(), id); err != nil {
				t.Fatal(err)
			}
		})
		if !errors.Is(got.err, ErrInvalidated) {
			t.Fatalf("OLD Get = %q, %v; want ErrInvalidated, not the pre-update stale copy", got.v, got.err)
		}
	})
}

// v1Publish makes c publish with version 1's publish script (lua/v1), which
// checks only the lease: the negative control of the invalidation race.
func v1Publish(t *testing.T) func(*Cache) {
	src, err := os.ReadFile("../lua/v1/publish.lua")
	if err != nil {
		t.Fatal(err)
	}
	script := rueidis.NewLuaScript(string(src))
	return func(c *Cache) {
		c.publishFn = func(ctx context.Context, k keys, token, candidate, ttl, gen, rev string) (publishResult, error) {
			n, err := script.Exec(ctx, c.r.client, []string{k.lease, k.value}, []string{token, candidate, ttl}).ToInt64()
			if err != nil {
				return 0, err
			}
			return publishResult(n), nil
		}
	}
}

// testInvalidationRaceNegativeControl runs the race under version 1 of the
// protocol: v1's publish, and invalidation as v1 callers do it (DEL of the
// value). OLD still owns its lease and its revision-7 snapshot replaces the
// cache: the fixture reaches the dangerous interleaving.
func testInvalidationRaceNegativeControl(t *testing.T, e *env) {
	id := "inv-negative-" + e.name
	old := e.newCache(t, Options{})
	v1Publish(t)(old)
	k, _ := old.keys(id)
	got := invalidationRace(t, e, old, id, func() { e.mustDo(t, "DEL", k.value) })
	if stored, _ := e.storedPayload(t, k.value); stored != "rev7" {
		t.Fatalf("stored value = %q: v1's publish did not regress the cache; the fixture misses the interleaving", stored)
	}
	if got.err != nil || string(got.v) != "rev7" {
		t.Fatalf("OLD Get = %q, %v", got.v, got.err)
	}
	if s := old.Stats(); s.PublishesAccepted != 1 || s.PublishesRejected != 0 {
		t.Fatalf("OLD stats = %+v", s)
	}
}

func versioned(data string, rev uint64) func(context.Context) (LoadResult, error) {
	return func(context.Context) (LoadResult, error) {
		return LoadResult{Data: []byte(data), Revision: rev, HasRevision: true}, nil
	}
}

// Revisions: a candidate older than the recorded revision is refused, by
// an earlier publication's revision or an invalidation's tombstone.
func testRevisions(t *testing.T, e *env) {
	ctx := context.Background()
	id := "rev-" + e.name
	c := e.newCache(t, Options{OnRejected: RejectFail})
	k, _ := c.keys(id)
	if v, err := c.GetVersioned(ctx, id, versioned("rev8", 8)); err != nil || string(v) != "rev8" {
		t.Fatalf("GetVersioned(8) = %q, %v", v, err)
	}
	if rev := e.do(t, "HGET", k.gen, "rev"); rev.Error() != nil {
		t.Fatal(rev.Error())
	} else if s, _ := rev.ToString(); s != "8" {
		t.Fatalf("recorded revision %q, want 8", s)
	}
	e.mustDo(t, "DEL", k.value) // the value expires; the revision stays
	if v, err := c.GetVersioned(ctx, id, versioned("rev7", 7)); !errors.Is(err, ErrOlderRevision) || v != nil {
		t.Fatalf("GetVersioned(7) = %q, %v; want ErrOlderRevision", v, err)
	}
	if v, ok := e.rawGet(t, k.value); ok {
		t.Fatalf("an older revision was stored: %q", v)
	}
	if _, ok := e.rawGet(t, k.lease); ok {
		t.Fatal("the refused loader's lease was kept")
	}
	if gen, err := c.InvalidateRevision(ctx, id, 10); err != nil || gen != 1 {
		t.Fatalf("InvalidateRevision = %d, %v", gen, err)
	}
	if _, err := c.GetVersioned(ctx, id, versioned("rev9", 9)); !errors.Is(err, ErrOlderRevision) {
		t.Fatalf("GetVersioned(9) after the tombstone 10 = %v; want ErrOlderRevision", err)
	}
	if v, err := c.GetVersioned(ctx, id, versioned("rev10", 10)); err != nil || string(v) != "rev10" {
		t.Fatalf("GetVersioned(10) = %q, %v", v, err)
	}
	s := c.Stats()
	if s.RejectedOlderRevision != 2 || s.PublishesRejected != 2 || s.PublishesAccepted != 2 || s.RejectedInvalidated != 0 || s.Invalidations != 1 {
		t.Fatalf("stats = %+v", s)
	}
	// A revision the scripts cannot take is a loader error, before any
	// publication.
	e.mustDo(t, "DEL", k.value)
	_, err := c.GetVersioned(ctx, id, versioned("huge", MaxRevision+1))
	var le *LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "MaxRevision") {
		t.Fatalf("GetVersioned(MaxRevision+1) = %v; want a LoadError", err)
	}
	if _, err := c.InvalidateRevision(ctx, id, MaxRevision+1); err == nil {
		t.Fatal("InvalidateRevision(MaxRevision+1) succeeded")
	}
}

// nativeExpected reports whether the servers of this run have SET ... IFEQ.
func nativeExpected(t *testing.T) bool {
	return kindHasSetIfeq(redistest.DefaultKind(t))
}

// A load three times as long as the lease keeps it by renewal and
// publishes; the renewals are native where the server has SET ... IFEQ.
func testRenewalKeepsSlowLoad(t *testing.T, e *env) {
	for _, tc := range []struct{ script, functions bool }{{false, false}, {true, false}, {true, true}} {
		script := tc.script
		name := "script-renew=" + strconv.FormatBool(script) + "/functions=" + strconv.FormatBool(tc.functions)
		t.Run(name, func(t *testing.T) {
			id := "renew-slow-" + strconv.FormatBool(script) + strconv.FormatBool(tc.functions) + "-" + e.name
			c := e.newCache(t, Options{LeaseTTL: 400 * time.Millisecond, RenewAfter: 0.25, ScriptRenew: script, Functions: tc.functions, OnRejected: RejectFail})
			k, _ := c.keys(id)
			v, err := c.Get(context.Background(), id, func(ctx context.Context) ([]byte, error) {
				tok, _ := e.rawGet(t, k.lease)
				end := time.Now().Add(1200 * time.Millisecond)
				for time.Now().Before(end) {
					if err := sleep(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
					if lease, ok := e.rawGet(t, k.lease); !ok || lease != tok {
						t.Errorf("lease = %q (exists %v) during the load, want the loader's %q", lease, ok, tok)
					}
				}
				return []byte("slow"), nil
			})
			if err != nil || string(v) != "slow" {
				t.Fatalf("Get = %q, %v", v, err)
			}
			s := c.Stats()
			if s.Renewals < 3 || s.RenewalsLost != 0 || s.RenewErrors != 0 || s.PublishesAccepted != 1 {
				t.Fatalf("stats = %+v, want 3 or more renewals and an accepted publication", s)
			}
			wantNative := uint64(0)
			if nativeExpected(t) && !script {
				wantNative = s.Renewals
			}
			t.Logf("%s: %d renewals, %d native", redistest.DefaultKind(t).Name, s.Renewals, s.RenewalsNative)
			if s.RenewalsNative != wantNative {
				t.Fatalf("%d of %d renewals native on %s (ScriptRenew %v), want %d", s.RenewalsNative, s.Renewals, redistest.DefaultKind(t).Name, script, wantNative)
			}
		})
	}
}

// Another owner takes the lease over during a load: the next renewal finds
// it lost, leaves the new owner's lease alone, cancels the load with the
// cause ErrLeaseLost, and nothing is published.
func testRenewalStopsAfterTakeover(t *testing.T, e *env) {
	id := "renew-takeover-" + e.name
	c := e.newCache(t, Options{LeaseTTL: 400 * time.Millisecond, RenewAfter: 0.25, OnRejected: RejectFail})
	k, _ := c.keys(id)
	started := make(chan struct{})
	cause := make(chan error, 1)
	done := goGet(c, id, func(ctx context.Context) ([]byte, error) {
		close(started)
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return []byte("too late"), nil // even a result is discarded
	})
	receive(t, started, "the loader")
	e.mustDo(t, "SET", k.lease, "intruder-token", "PX", "60000")
	got := receive(t, done, "the Get")
	if !errors.Is(got.err, ErrLeaseLost) || got.v != nil {
		t.Fatalf("Get = %q, %v; want ErrLeaseLost", got.v, got.err)
	}
	if c := receive(t, cause, "the load's cause"); !errors.Is(c, ErrLeaseLost) {
		t.Fatalf("the load's context cause = %v, want ErrLeaseLost", c)
	}
	if lease, _ := e.rawGet(t, k.lease); lease != "intruder-token" {
		t.Fatalf("lease = %q, want the new owner's", lease)
	}
	if pttl, _ := e.do(t, "PTTL", k.lease).AsInt64(); pttl < 50000 {
		t.Fatalf("the new owner's lease TTL = %d ms: renewed by the old owner", pttl)
	}
	if v, ok := e.rawGet(t, k.value); ok {
		t.Fatalf("a value was stored: %q", v)
	}
	s := c.Stats()
	if s.RenewalsLost != 1 || s.PublishesAccepted != 0 || s.PublishesRejected != 0 || s.LoaderErrors != 0 {
		t.Fatalf("stats = %+v", s)
	}
	// The renewals stopped: the counters do not move any more.
	time.Sleep(300 * time.Millisecond)
	if s2 := c.Stats(); s2.Renewals != s.Renewals || s2.RenewalsLost != 1 {
		t.Fatalf("renewals went on after the loss: %+v then %+v", s, s2)
	}
}

// Server errors are told apart by their code, and carry a hint.
func testErrorCodes(t *testing.T, e *env) {
	id := "wrongtype-" + e.name
	c := e.newCache(t, Options{})
	k, _ := c.keys(id)
	e.mustDo(t, "SET", k.gen, "not a hash")
	_, err := c.Get(context.Background(), id, value("v"))
	var ce *CallError
	if !errors.As(err, &ce) || ce.Code != "WRONGTYPE" || ce.Op != "acquire" || !strings.Contains(ce.Hint, "gen key a hash") {
		t.Fatalf("Get with a string gen key = %v; want a WRONGTYPE CallError with a hint", err)
	}
	if ErrorCode(err) != "WRONGTYPE" {
		t.Fatalf("ErrorCode = %q", ErrorCode(err))
	}
	if _, err := c.Invalidate(context.Background(), id); ErrorCode(err) != "WRONGTYPE" {
		t.Fatalf("Invalidate with a string gen key = %v", err)
	}
	if ErrorCode(errors.New("WRONGTYPE lookalike")) != "" || ErrorCode(nil) != "" {
		t.Fatal("ErrorCode of a non-server error is not empty")
	}
}

// TestNativeRenew runs renew on each server build: Valkey 8.1 has SET ...
// IFEQ and renews natively, Redis 7.0 and 8.0 through the renew script;
// both extend only the owner's lease. A build that is not installed skips
// (fails under CI).
func TestNativeRenew(t *testing.T) {
	for _, kind := range redistest.Kinds {
		t.Run(kind.Name, func(t *testing.T) {
			s := redistest.Standalone(t, redistest.WithKind(kind))
			do := func(args ...string) *rueidis.RedisMessage {
				m := s.MustDo(args...)
				return &m
			}
			r := newRunner(s.Client(), Options{})
			ctx := context.Background()
			want := kindHasSetIfeq(kind)
			if got := r.native.all(ctx, r.client); got != want {
				t.Fatalf("SET IFEQ detected %v, want %v", got, want)
			}
			k := keys{lease: "catalog:{product-1}:lease", value: "catalog:{product-1}:value", gen: "catalog:{product-1}:gen"}
			s.MustDo("SET", k.lease, "tok-a", "PX", "1000")
			rn, err := r.renew(ctx, k, "tok-a", "60000")
			if err != nil || !rn.extended || rn.native != want {
				t.Fatalf("owner renew = %+v, %v; want extended, native %v", rn, err, want)
			}
			if pttl, _ := do("PTTL", k.lease).AsInt64(); pttl < 59000 {
				t.Fatalf("PTTL after renew = %d", pttl)
			}
			if v, _ := do("GET", k.lease).ToString(); v != "tok-a" {
				t.Fatalf("lease = %q after renew", v)
			}
			s.MustDo("PEXPIRE", k.lease, "5000")
			rn, err = r.renew(ctx, k, "tok-b", "60000")
			if err != nil || rn.extended || rn.native != want {
				t.Fatalf("other token's renew = %+v, %v; want not extended", rn, err)
			}
			if pttl, _ := do("PTTL", k.lease).AsInt64(); pttl > 5000 {
				t.Fatalf("PTTL after another token's renew = %d", pttl)
			}
			s.MustDo("DEL", k.lease)
			rn, err = r.renew(ctx, k, "tok-a", "60000")
			if err != nil || rn.extended {
				t.Fatalf("renew of a missing lease = %+v, %v", rn, err)
			}
			if n, _ := do("EXISTS", k.lease).AsInt64(); n != 0 {
				t.Fatal("renew created the missing lease")
			}
			// ScriptRenew never asks the server.
			if rs := newRunner(s.Client(), Options{ScriptRenew: true}); rs.native != nil {
				t.Fatal("ScriptRenew kept native detection")
			}
		})
	}
}

// kindHasSetIfeq reports whether a test server build has SET ... IFEQ (Valkey
// 8.1 and later).
func kindHasSetIfeq(k redistest.Kind) bool {
	return k.Target() == "valkey-8.1" || k.Target() == "valkey-9.1"
}

// kindHasDelifeq reports whether a test server build has DELIFEQ (Valkey
// 9.0 and later).
func kindHasDelifeq(k redistest.Kind) bool {
	return k.Name == "valkey-9.1"
}

// TestNativeRelease runs release on each server build: Valkey 9.1 has
// DELIFEQ and releases natively, the others through the release script;
// both delete only the owner's lease. A build that is not installed skips
// (fails under CI).
func TestNativeRelease(t *testing.T) {
	for _, kind := range redistest.Kinds {
		t.Run(kind.Name, func(t *testing.T) {
			s := redistest.Standalone(t, redistest.WithKind(kind))
			exists := func(key string) bool {
				m := s.MustDo("EXISTS", key)
				n, _ := m.AsInt64()
				return n == 1
			}
			r := newRunner(s.Client(), Options{})
			ctx := context.Background()
			want := kindHasDelifeq(kind)
			if got := r.nativeRelease.all(ctx, r.client); got != want {
				t.Fatalf("DELIFEQ detected %v, want %v", got, want)
			}
			k := keys{lease: "catalog:{product-1}:lease", value: "catalog:{product-1}:value", gen: "catalog:{product-1}:gen"}
			s.MustDo("SET", k.lease, "tok-a", "PX", "60000")
			rl, err := r.release(ctx, k, "tok-b")
			if err != nil || rl.extended || rl.native != want {
				t.Fatalf("other token's release = %+v, %v; want not released, native %v", rl, err, want)
			}
			m := s.MustDo("GET", k.lease)
			if v, _ := (&m).ToString(); v != "tok-a" {
				t.Fatalf("lease = %q after another token's release, want tok-a", v)
			}
			rl, err = r.release(ctx, k, "tok-a")
			if err != nil || !rl.extended || rl.native != want {
				t.Fatalf("owner release = %+v, %v; want released, native %v", rl, err, want)
			}
			if exists(k.lease) {
				t.Fatal("the owner's release left the lease")
			}
			rl, err = r.release(ctx, k, "tok-a")
			if err != nil || rl.extended {
				t.Fatalf("release of a missing lease = %+v, %v", rl, err)
			}
			// A lease of another type: the native path and the script
			// both answer WRONGTYPE and touch nothing.
			s.MustDo("HSET", k.lease, "f", "v")
			if _, err := r.release(ctx, k, "tok-a"); ErrorCode(err) != "WRONGTYPE" {
				t.Fatalf("release of a hash lease = %v, want WRONGTYPE", err)
			}
			if !exists(k.lease) {
				t.Fatal("a failed release deleted the key")
			}
			// ScriptRelease never asks the server.
			if rs := newRunner(s.Client(), Options{ScriptRelease: true}); rs.nativeRelease != nil {
				t.Fatal("ScriptRelease kept native detection")
			}
		})
	}
}
