package verify

import (
	"testing"
)

// TestStackOverflow: runaway recursion is Lua 5.1's catchable "stack
// overflow" at the caller's position, after as many levels as Redis
// allows (16381 inside pcall on a fresh state, 19997 once an overflow has
// grown the call infos; Reset starts fresh again), and the run goes on.
func TestStackOverflow(t *testing.T) {
	e := New(Options{})
	const depth = "local n = 0\nlocal function f() n = n + 1 return f() + 1 end\nlocal ok, err = pcall(f)\nreturn {n, err}"
	want := func(n int64) Reply {
		return ArrayReply(IntReply(n), BulkReply("user_script:2: stack overflow"))
	}
	if r := mustEval(t, e, depth, nil, nil); !r.Equal(want(16381)) {
		t.Fatalf("fresh: %s", r)
	}
	if r := mustEval(t, e, depth, nil, nil); !r.Equal(want(19997)) {
		t.Fatalf("after an overflow: %s", r)
	}
	e.Reset()
	if r := mustEval(t, e, depth, nil, nil); !r.Equal(want(16381)) {
		t.Fatalf("after Reset: %s", r)
	}

	src := "local function f() return f() + 1 end\nreturn f()"
	r := mustEval(t, New(Options{}), src, nil, nil)
	if w := ErrorReply("ERR user_script:1: stack overflow script: " + SHA1([]byte(src)) + ", on @user_script:1."); !r.Equal(w) {
		t.Errorf("uncaught: %s, want %s", r, w)
	}
	r = mustEval(t, New(Options{}), "local function f() return f() + 1 end\npcall(f)\nreturn 'on'", nil, nil)
	if !r.Equal(BulkReply("on")) {
		t.Errorf("after a caught overflow: %s", r)
	}
}

// TestCStackOverflow: the 200th nested pcall or xpcall (LUAI_MAXCCALLS)
// fails with "C stack overflow", without a position.
func TestCStackOverflow(t *testing.T) {
	for _, call := range []string{"pcall(f)", "xpcall(f, function(m) return m end)"} {
		src := "local depth = 0\nlocal function f() depth = depth + 1 return " + call + " end\nlocal r = {f()}\nreturn {depth, #r, r[#r]}"
		r := mustEval(t, New(Options{}), src, nil, nil)
		if w := ArrayReply(IntReply(199), IntReply(200), BulkReply("C stack overflow")); !r.Equal(w) {
			t.Errorf("%s: %s, want %s", call, r, w)
		}
	}
}

// TestYieldAcrossC: a yield under pcall, string.gsub or table.sort inside
// a coroutine fails as in Lua 5.1; a plain yield still works.
func TestYieldAcrossC(t *testing.T) {
	const boundary = "attempt to yield across metamethod/C-call boundary"
	for _, tc := range []struct{ src string }{
		{"local co = coroutine.create(function() return pcall(coroutine.yield, 1) end)\nreturn {coroutine.resume(co)}"},
		{"local co = coroutine.create(function() return (string.gsub('a', '.', function(c) return coroutine.yield(c) end)) end)\nreturn {coroutine.resume(co)}"},
		{"local co = coroutine.create(function() local t = setmetatable({}, {__tostring = function() return coroutine.yield(1) end}) return tostring(t) end)\nreturn {coroutine.resume(co)}"},
	} {
		r := mustEval(t, New(Options{}), tc.src, nil, nil)
		if len(r.Elems) == 0 || !r.Elems[len(r.Elems)-1].Equal(BulkReply(boundary)) {
			t.Errorf("%s: %s", tc.src, r)
		}
	}
	r := mustEval(t, New(Options{}), "local co = coroutine.create(function(a) return coroutine.yield(a + 1) end)\nreturn {coroutine.resume(co, 1)}", nil, nil)
	if !r.Equal(ArrayReply(IntReply(1), IntReply(2))) {
		t.Errorf("plain yield: %s", r)
	}
}

// TestXpcallHandlerErrors: a handler that fails is called again with its
// own error; one that always fails gives "error in error handling".
func TestXpcallHandlerErrors(t *testing.T) {
	r := mustEval(t, New(Options{}), "return {xpcall(function() error('a') end, function(m) error('b') end)}", nil, nil)
	if !r.Equal(ArrayReply(NilReply(), BulkReply("error in error handling"))) {
		t.Errorf("always failing: %s", r)
	}
	r = mustEval(t, New(Options{}), "local n = 0\nreturn {xpcall(function() error('a') end, function(m) n = n + 1 if n < 3 then error('b' .. n) end return m .. n end)}", nil, nil)
	if !r.Equal(ArrayReply(NilReply(), BulkReply("user_script:2: b23"))) {
		t.Errorf("failing twice: %s", r)
	}
}
