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
	src := fixed{Hits: 10, Misses: 3, Loads: 4, LoaderErrors: 1, PublishesAccepted: 2, PublishesRejected: 15, StaleServed: 5, WaitTimeouts: 6, AdmissionWaits: 7,
		RejectedLeaseLost: 8, RejectedInvalidated: 4, RejectedOlderRevision: 3, Renewals: 20, RenewalsNative: 12, RenewalsLost: 2, RenewErrors: 1, Invalidations: 9,
		Releases: 11, ReleasesNative: 4}
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
# HELP catalog_refresh_publishes_total Publications by result: accepted, or rejected for any cause (the candidate was discarded; publish_rejections_total splits them by cause).
# TYPE catalog_refresh_publishes_total counter
catalog_refresh_publishes_total{cache="summary",result="accepted"} 2
catalog_refresh_publishes_total{cache="summary",result="rejected"} 15
# HELP catalog_refresh_publish_rejections_total Rejected publications by cause: lease_lost (the load outlived the lease or a successor took it), invalidated (the id was invalidated after the acquire), older_revision (the candidate's source revision is older than the recorded one).
# TYPE catalog_refresh_publish_rejections_total counter
catalog_refresh_publish_rejections_total{cache="summary",cause="invalidated"} 4
catalog_refresh_publish_rejections_total{cache="summary",cause="lease_lost"} 8
catalog_refresh_publish_rejections_total{cache="summary",cause="older_revision"} 3
# HELP catalog_refresh_renewals_total Lease renewals during long loads by result: extended, lost (the lease was gone or taken over: the load was cancelled), error (the server could not be asked).
# TYPE catalog_refresh_renewals_total counter
catalog_refresh_renewals_total{cache="summary",result="error"} 1
catalog_refresh_renewals_total{cache="summary",result="extended"} 20
catalog_refresh_renewals_total{cache="summary",result="lost"} 2
# HELP catalog_refresh_renewals_native_total Renewals that extended a lease with SET ... IFEQ instead of the renew script.
# TYPE catalog_refresh_renewals_native_total counter
catalog_refresh_renewals_native_total{cache="summary"} 12
# HELP catalog_refresh_conditional_ops_total Token-safe lease operations the server answered, by op (renew: extended renewals; release: releases) and path: native (SET ... IFEQ, DELIFEQ) or script (the renew and release scripts).
# TYPE catalog_refresh_conditional_ops_total counter
catalog_refresh_conditional_ops_total{cache="summary",op="release",path="native"} 4
catalog_refresh_conditional_ops_total{cache="summary",op="release",path="script"} 7
catalog_refresh_conditional_ops_total{cache="summary",op="renew",path="native"} 12
catalog_refresh_conditional_ops_total{cache="summary",op="renew",path="script"} 8
# HELP catalog_refresh_invalidations_total Successful Invalidate and InvalidateRevision calls.
# TYPE catalog_refresh_invalidations_total counter
catalog_refresh_invalidations_total{cache="summary"} 9
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
	if n := testutil.CollectAndCount(c); n != 21 {
		t.Fatalf("%d metrics, want 21", n)
	}
	want := `
# HELP refresh_publishes_total Publications by result: accepted, or rejected for any cause (the candidate was discarded; publish_rejections_total splits them by cause).
# TYPE refresh_publishes_total counter
refresh_publishes_total{result="accepted"} 0
refresh_publishes_total{result="rejected"} 3
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "refresh_publishes_total"); err != nil {
		t.Fatal(err)
	}
}
