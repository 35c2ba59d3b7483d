package verify

import (
	"context"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestFrameMirror fails when gopher-lua's Debug or callFrame no longer has
// the layout framePC reads: upgrade the mirrors with the library.
func TestFrameMirror(t *testing.T) {
	if !frameMirrorOK.Get() {
		t.Fatal("gopherDebug/gopherFrame do not mirror gopher-lua's Debug and callFrame: operand names are off")
	}
	L := lua.NewState()
	defer L.Close()
	var op, pcSeen int
	var name string
	handler := L.NewFunction(func(L *lua.LState) int {
		dbg, ok := L.GetStack(1)
		if !ok {
			t.Fatal("no failing frame")
		}
		fn, pc, ok := framePC(dbg)
		if !ok {
			t.Fatal("framePC: not a Lua frame")
		}
		op, pcSeen, name = instOp(fn.Proto.Code[pc]), pc, fn.Proto.SourceName
		return 1
	})
	fn, err := L.LoadString("local t = {}\nlocal a = 1\nreturn t.x.y")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := L.PCall(0, 0, handler); err == nil {
		t.Fatal("no error")
	}
	if op != lua.OP_GETTABLEKS || name != "<string>" {
		t.Fatalf("failing instruction: opcode %d at %d of %q, want GETTABLEKS (%d)", op, pcSeen, name, lua.OP_GETTABLEKS)
	}
	// the failing GETTABLEKS is the function's second index
	p := fn.Proto
	n := 0
	for pc := 0; pc <= pcSeen; pc++ {
		if instOp(p.Code[pc]) == lua.OP_GETTABLEKS {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("pc %d is GETTABLEKS number %d, want 2", pcSeen, n)
	}
}

// failingIndex compiles src as a chunk and returns its prototype with the
// locals' ranges and the pc of the last instruction of opcode op.
func failingAt(t *testing.T, src string, op int) (*lua.FunctionProto, []localVar, int) {
	t.Helper()
	c := compileCached([]byte(src), "@user_script")
	if c.err != nil {
		t.Fatal(c.err)
	}
	s := c.localScopes()
	if s == nil {
		t.Fatalf("locals' ranges of %q not rebuilt", src)
	}
	p := c.proto
	for pc := len(p.Code) - 1; pc >= 0; pc-- {
		if instOp(p.Code[pc]) == op {
			return p, s[p], pc
		}
	}
	t.Fatalf("no opcode %d in %q", op, src)
	return nil, nil, 0
}

// TestObjName names the register an instruction reads as Lua 5.1 does.
func TestObjName(t *testing.T) {
	for _, tt := range []struct {
		src  string
		op   int
		reg  func(i uint32) int
		want string
	}{
		{"local x\nreturn x.y", lua.OP_GETTABLEKS, instB, "local 'x'"},
		{"local t = {}\nreturn t.a.b", lua.OP_GETTABLEKS, instB, "field 'a'"},
		{"local t = {}\nreturn t[1].b", lua.OP_GETTABLEKS, instB, "field '?'"},
		{"return math.pi.x", lua.OP_GETTABLEKS, instB, "field 'pi'"},
		{"return tostring.x", lua.OP_GETTABLEKS, instB, "global 'tostring'"},
		{"local u\nlocal function f() return u.x end", lua.OP_CLOSURE, instA, "local 'f'"},
		{"local t = {}\ndo local v = 1 end\nreturn t.a.b", lua.OP_GETTABLEKS, instB, "field 'a'"},
		{"local t = {}\nfor i = 1, 2 do local v = i end\nreturn t.x.y", lua.OP_GETTABLEKS, instB, "field 'x'"},
		{"local t = {} if t then local q = 1 end return t.a.b", lua.OP_GETTABLEKS, instB, "field 'a'"},
		{"local o = {}\nreturn o:foo()", lua.OP_TAILCALL, instA, "method 'foo'"},
		{"local function f() end\nreturn f().x", lua.OP_GETTABLEKS, instB, ""},
		{"local f\nreturn (f or nil).x", lua.OP_GETTABLEKS, instB, ""},
		{"local t = 5\ndo local a, b, c, d = 1, 2, 3, tostring end\nfor k in t do end", lua.OP_TFORLOOP, func(i uint32) int { return instA(i) + 3 }, "global 'tostring'"},
	} {
		p, locals, pc := failingAt(t, tt.src, tt.op)
		if got := objName(p, locals, pc, tt.reg(p.Code[pc])); got != tt.want {
			t.Errorf("%q: objName = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestLocalScopes: the rebuilt ranges end where their blocks end, which
// gopher-lua's own record does not say.
func TestLocalScopes(t *testing.T) {
	c := compileCached([]byte("local a = 1\ndo local b = 2 end\nfor i = 1, 2 do local c = i end\nlocal d = 4\nreturn a"), "@user_script")
	s := c.localScopes()
	if s == nil {
		t.Fatal("not rebuilt")
	}
	vars := s[c.proto]
	byName := map[string]localVar{}
	for _, v := range vars {
		byName[v.name] = v
	}
	n := len(c.proto.Code)
	if byName["a"].end != n || byName["d"].end != n {
		t.Errorf("chunk locals end before the chunk: %+v", vars)
	}
	if b, d := byName["b"], byName["d"]; b.end > d.start || b.end < b.start {
		t.Errorf("block local b = %+v, must end before d %+v", b, d)
	}
	if ci, c := byName["(for index)"], byName["c"]; ci.start != byName["i"].start-1 || c.end > byName["d"].start {
		t.Errorf("for locals: %+v", vars)
	}
}

// TestOperandErrors runs errors through the engine: the texts are the
// servers' (lua_operands.yaml proves them live).
func TestOperandErrors(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"local x\nreturn x.y":                                      "user_script:2: attempt to index local 'x' (a nil value)",
		"local a, b = {}, nil\nreturn a.x, b.y":                    "user_script:2: attempt to index local 'b' (a nil value)",
		"local t = {}\nt.cal()":                                    "user_script:2: attempt to call field 'cal' (a nil value)",
		"local n\nlocal function f() return n + 1 end\nreturn f()": "user_script:2: attempt to perform arithmetic on upvalue 'n' (a nil value)",
		"local t = {}\nreturn t[1] * 2":                            "user_script:2: attempt to perform arithmetic on field '?' (a nil value)",
		"local co = coroutine.create(function() local x, y = 1, nil return x + y end)\nlocal ok, e = coroutine.resume(co)\nreturn e": "user_script:1: attempt to perform arithmetic on local 'y' (a nil value)",
	} {
		rep, err := e.Eval(context.Background(), []byte(src), nil, nil)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		got := rep.String()
		if !strings.Contains(got, want) {
			t.Errorf("%q: got %s, want %q", src, got, want)
		}
		if w := e.Warnings(); len(w) > 0 {
			t.Errorf("%q: warnings %v", src, w)
		}
	}
}

// TestCCallLimit: recursion through __index stops at Lua 5.1's C-call
// limit (197 levels under a pcall, as on the servers, lua_ccalls.yaml).
func TestCCallLimit(t *testing.T) {
	if !currentFrameOK() {
		t.Fatal("LState.currentFrame is not where ccalls.go reads it")
	}
	e := New(Options{})
	src := "local n = 0\nlocal mt = {}\nmt.__index = function(t, k) n = n + 1 return setmetatable({}, mt)[k] end\nlocal ok, err = pcall(function() return setmetatable({}, mt).x end)\nreturn {n, err}"
	rep, err := e.Eval(context.Background(), []byte(src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.String(); !strings.Contains(got, "197") || !strings.Contains(got, "user_script:3: C stack overflow") {
		t.Fatalf("got %s, want 197 levels and user_script:3: C stack overflow", got)
	}
}
