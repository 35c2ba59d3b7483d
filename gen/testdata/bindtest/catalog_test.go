package bindtest

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"example.com/bindtest/catalogrefresh"
)

type catalogRec struct {
	inner catalogrefresh.Conn
	r     *recorder
}

func (x catalogRec) Do(ctx context.Context, cmd catalogrefresh.Command) (catalogrefresh.Value, error) {
	x.r.add(cmd.Name)
	return x.inner.Do(ctx, cmd)
}

func catalogConn(c *client, r *recorder) catalogrefresh.Conn {
	if c.rueidis != nil {
		return catalogRec{catalogrefresh.NewRueidisConn(c.rueidis), r}
	}
	return catalogRec{catalogrefresh.NewGoRedisConn(c.goredis), r}
}

// must returns a key builder's value, failing the test on its error.
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// keyID is a placeholder value unique to the test.
func keyID(t *testing.T) string {
	return strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
}

func wantSent(t *testing.T, r *recorder, want ...string) {
	t.Helper()
	if got := r.take(); !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v", got, want)
	}
}

// Every script of the bundled library through the binding, on standalone
// and cluster, with both clients: typed replies, the keys the caller's
// templates build, NOSCRIPT recovery after SCRIPT FLUSH, a typed error, and
// a cross-slot call refused before it is sent.
func TestCatalogRefresh(t *testing.T) {
	each(t, func(t *testing.T, c *client) {
		ctx := context.Background()
		rec := &recorder{}
		b := catalogrefresh.New(catalogConn(c, rec))
		id := keyID(t)
		lease, value := "catalog:{product-"+id+"}:lease", "catalog:{product-"+id+"}:value"
		k := must(b.ForCatalogSummary(id))(t)

		c.flushScripts(t)
		r, err := k.Acquire(ctx, catalogrefresh.AcquireArgs{Token: "t1", LeaseTTLMs: "60000"})
		if err != nil {
			t.Fatal(err)
		}
		acq, ok := r.(catalogrefresh.AcquireAcquired)
		if !ok || acq.Gen != "0" {
			t.Fatalf("acquire = %#v, want AcquireAcquired{Gen: 0}", r)
		}
		wantSent(t, rec, "EVALSHA", "EVAL") // NOSCRIPT, then the body once
		if got := c.get(t, lease); got != "t1" {
			t.Errorf("lease = %q, want t1", got)
		}

		r, err = k.Acquire(ctx, catalogrefresh.AcquireArgs{Token: "t2", LeaseTTLMs: "60000"})
		if busy, ok := r.(catalogrefresh.AcquireBusy); err != nil || !ok || busy.PttlMs <= 0 || busy.PttlMs > 60000 {
			t.Fatalf("second acquire = %#v, %v, want AcquireBusy", r, err)
		}
		wantSent(t, rec, "EVALSHA") // loaded now

		if rn, err := k.Renew(ctx, catalogrefresh.RenewArgs{Token: "t1", LeaseTTLMs: "60000"}); err != nil || rn != catalogrefresh.RenewRenewed {
			t.Fatalf("renew = %v, %v", rn, err)
		}
		if rn, err := k.Renew(ctx, catalogrefresh.RenewArgs{Token: "t2", LeaseTTLMs: "60000"}); err != nil || rn != catalogrefresh.RenewNotOwner {
			t.Fatalf("renew by another token = %v, %v", rn, err)
		}
		p, err := k.Publish(ctx, catalogrefresh.PublishArgs{Token: "t1", Candidate: "v1", CacheTTLMs: "60000", Gen: acq.Gen})
		if err != nil || p != catalogrefresh.PublishPublished {
			t.Fatalf("publish = %v, %v", p, err)
		}
		if got, l := c.get(t, value), c.get(t, lease); got != "v1" || l != "" {
			t.Errorf("after publish: value %q lease %q, want v1 and no lease", got, l)
		}
		r, err = k.Acquire(ctx, catalogrefresh.AcquireArgs{Token: "t3", LeaseTTLMs: "60000"})
		if cached, ok := r.(catalogrefresh.AcquireCached); err != nil || !ok || cached.Value != "v1" || cached.Gen != "0" {
			t.Fatalf("acquire after publish = %#v, %v, want AcquireCached{v1, 0}", r, err)
		}
		if n, err := k.Invalidate(ctx, catalogrefresh.InvalidateArgs{Revision: "3"}); err != nil || n != 1 {
			t.Fatalf("invalidate = %d, %v, want generation 1", n, err)
		}
		if got := c.get(t, value); got != "" {
			t.Errorf("value after invalidate = %q, want none", got)
		}
		r, err = k.Acquire(ctx, catalogrefresh.AcquireArgs{Token: "t4", LeaseTTLMs: "60000"})
		if a, ok := r.(catalogrefresh.AcquireAcquired); err != nil || !ok || a.Gen != "1" {
			t.Fatalf("acquire after invalidate = %#v, %v", r, err)
		}
		if p, err := k.Publish(ctx, catalogrefresh.PublishArgs{Token: "t4", Candidate: "old", CacheTTLMs: "60000", Gen: "1", Revision: "2"}); err != nil || p != catalogrefresh.PublishOlderRevision {
			t.Fatalf("publish of an older revision = %v, %v", p, err)
		}
		r, _ = k.Acquire(ctx, catalogrefresh.AcquireArgs{Token: "t5", LeaseTTLMs: "60000"})
		if _, ok := r.(catalogrefresh.AcquireAcquired); !ok {
			t.Fatalf("acquire = %#v", r)
		}
		if rel, err := k.Release(ctx, catalogrefresh.ReleaseArgs{Token: "t5"}); err != nil || rel != catalogrefresh.ReleaseReleased {
			t.Fatalf("release = %v, %v", rel, err)
		}
		if rel, err := k.Release(ctx, catalogrefresh.ReleaseArgs{Token: "t5"}); err != nil || rel != catalogrefresh.ReleaseNotOwner {
			t.Fatalf("second release = %v, %v", rel, err)
		}
		rec.take()

		// A declared error reply is a typed error, sent once.
		_, err = k.Acquire(ctx, catalogrefresh.AcquireArgs{Token: "", LeaseTTLMs: "1000"})
		var se *catalogrefresh.ScriptError
		if !errors.Is(err, catalogrefresh.ErrEmptyToken) || !errors.As(err, &se) || se.Msg != "ERR empty token" || errors.Is(err, catalogrefresh.ErrInvalidLeaseTTL) {
			t.Fatalf("acquire with no token: %v, want ErrEmptyToken", err)
		}
		wantSent(t, rec, "EVALSHA")
		_, err = k.Publish(ctx, catalogrefresh.PublishArgs{Token: "x", Candidate: "c", CacheTTLMs: "0", Gen: "0"})
		if !errors.Is(err, catalogrefresh.ErrInvalidCacheTTL) {
			t.Fatalf("publish with TTL 0: %v, want ErrInvalidCacheTTL", err)
		}
		wantSent(t, rec, "EVALSHA")

		// Keys in different slots: refused before anything is sent.
		_, err = b.Acquire(ctx, catalogrefresh.AcquireKeys{Lease: "a", Value: "b", Gen: "c"}, catalogrefresh.AcquireArgs{Token: "t", LeaseTTLMs: "1000"})
		var cs *catalogrefresh.CrossSlotError
		if !errors.As(err, &cs) {
			t.Fatalf("cross-slot call: %v, want CrossSlotError", err)
		}
		wantSent(t, rec)
	})
}

