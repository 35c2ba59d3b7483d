package verify

import (
	"context"
	"testing"
)

// BenchmarkEvalPublish measures one offline EVAL of the seed's
// compare-and-publish (fresh sandbox, compile, two commands, reply).
func BenchmarkEvalPublish(b *testing.B) {
	ctx := context.Background()
	e := New(Options{})
	keys := []string{"{p}lease", "{p}value"}
	src := []byte(publishSrc)
	b.ReportAllocs()
	for b.Loop() {
		e.Do(ctx, "SET", "{p}lease", "tok", "PX", "1000")
		if r, err := e.Eval(ctx, src, keys, []string{"tok", "v", "60000"}); err != nil || !r.Equal(IntReply(1)) {
			b.Fatalf("%s %v", r, err)
		}
	}
}

// BenchmarkFCallPublish measures the same call through a loaded library.
func BenchmarkFCallPublish(b *testing.B) {
	ctx := context.Background()
	e := New(Options{})
	lib := "#!lua name=bench\nredis.register_function('publish', function(KEYS, ARGV)\n" + publishSrc + "end)\n"
	if r, err := e.FunctionLoad([]byte(lib), false); err != nil || r.Kind != Bulk {
		b.Fatalf("%s %v", r, err)
	}
	keys := []string{"{p}lease", "{p}value"}
	b.ReportAllocs()
	for b.Loop() {
		e.Do(ctx, "SET", "{p}lease", "tok", "PX", "1000")
		if r, err := e.FCall(ctx, "publish", keys, []string{"tok", "v", "60000"}); err != nil || !r.Equal(IntReply(1)) {
			b.Fatalf("%s %v", r, err)
		}
	}
}
