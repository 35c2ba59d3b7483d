package refreshprom_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/scriptctl/scriptctl/refresh"
	"github.com/scriptctl/scriptctl/refresh/refreshprom"
)

type fixed refresh.Stats

func (f fixed) Stats() refresh.Stats { return refresh.Stats(f) }

func TestCollector(t *testing.T) {
	src := fixed{Hits: 10, Misses: 3, Loads: 4, LoaderErrors: 1, PublishesAccepted: 2, PublishesRejected: 1, StaleServed: 5, WaitTimeouts: 6, AdmissionWaits: 7}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(refreshprom.NewCollector(src, refreshprom.Options{Namespace: "catalog", ConstLabels: prometheus.Labels{"cache": "summary"}}))
	want := `
# HELP catalog_refresh_admission_waits_total Loads that waited for the process-wide MaxConcurrentLoads limit.
# TYPE catalog_refresh_admission_waits_total counter
catalog_refresh_admission_waits_total{cache="summary"} 7
# HELP catalog_refresh_hits_total Gets whose first read found the cached value.
# TYPE catalog_refresh_hits_total counter
catalog_refresh_hits_total{cache="summary"} 10
# HELP catalog_refresh_loader_errors_total Loads from the origin that returned an error.
# TYPE catalog_refresh_loader_errors_total counter
catalog_refresh_loader_errors_total{cache="summary"} 1
# HELP catalog_refresh_loads_total Loads from the origin, refreshes and wait-timeout fallback loads.
# TYPE catalog_refresh_loads_total counter
catalog_refresh_loads_total{cache="summary"} 4
# HELP catalog_refresh_misses_total Gets whose first read found no cached value.
# TYPE catalog_refresh_misses_total counter
catalog_refresh_misses_total{cache="summary"} 3
# HELP catalog_refresh_publishes_total Publications by result: accepted under a valid lease, or rejected because the lease was lost (the candidate was discarded).
# TYPE catalog_refresh_publishes_total counter
catalog_refresh_publishes_total{cache="summary",result="accepted"} 2
catalog_refresh_publishes_total{cache="summary",result="rejected"} 1
# HELP catalog_refresh_stale_served_total Gets answered with a stale copy before its hard stale deadline.
# TYPE catalog_refresh_stale_served_total counter
catalog_refresh_stale_served_total{cache="summary"} 5
# HELP catalog_refresh_wait_timeouts_total Gets that reached the wait deadline while another owner held the lease.
# TYPE catalog_refresh_wait_timeouts_total counter
catalog_refresh_wait_timeouts_total{cache="summary"} 6
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

func TestCollectorDefaultNames(t *testing.T) {
	c := refreshprom.NewCollector(fixed{PublishesRejected: 3}, refreshprom.Options{})
	if n := testutil.CollectAndCount(c); n != 9 {
		t.Fatalf("%d metrics, want 9", n)
	}
	want := `
# HELP refresh_publishes_total Publications by result: accepted under a valid lease, or rejected because the lease was lost (the candidate was discarded).
# TYPE refresh_publishes_total counter
refresh_publishes_total{result="accepted"} 0
refresh_publishes_total{result="rejected"} 3
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "refresh_publishes_total"); err != nil {
		t.Fatal(err)
	}
}
