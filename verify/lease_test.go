package verify

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// TestLeaseScripts runs the repository's lease scripts in both modes
// (EVAL and the generated Functions library) through the seed's paused
// writer: OLD's late publish is rejected and the value stays CURRENT's.
func TestLeaseScripts(t *testing.T) {
	m, err := manifest.Load(filepath.Join("..", "lua", "v1", "manifest.yaml")) // the v1 contract this test pins
	if err != nil {
		t.Fatal(err)
	}
	src := map[string][]byte{}
	for _, s := range m.Scripts {
		src[s.Name] = s.Source
	}
	keys := []string{"catalog:{product-42}:lease", "catalog:{product-42}:value"}
	for _, mode := range []string{"eval", "function"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			e := New(Options{})
			if mode == "function" {
				r, err := e.FunctionLoad(m.FunctionsLibrary(), false)
				if err != nil || r.Kind != Bulk || r.Str != m.LibraryName() {
					t.Fatalf("FUNCTION LOAD: %s %v", r, err)
				}
			}
			run := func(script string, k []string, args ...string) Reply {
				t.Helper()
				var r Reply
				var err error
				if mode == "eval" {
					r, err = e.Eval(ctx, src[script], k, args)
				} else {
					r, err = e.FCall(ctx, m.FunctionName(script), k, args)
				}
				if err != nil {
					t.Fatalf("%s: %v", script, err)
				}
				return r
			}
			expect := func(got, want Reply) {
				t.Helper()
				if !got.Equal(want) {
					t.Fatalf("got %s, want %s", got, want)
				}
			}
			expect(run("acquire", keys, "old", "100"), ArrayReply(BulkReply("acquired")))
			e.Advance(101) // OLD's lease expired 1 ms ago (at its time it still held)
			expect(run("acquire", keys, "cur", "100"), ArrayReply(BulkReply("acquired")))
			expect(run("publish", keys, "cur", "CURRENT", "60000"), IntReply(1))
			expect(run("publish", keys, "old", "OLD", "60000"), IntReply(0))
			en, ok := e.Entry(keys[1])
			if !ok || en.Value != "CURRENT" || en.PTTL != 60000 {
				t.Fatalf("value %+v %v", en, ok)
			}
			if _, ok := e.Entry(keys[0]); ok {
				t.Fatal("lease survived publish")
			}
			expect(run("acquire", keys, "x", "100"), ArrayReply(BulkReply("cached"), BulkReply("CURRENT")))
			expect(run("publish", keys, "x", "v", "1.5"), ErrorReply("ERR invalid cache TTL"))
			expect(run("release", keys[:1], ""), ErrorReply("ERR empty token"))
		})
	}
}
