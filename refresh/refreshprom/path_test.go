package refreshprom_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/refresh"
	"github.com/scriptctl/scriptctl/refresh/refreshprom"
)

// TestPathMetricLive runs a renewal and a release on the run's server build
// (SCRIPTCTL_TEST_SERVER), standalone and on the 6-node cluster, and reads
// the path label of refresh_conditional_ops_total: native on Valkey 9.1
// (SET ... IFEQ and DELIFEQ) and Valkey 8.1 (renewals only), script on
// Redis.
func TestPathMetricLive(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { pathMetric(t, redistest.Standalone(t).Client()) })
	t.Run("cluster", func(t *testing.T) { pathMetric(t, redistest.NewCluster(t).Client()) })
}

func pathMetric(t *testing.T, client rueidis.Client) {
	kind := redistest.DefaultKind(t)
	// A renewal every 500 ms of a 10 s lease: only a 9.5 s stall of the
	// machine loses the lease.
	c, err := refresh.New(client, refresh.Options{LeaseTTL: 10 * time.Second, RenewAfter: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// A load that waits for two renewals (however long the machine takes
	// to make them), then fails: renewals, then a release of the owned
	// lease.
	boom := errors.New("origin down")
	_, err = c.Get(ctx, "slow", func(ctx context.Context) ([]byte, error) {
		for c.Stats().Renewals < 2 {
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Get = %v, want the loader's error", err)
	}
	st := c.Stats()
	if st.Renewals == 0 || st.Releases != 1 {
		t.Fatalf("stats = %+v, want renewals and one release", st)
	}
	renewPath, releasePath := "script", "script"
	switch kind.Name {
	case "valkey-8.1":
		renewPath = "native"
	case "valkey-9.1":
		renewPath, releasePath = "native", "native"
	}
	other := map[string]string{"native": "script", "script": "native"}
	want := fmt.Sprintf(`
# HELP refresh_conditional_ops_total Token-safe lease operations the server answered, by op (renew: extended renewals; release: releases) and path: native (SET ... IFEQ, DELIFEQ) or script (the renew and release scripts).
# TYPE refresh_conditional_ops_total counter
refresh_conditional_ops_total{op="release",path=%q} 1
refresh_conditional_ops_total{op="release",path=%q} 0
refresh_conditional_ops_total{op="renew",path=%q} %d
refresh_conditional_ops_total{op="renew",path=%q} 0
`, releasePath, other[releasePath], renewPath, st.Renewals, other[renewPath])
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(refreshprom.NewCollector(c, refreshprom.Options{}))
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "refresh_conditional_ops_total"); err != nil {
		t.Fatalf("%s: %v", kind.Name, err)
	}
}
