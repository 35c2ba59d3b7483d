package verify

import (
	"context"
	"strings"
	"testing"
)

// FUNCTION LIST of several libraries, or of a library with several
// functions, lists them in load and registration order and warns: the
// server's order depends on its hash seed, so no live run pins it.
func TestFunctionListOrder(t *testing.T) {
	ctx := context.Background()
	e := New(Options{Target: "redis-7.0"})
	do := func(args ...string) Reply {
		t.Helper()
		r, err := e.Do(ctx, args...)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return r
	}
	do("FUNCTION", "LOAD", "#!lua name=zz\nredis.register_function('z1', function() return 1 end)")
	do("FUNCTION", "LOAD", "#!lua name=aa\nredis.register_function('a2', function() return 1 end)\nredis.register_function('a1', function() return 1 end)")
	names := func(r Reply) []string {
		var out []string
		for _, lib := range r.Elems {
			out = append(out, lib.Elems[1].Str)
			for _, f := range lib.Elems[5].Elems {
				out = append(out, lib.Elems[1].Str+"."+f.Elems[1].Str)
			}
		}
		return out
	}
	r := do("FUNCTION", "LIST")
	if got, want := strings.Join(names(r), " "), "zz zz.z1 aa aa.a2 aa.a1"; got != want {
		t.Fatalf("FUNCTION LIST: %s, want %s", got, want)
	}
	if w := e.Warnings(); len(w) != 2 || !strings.Contains(w[0], "libraries") || !strings.Contains(w[1], "functions") {
		t.Fatalf("warnings: %q", w)
	}
	do("FUNCTION", "LOAD", "REPLACE", "#!lua name=zz\nredis.register_function('z1', function() return 2 end)")
	if got, want := strings.Join(names(do("FUNCTION", "LIST")), " "), "aa aa.a2 aa.a1 zz zz.z1"; got != want {
		t.Fatalf("FUNCTION LIST after REPLACE: %s, want %s", got, want)
	}
	if r := do("FUNCTION", "LIST", "LIBRARYNAME", "z*"); len(r.Elems) != 1 || len(e.Warnings()) != 0 {
		t.Fatalf("one library: %s, warnings %q", r, e.Warnings())
	}
	if r := do("FUNCTION", "DELETE", "aa"); !r.Equal(StatusReply("OK")) {
		t.Fatalf("FUNCTION DELETE: %s", r)
	}
	stats := do("FUNCTION", "STATS")
	if got := stats.Elems[3].Elems[1]; got.Elems[1].Int != 1 || got.Elems[3].Int != 1 {
		t.Fatalf("FUNCTION STATS after DELETE: %s", stats)
	}
	for _, f := range []string{"a1", "a2"} {
		if r := do("FCALL", f, "0"); !r.Equal(ErrorReply("ERR Function not found")) {
			t.Fatalf("FCALL %s after DELETE: %s", f, r)
		}
	}
	if r := do("FCALL", "z1", "0"); !r.Equal(IntReply(2)) {
		t.Fatalf("FCALL z1: %s", r)
	}
}
