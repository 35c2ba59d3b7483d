package connect

import (
	"context"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// BenchmarkDial measures what opening one node connection costs, in the
// same run: Dial as scriptctl does it (small buffers, a ring of 4), against
// a rueidis client with its default buffers (0.5 MiB each way, a ring of
// 1024), both with one round trip (INFO server) and Close. The ratio is
// dial/default (below 1: Dial is cheaper).
func BenchmarkDial(b *testing.B) {
	s := redistest.Standalone(b)
	cfg, err := Resolve(Settings{URLs: []string{s.URL()}, Timeout: 5 * time.Second}, false)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	use := func(c rueidis.Client) {
		if err := c.Do(ctx, c.B().Info().Section("server").Build()).Error(); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	var ours, def time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c, err := cfg.Dial(ctx, s.Addr)
		if err != nil {
			b.Fatal(err)
		}
		use(c)
		ours += time.Since(start)

		start = time.Now()
		opt := cfg.Option(s.Addr)
		opt.ReadBufferEachConn, opt.WriteBufferEachConn, opt.RingScaleEachConn = 0, 0, 0
		c, err = rueidis.NewClient(opt)
		if err != nil {
			b.Fatal(err)
		}
		use(c)
		def += time.Since(start)
	}
	b.ReportMetric(float64(ours.Microseconds())/float64(b.N), "dial-us/op")
	b.ReportMetric(float64(def.Microseconds())/float64(b.N), "default-us/op")
	b.ReportMetric(float64(ours)/float64(def), "dial/default")
}
