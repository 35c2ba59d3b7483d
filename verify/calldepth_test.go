package verify

import (
	"context"
	"testing"
)

const depthProbe = "local n = 0\nlocal function f() n = n + 1 return f() + 1 end\nlocal ok, err = pcall(f)\nreturn {n, err}"

func depthReply(n int64, chunk string) Reply {
	return ArrayReply(IntReply(n), BulkReply(chunk+": stack overflow"))
}

// TestCallInfosGrowInOneRun: the first overflow grows the call infos for
// the rest of the state's life, within the same script too (16381 then
// 19997 levels, as Redis 7.0.15 ... Valkey 9.1.2 measure), and SCRIPT
// FLUSH gives the EVAL state a fresh room again.
func TestCallInfosGrowInOneRun(t *testing.T) {
	e := New(Options{})
	src := "local n = 0\nlocal function f() n = n + 1 return f() + 1 end\npcall(f)\nlocal a = n\nn = 0\nlocal ok, err = pcall(f)\nreturn {a, n, err}"
	want := ArrayReply(IntReply(16381), IntReply(19997), BulkReply("user_script:2: stack overflow"))
	if r := mustEval(t, e, src, nil, nil); !r.Equal(want) {
		t.Fatalf("two overflows: %s, want %s", r, want)
	}
	if r := mustEval(t, e, depthProbe, nil, nil); !r.Equal(depthReply(19997, "user_script:2")) {
		t.Fatalf("next run: %s", r)
	}
	if r, err := e.Do(context.Background(), "SCRIPT", "FLUSH"); err != nil || r.Kind != Status {
		t.Fatalf("SCRIPT FLUSH: %s %v", r, err)
	}
	if r := mustEval(t, e, depthProbe, nil, nil); !r.Equal(depthReply(16381, "user_script:2")) {
		t.Fatalf("after SCRIPT FLUSH: %s", r)
	}
}

// TestFunctionsCallInfosGrow: the Functions state grows like the EVAL one
// and keeps its room across calls; Reset starts it fresh.
func TestFunctionsCallInfosGrow(t *testing.T) {
	e := New(Options{})
	lib := "#!lua name=d\nredis.register_function('depth', function()\n" + depthProbe + "\nend)"
	load := func() {
		t.Helper()
		if r, err := e.FunctionLoad([]byte(lib), true); err != nil || r.Kind == Error {
			t.Fatalf("load: %s %v", r, err)
		}
	}
	call := func() Reply {
		t.Helper()
		r, err := e.FCall(context.Background(), "depth", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	load()
	for i, n := range []int64{16381, 19997, 19997} {
		if r := call(); !r.Equal(depthReply(n, "user_function:4")) {
			t.Fatalf("call %d: %s, want %d levels", i+1, r, n)
		}
	}
	e.Reset()
	load()
	if r := call(); !r.Equal(depthReply(16381, "user_function:4")) {
		t.Fatalf("after Reset: %s", r)
	}
}

// TestOverflowHandlerRoom: an xpcall handler of an overflow runs in twice
// the room, and a call past it is "error in error handling".
func TestOverflowHandlerRoom(t *testing.T) {
	src := `local n, d = 0, 0
local function f() d = d + 1 return f() + 1 end
local function g(k) n = n + 1 return g(k) + 1 end
local r = {xpcall(f, function(m) return g(m) end)}
return {d, n, tostring(r[1]), tostring(r[2])}`
	e := New(Options{})
	for _, n := range []int64{16381, 19997} {
		want := ArrayReply(IntReply(n), IntReply(n+3), BulkReply("false"), BulkReply("error in error handling"))
		if r := mustEval(t, e, src, nil, nil); !r.Equal(want) {
			t.Errorf("%s, want %s", r, want)
		}
	}
}

// TestXpcallHandlerCCalls: a handler that recurses through metamethods
// stops where luaD_call throws LUA_ERRERR (23 calls after a C stack
// overflow, 219 after a plain error, as Redis 7.0.15 measures).
func TestXpcallHandlerCCalls(t *testing.T) {
	for _, tc := range []struct {
		body string
		n    int64
	}{
		{"return setmetatable({}, mt).x", 23},
		{"error('a')", 219},
	} {
		src := `local n = 0
local mt = {}
mt.__index = function(t, k) return setmetatable({}, mt)[k] end
local hmt = {}
hmt.__index = function(t, k) n = n + 1 return setmetatable({}, hmt)[k] end
local ok, e = xpcall(function() ` + tc.body + ` end, function(m) return setmetatable({}, hmt).y end)
return {n, tostring(ok), e}`
		want := ArrayReply(IntReply(tc.n), BulkReply("false"), BulkReply("error in error handling"))
		if r := mustEval(t, New(Options{}), src, nil, nil); !r.Equal(want) {
			t.Errorf("%s: %s, want %s", tc.body, r, want)
		}
	}
}

// TestYieldInTailPosition: a coroutine whose body yields in tail position
// (through a __call too) resumes and returns resume's arguments.
func TestYieldInTailPosition(t *testing.T) {
	for _, body := range []string{
		"function(x) return coroutine.yield(x) end",
		"function(x) return setmetatable({}, {__call = function(self, x) return coroutine.yield(x) end})(x) end",
	} {
		src := "local co = coroutine.create(" + body + ")\nlocal a, b = coroutine.resume(co, 2)\nlocal c, d = coroutine.resume(co, 'back')\nreturn {tostring(a), b, tostring(c), d, coroutine.status(co)}"
		want := ArrayReply(BulkReply("true"), IntReply(2), BulkReply("true"), BulkReply("back"), BulkReply("dead"))
		if r := mustEval(t, New(Options{}), src, nil, nil); !r.Equal(want) {
			t.Errorf("%s: %s, want %s", body, r, want)
		}
	}
}

// TestOverflowReraised: an overflow caught and raised again with error(e,
// 0) is reported at the error call's line.
func TestOverflowReraised(t *testing.T) {
	src := "local function f() return f() + 1 end\nlocal ok, e = pcall(f)\nlocal x = 1\nerror(e, 0)"
	want := ErrorReply("ERR user_script:1: stack overflow script: " + SHA1([]byte(src)) + ", on @user_script:4.")
	if r := mustEval(t, New(Options{}), src, nil, nil); !r.Equal(want) {
		t.Errorf("%s, want %s", r, want)
	}
}

// BenchmarkCallMetamethodRecursion: recursion through __call to Redis's
// depth (16381 levels).
func BenchmarkCallMetamethodRecursion(b *testing.B) {
	src := []byte("local t\nt = setmetatable({}, {__call = function(self) return t() + 1 end})\nreturn {pcall(t)}")
	e := New(Options{})
	for b.Loop() {
		e.Reset()
		if _, err := e.Eval(context.Background(), src, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCallInfosShrinkAtCollect: collectgarbage("collect") halves the
// running thread's call infos twice when they are little used, so a grown
// room of 20000 regrows to 19968 after three collections (Redis 7.0.15:
// 19965 levels), in the same run and the next.
func TestCallInfosShrinkAtCollect(t *testing.T) {
	e := New(Options{})
	src := "local function f() return f() + 1 end\npcall(f)\nfor i = 1, 3 do collectgarbage() end"
	mustEval(t, e, src, nil, nil)
	if r := mustEval(t, e, depthProbe, nil, nil); !r.Equal(depthReply(19965, "user_script:2")) {
		t.Fatalf("after three collections: %s", r)
	}
	if r := mustEval(t, e, depthProbe, nil, nil); !r.Equal(depthReply(19997, "user_script:2")) {
		t.Fatalf("after an overflow again: %s", r)
	}
}
