// Package refreshprom exposes the counters of a refresh.Cache as Prometheus
// metrics. It is the only package that imports client_golang, so services
// that do not use Prometheus do not depend on it. It reads Cache.Stats at
// scrape time and keeps no state of its own.
package refreshprom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/scriptctl/scriptctl/refresh"
)

// StatsSource is what the collector reads: a *refresh.Cache.
type StatsSource interface {
	Stats() refresh.Stats
}

// Options name the metrics. With the zero value the metrics are
// refresh_hits_total, refresh_publishes_total{result="rejected"} and so on.
type Options struct {
	Namespace string // prefix, such as "catalog": catalog_refresh_hits_total
	// ConstLabels are added to every metric, such as {"cache":
	// "product_summary"} when one process registers several caches.
	ConstLabels prometheus.Labels
}

// Collector is a prometheus.Collector for one cache.
type Collector struct {
	src StatsSource

	hits, misses, loads, loaderErrors, published, staleServed, waitTimeouts, admissionWaits *prometheus.Desc
	rejections, renewals, renewalsNative, invalidations                                     *prometheus.Desc
	conditional                                                                             *prometheus.Desc
}

// NewCollector returns a collector of src's counters; register it with
// prometheus.MustRegister or a Registry.
func NewCollector(src StatsSource, opts Options) *Collector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(opts.Namespace, "refresh", name), help, labels, opts.ConstLabels)
	}
	return &Collector{
		src:            src,
		hits:           desc("hits_total", "Gets whose first read found the cached value."),
		misses:         desc("misses_total", "Gets whose first read found no cached value."),
		loads:          desc("loads_total", "Loads from the origin, refreshes and wait-timeout fallback loads."),
		loaderErrors:   desc("loader_errors_total", "Loads from the origin that returned an error."),
		published:      desc("publishes_total", "Publications by result: accepted, or rejected for any cause (the candidate was discarded; publish_rejections_total splits them by cause).", "result"),
		rejections:     desc("publish_rejections_total", "Rejected publications by cause: lease_lost (the load outlived the lease or a successor took it), invalidated (the id was invalidated after the acquire), older_revision (the candidate's source revision is older than the recorded one).", "cause"),
		renewals:       desc("renewals_total", "Lease renewals during long loads by result: extended, lost (the lease was gone or taken over: the load was cancelled), error (the server could not be asked).", "result"),
		renewalsNative: desc("renewals_native_total", "Renewals that extended a lease with SET ... IFEQ instead of the renew script."),
		conditional:    desc("conditional_ops_total", "Token-safe lease operations the server answered, by op (renew: extended renewals; release: releases) and path: native (SET ... IFEQ, DELIFEQ) or script (the renew and release scripts).", "op", "path"),
		invalidations:  desc("invalidations_total", "Successful Invalidate and InvalidateRevision calls."),
		staleServed:    desc("stale_served_total", "Gets answered with a stale copy before its hard stale deadline."),
		waitTimeouts:   desc("wait_timeouts_total", "Gets that reached the wait deadline while another owner held the lease."),
		admissionWaits: desc("admission_waits_total", "Loads that waited for the process-wide MaxConcurrentLoads limit."),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.hits, c.misses, c.loads, c.loaderErrors, c.published, c.staleServed, c.waitTimeouts, c.admissionWaits, c.rejections, c.renewals, c.renewalsNative, c.conditional, c.invalidations} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Stats()
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(c.hits, s.Hits)
	counter(c.misses, s.Misses)
	counter(c.loads, s.Loads)
	counter(c.loaderErrors, s.LoaderErrors)
	counter(c.published, s.PublishesAccepted, "accepted")
	counter(c.published, s.PublishesRejected, "rejected")
	counter(c.staleServed, s.StaleServed)
	counter(c.waitTimeouts, s.WaitTimeouts)
	counter(c.admissionWaits, s.AdmissionWaits)
	counter(c.rejections, s.RejectedLeaseLost, "lease_lost")
	counter(c.rejections, s.RejectedInvalidated, "invalidated")
	counter(c.rejections, s.RejectedOlderRevision, "older_revision")
	counter(c.renewals, s.Renewals, "extended")
	counter(c.renewals, s.RenewalsLost, "lost")
	counter(c.renewals, s.RenewErrors, "error")
	counter(c.renewalsNative, s.RenewalsNative)
	counter(c.conditional, s.RenewalsNative, "renew", "native")
	counter(c.conditional, s.Renewals-s.RenewalsNative, "renew", "script")
	counter(c.conditional, s.ReleasesNative, "release", "native")
	counter(c.conditional, s.Releases-s.ReleasesNative, "release", "script")
	counter(c.invalidations, s.Invalidations)
}