func TestCatalogRefreshWrongTypeIsUndeclared(t *testing.T) {
	each(t, func(t *testing.T, c *client) {
		ctx := context.Background()
		b := catalogrefresh.New(catalogConn(c, &recorder{}))
		id := keyID(t)
		c.onEveryNodeOwning(t, "catalog:{product-"+id+"}:value", "HSET", "catalog:{product-"+id+"}:value", "f", "1")
		_, err := must(b.ForCatalogSummary(id))(t).Acquire(ctx, catalogrefresh.AcquireArgs{Token: "t", LeaseTTLMs: "1000"})
		var se *catalogrefresh.ScriptError
		if !errors.As(err, &se) || !strings.HasPrefix(se.Msg, "WRONGTYPE") || se.Declared != nil {
			t.Fatalf("acquire on a hash: %v, want an undeclared WRONGTYPE ScriptError", err)
		}
	})
}

// FCALL of the versioned function name when the library is deployed as
// Functions (BINDTEST_CATALOG_FUNCTIONS holds the library's code).
func TestCatalogRefreshFunctions(t *testing.T) {
	code, err := os.ReadFile(os.Getenv("BINDTEST_CATALOG_FUNCTIONS"))
	if err != nil {
		t.Skipf("BINDTEST_CATALOG_FUNCTIONS: %v", err)
	}
	each(t, func(t *testing.T, c *client) {
		ctx := context.Background()
		c.onEveryNode(t, "FUNCTION", "LOAD", "REPLACE", string(code))
		rec := &recorder{}
		b := catalogrefresh.New(catalogConn(c, rec), catalogrefresh.WithMode(catalogrefresh.ModeFunctions))
		r, err := must(b.ForCatalogSummary(keyID(t)))(t).Acquire(ctx, catalogrefresh.AcquireArgs{Token: "f1", LeaseTTLMs: "60000"})
		if _, ok := r.(catalogrefresh.AcquireAcquired); err != nil || !ok {
			t.Fatalf("acquire by FCALL = %#v, %v", r, err)
		}
		wantSent(t, rec, "FCALL")
	})
}
