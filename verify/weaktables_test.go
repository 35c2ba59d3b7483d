package verify

import (
	"context"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// The registry layout is read from gopher-lua's unexported fields: with
// the pinned version it must be found, or weak tables would lose every
// entry a thread's stack holds.
func TestRegistryLayout(t *testing.T) {
	if !regOK() {
		t.Fatal("gopher-lua's registry layout was not recognised")
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	tab := L.NewTable()
	L.Push(tab)
	found := false
	for _, v := range threadRegisters(L) {
		found = found || v == lua.LValue(tab)
	}
	if !found {
		t.Fatal("a value pushed on the stack is not among the thread's registers")
	}
}

// A weak entry goes only at a collection, only when nothing else reaches
// its object, and a key held by a coroutine's stack or an upvalue stays.
func TestWeakTables(t *testing.T) {
	e := New(Options{Target: "redis-7.0"})
	const src = `
local t = setmetatable({}, {__mode = 'k'})
local held = {}
local co = coroutine.create(function(x) coroutine.yield(x) end)
coroutine.resume(co, {})
local f = (function() local up = {} t[up] = 'up' return function() return up end end)()
t[held] = 'held'
t[{}] = 'gone'
t[co] = 'thread'
local before = 0
for _ in pairs(t) do before = before + 1 end
collectgarbage()
local after = 0
for _ in pairs(t) do after = after + 1 end
return {before, after, t[held], type(f)}`
	r, err := e.Eval(context.Background(), []byte(src), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ArrayReply(IntReply(4), IntReply(3), BulkReply("held"), BulkReply("function"))
	if !r.Equal(want) {
		t.Fatalf("got %s, want %s", r, want)
	}
}
