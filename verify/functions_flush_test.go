package verify

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// FUNCTION FLUSH drops every library; the Functions Lua state is a new one
// on the targets whose flush builds the engines again, the same one
// elsewhere (its cjson settings show it). SCRIPT FLUSH always makes a new
// EVAL state. Live proof: difftest's targets-function-flush-* and
// script-flush-* snippets.
func TestFunctionFlush(t *testing.T) {
	ctx := context.Background()
	const lib = "#!lua name=cj\nredis.register_function('cj', function(keys, args)\n" +
		"if args[1] then cjson.encode_number_precision(4) end return cjson.encode(3.14159265) end)"
	for target, fresh := range map[string]bool{
		"redis-7.0": false, "redis-7.2": false, "redis-7.4": true, "redis-8.0": true,
		"valkey-7.2": false, "valkey-8.0": false, "valkey-8.1": false, "valkey-9.1": true,
	} {
		for _, mode := range [][]string{nil, {"ASYNC"}, {"sync"}} {
			e := New(Options{Target: target})
			do := func(args ...string) Reply {
				t.Helper()
				r, err := e.Do(ctx, args...)
				if err != nil {
					t.Fatalf("%s %q: %v", target, args, err)
				}
				return r
			}
			do("FUNCTION", "LOAD", lib)
			if r := do("FCALL", "cj", "0", "set"); !r.Equal(BulkReply("3.142")) {
				t.Fatalf("%s: FCALL before the flush: %s", target, r)
			}
			if r := do(append([]string{"FUNCTION", "FLUSH"}, mode...)...); !r.Equal(StatusReply("OK")) {
				t.Fatalf("%s FUNCTION FLUSH %q: got %s, want OK", target, mode, r)
			}
			if r := do("FCALL", "cj", "0"); !r.Equal(ErrorReply("ERR Function not found")) {
				t.Errorf("%s: FCALL after the flush: got %s, want no function", target, r)
			}
			do("FUNCTION", "LOAD", lib) // no "already exists"
			want := "3.142"
			if fresh {
				want = "3.14159265"
			}
			if r := do("FCALL", "cj", "0"); !r.Equal(BulkReply(want)) {
				t.Errorf("%s FUNCTION FLUSH %q: cjson in the Functions state after it: got %s, want %q (new state: %v)", target, mode, r, want, fresh)
			}
		}
	}
}

func TestFlushArguments(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	for _, c := range []struct {
		args []string
		want Reply
	}{
		{[]string{"FUNCTION", "FLUSH", "now"}, ErrorReply("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")},
		{[]string{"function", "Flush", "SYNC", "ASYNC"}, ErrorReply("ERR unknown subcommand or wrong number of arguments for 'Flush'. Try FUNCTION HELP.")},
		{[]string{"FUNCTION", "FLUSH", "aSync"}, StatusReply("OK")},
		{[]string{"SCRIPT", "FLUSH", ""}, ErrorReply("ERR SCRIPT FLUSH only support SYNC|ASYNC option")},
		{[]string{"SCRIPT", "FLUSH", "SYNC", "ASYNC"}, ErrorReply("ERR SCRIPT FLUSH only support SYNC|ASYNC option")},
		{[]string{"SCRIPT", "FLUSH", "Async"}, StatusReply("OK")},
	} {
		r, err := e.Do(ctx, c.args...)
		if err != nil || !r.Equal(c.want) {
			t.Errorf("%q: got %s, %v; want %s", c.args, r, err, c.want)
		}
	}
}

// SCRIPT FLUSH gives EVAL a new state: cjson's settings are a fresh one's.
func TestScriptFlushNewState(t *testing.T) {
	ctx := context.Background()
	e := New(Options{})
	mustEval(t, e, "cjson.encode_number_precision(4)", nil, nil)
	if r := mustEval(t, e, "return cjson.encode(3.14159265)", nil, nil); !r.Equal(BulkReply("3.142")) {
		t.Fatalf("before SCRIPT FLUSH: got %s, want the setting kept", r)
	}
	if _, err := e.Do(ctx, "SCRIPT", "FLUSH", "ASYNC"); err != nil {
		t.Fatal(err)
	}
	if r := mustEval(t, e, "return cjson.encode(3.14159265)", nil, nil); !r.Equal(BulkReply("3.14159265")) {
		t.Errorf("after SCRIPT FLUSH: got %s, want a fresh state's", r)
	}
}

// A function whose last redis.call failed its argument conversion gets the
// server's error reply; on redis-8.0 the crash comes at the next FUNCTION
// FLUSH (a warning says so), unless another function's call ran first.
// Live proof: on Redis 8.0.2 the FCALL replies and the server runs on
// (FUNCTION DELETE too); FUNCTION FLUSH then crashes it, as difftest's
// function mode shows for snippets ending in such a call.
func TestFunctionArgvCrashAtFlush(t *testing.T) {
	ctx := context.Background()
	const lib = "#!lua name=a\nredis.register_function('bad', function(keys, args) return redis.call('SET', keys[1], args[1]) end)\n" +
		"redis.register_function('good', function(keys, args) return redis.call('GET', keys[1]) end)"
	for target, tc := range map[string]struct {
		crashes bool
		errText string
	}{
		"redis-8.0":  {true, "ERR Lua redis lib command arguments must be strings or integers script: bad, on @user_function:2."},
		"valkey-8.1": {false, "ERR Command arguments must be strings or integers script: bad, on @user_function:2."},
	} {
		crashes, errText := tc.crashes, tc.errText
		e := New(Options{Target: target})
		load := func() {
			if _, err := e.FunctionLoad([]byte(lib), true); err != nil {
				t.Fatal(err)
			}
		}
		bad := func() {
			t.Helper()
			r, err := e.FCall(ctx, "bad", []string{"k"}, nil)
			if err != nil || !r.Equal(ErrorReply(errText)) {
				t.Fatalf("%s: FCALL bad = %s, %v", target, r, err)
			}
			if w := e.Warnings(); crashes != (len(w) == 1 && strings.Contains(w[0], "at the next FUNCTION FLUSH")) {
				t.Errorf("%s: warnings %q", target, w)
			}
		}
		load()
		bad()
		if _, err := e.FCall(ctx, "good", []string{"k"}, nil); err != nil {
			t.Fatal(err)
		}
		if r, err := e.Do(ctx, "FUNCTION", "FLUSH"); err != nil || !r.Equal(StatusReply("OK")) {
			t.Fatalf("%s: FUNCTION FLUSH after a good call = %s, %v", target, r, err)
		}
		load()
		bad()
		_, err := e.Do(ctx, "FUNCTION", "FLUSH")
		var re *RunError
		if crashes != (errors.As(err, &re) && re.Code == CodeServerCrash) {
			t.Errorf("%s: FUNCTION FLUSH after the failed call: %v", target, err)
		}
	}
}
