package refresh

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// The benchmarks compare the package with plain rueidis commands against
// the same server in the same run; the ratios are what matter.

func benchEnv(b *testing.B) *env {
	b.Helper()
	s := redistest.Standalone(b)
	return &env{name: "bench", client: s.Client(), primaries: []*redistest.Server{s}}
}

func BenchmarkGetHit(b *testing.B) {
	e := benchEnv(b)
	ctx := context.Background()
	payload := []byte(`{"id":42,"name":"Desk lamp","price":"19.90","stock":17}`)
	c, err := New(e.client, Options{CacheTTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Get(ctx, "42", func(context.Context) ([]byte, error) { return payload, nil }); err != nil {
		b.Fatal(err)
	}
	cl := e.client
	if err := cl.Do(ctx, cl.B().Set().Key("plain:42").Value(string(payload)).Build()).Error(); err != nil {
		b.Fatal(err)
	}
	b.Run("rueidis-GET", func(b *testing.B) {
		for b.Loop() {
			if _, err := cl.Do(ctx, cl.B().Get().Key("plain:42").Build()).AsBytes(); err != nil {
				b.Fatal(err)
			}
		}
	})
	load := func(context.Context) ([]byte, error) { b.Fatal("loaded on a hit"); return nil, nil }
	b.Run("Get", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Get(ctx, "42", load); err != nil {
				b.Fatal(err)
			}
		}
	})
	// paired alternates the two in one loop, so load from other processes
	// hits both alike; ratio is Get's time over GET's.
	b.Run("paired", func(b *testing.B) {
		var plain, pkg time.Duration
		for b.Loop() {
			t0 := time.Now()
			if _, err := cl.Do(ctx, cl.B().Get().Key("plain:42").Build()).AsBytes(); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if _, err := c.Get(ctx, "42", load); err != nil {
				b.Fatal(err)
			}
			plain, pkg = plain+t1.Sub(t0), pkg+time.Since(t1)
		}
		b.ReportMetric(float64(pkg)/float64(plain), "ratio")
	})
	sc, err := New(e.client, Options{CacheTTL: time.Hour, StaleFor: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Get-stale-on", func(b *testing.B) {
		for b.Loop() {
			if _, err := sc.Get(ctx, "42", load); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkPublish(b *testing.B) {
	e := benchEnv(b)
	m := loadManifest(b)
	e.primaries[0].MustDo("FUNCTION", "LOAD", "REPLACE", string(m.FunctionsLibrary()))
	ctx := context.Background()
	payload := []byte(`{"id":42,"name":"Desk lamp","price":"19.90","stock":17}`)
	cl := e.client
	n := 0
	b.Run("rueidis-SET", func(b *testing.B) {
		for b.Loop() {
			n++
			if err := cl.Do(ctx, cl.B().Set().Key("plain:"+strconv.Itoa(n)).Value(string(payload)).PxMilliseconds(300000).Build()).Error(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, mode := range modes {
		c, err := New(e.client, Options{Functions: mode.functions})
		if err != nil {
			b.Fatal(err)
		}
		// acquire + publish: what a refresh costs in Redis round trips
		// besides the load.
		b.Run("acquire+publish-"+mode.name, func(b *testing.B) {
			for b.Loop() {
				n++
				k, _ := c.keys(mode.name + "-ap-" + strconv.Itoa(n))
				tok := newToken()
				rep, err := c.r.acquire(ctx, k, tok, c.leaseTTL)
				if err != nil || rep.state != stateAcquired {
					b.Fatalf("acquire = %+v, %v", rep, err)
				}
				if rep.gen != "0" {
					b.Fatalf("acquire gen = %q", rep.gen)
				}
				if pr, err := c.r.publish(ctx, k, tok, string(EncodeValue(payload, time.Now())), c.cacheTTL, rep.gen, ""); err != nil || pr != published {
					b.Fatalf("publish = %v, %v", pr, err)
				}
			}
		})
		// paired alternates SET and acquire+publish in one loop; ratio is
		// acquire+publish's time over SET's.
		b.Run("paired-"+mode.name, func(b *testing.B) {
			var plain, pkg time.Duration
			for b.Loop() {
				n++
				t0 := time.Now()
				if err := cl.Do(ctx, cl.B().Set().Key("plain:"+strconv.Itoa(n)).Value(string(payload)).PxMilliseconds(300000).Build()).Error(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				k, _ := c.keys(mode.name + "-pp-" + strconv.Itoa(n))
				tok := newToken()
				rep, err := c.r.acquire(ctx, k, tok, c.leaseTTL)
				if err != nil || rep.state != stateAcquired {
					b.Fatalf("acquire = %+v, %v", rep, err)
				}
				if rep.gen != "0" {
					b.Fatalf("acquire gen = %q", rep.gen)
				}
				if pr, err := c.r.publish(ctx, k, tok, string(EncodeValue(payload, time.Now())), c.cacheTTL, rep.gen, ""); err != nil || pr != published {
					b.Fatalf("publish = %v, %v", pr, err)
				}
				plain, pkg = plain+t1.Sub(t0), pkg+time.Since(t1)
			}
			b.ReportMetric(float64(pkg)/float64(plain), "ratio")
		})
		// paired-publish alternates one SET and one publish (its acquire
		// untimed), each one call: ratio is publish's time over SET's
		// (goal: at most 1.4).
		b.Run("paired-publish-"+mode.name, func(b *testing.B) {
			var plain, pkg time.Duration
			for b.Loop() {
				n++
				k, _ := c.keys(mode.name + "-p1-" + strconv.Itoa(n))
				tok := newToken()
				rep, err := c.r.acquire(ctx, k, tok, c.leaseTTL)
				if err != nil || rep.state != stateAcquired {
					b.Fatalf("acquire = %+v, %v", rep, err)
				}
				val := string(EncodeValue(payload, time.Now()))
				t0 := time.Now()
				if err := cl.Do(ctx, cl.B().Set().Key("plain:"+strconv.Itoa(n)).Value(val).PxMilliseconds(300000).Build()).Error(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if pr, err := c.r.publish(ctx, k, tok, val, c.cacheTTL, rep.gen, ""); err != nil || pr != published {
					b.Fatalf("publish = %v, %v", pr, err)
				}
				plain, pkg = plain+t1.Sub(t0), pkg+time.Since(t1)
			}
			b.ReportMetric(float64(pkg)/float64(plain), "ratio")
		})
		// Get of a cold key: GET, acquire, load (in memory), publish.
		b.Run("Get-cold-"+mode.name, func(b *testing.B) {
			load := func(context.Context) ([]byte, error) { return payload, nil }
			for b.Loop() {
				n++
				if _, err := c.Get(ctx, mode.name+"-cold-"+strconv.Itoa(n), load); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
