package explore

import (
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkExplore explores the bundled invalidation model (against the v2
// scripts, or their stand-in) restoring states from snapshots (the
// checker's way) and, as the baseline, by replaying each state's path from
// the root. It reports states per second; compare the two sub-benchmarks'
// states/s for the ratio.
func BenchmarkExplore(b *testing.B) {
	md := loadModel(b, v2Manifest(b), filepath.Join(modelsDir, "invalidation_race.yaml"))
	for _, mode := range []struct {
		name string
		opts Options
	}{{"snapshot", Options{}}, {"replay", Options{Replay: true}}} {
		b.Run(mode.name, func(b *testing.B) {
			var states int
			start := time.Now()
			for b.Loop() {
				states = explore(b, md, mode.opts).States
			}
			b.ReportMetric(float64(states), "states")
			b.ReportMetric(float64(states)*float64(b.N)/time.Since(start).Seconds(), "states/s")
		})
	}
}
