package mutate

import (
	"context"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// BenchmarkMutate runs every mutant of the bundled renew script through the
// bundled scenarios and models on all cores, and reports mutants per second
// and the cost of one mutant against the named baseline measured in the
// same run: one pass of the bundled scenarios on the unmutated scripts
// (what every mutant costs at most, when nothing kills it early).
func BenchmarkMutate(b *testing.B) {
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var mutants int
	var spent, baseline time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := scenario.Check(ctx, m); err != nil {
			b.Fatal(err)
		}
		baseline += time.Since(start)
		start = time.Now()
		rep, err := Run(ctx, m, Options{Scripts: []string{"renew"}})
		if err != nil {
			b.Fatal(err)
		}
		spent += time.Since(start)
		mutants += len(rep.Results)
	}
	b.ReportMetric(float64(mutants)/spent.Seconds(), "mutants/s")
	b.ReportMetric(spent.Seconds()/float64(mutants)/(baseline.Seconds()/float64(b.N)), "mutant/scenario-pass")
}
