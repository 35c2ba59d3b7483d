package evalrun

import (
	"context"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// BenchmarkOffline is one `scriptctl eval` run without the process: a fresh
// engine, a one-key state, the compare-and-publish script.
func BenchmarkOffline(b *testing.B) {
	req := Request{Source: []byte(publish), Keys: []string{"{p}lease", "{p}value"}, Args: []string{"tok-old", "v1", "60000"}, State: lease}
	ctx := context.Background()
	for b.Loop() {
		if _, err := Offline(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiff is the same run with --diff: offline, then on a local
// redis-server (state written, EVAL, keys read back) and compared.
func BenchmarkDiff(b *testing.B) {
	srv := redistest.Standalone(b)
	conn := RueidisConn(srv.Client(), 0)
	opts := Options{
		Request: Request{Source: []byte(publish), Keys: []string{"{p}lease", "{p}value"}, Args: []string{"tok-old", "v1", "60000"}, State: lease, ClearKeys: true},
		Offline: true, Live: conn, Addr: srv.Addr,
	}
	ctx := context.Background()
	for b.Loop() {
		res, err := Run(ctx, opts)
		if err != nil || res.Differ() {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
