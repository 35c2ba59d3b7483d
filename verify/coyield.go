package verify

import (
	lua "github.com/yuin/gopher-lua"
)

// A yield in tail position of a coroutine's body (return coroutine.yield(x),
// reached through any chain of tail calls, __call included). Lua 5.1
// suspends the body and, at the next resume, returns resume's arguments as
// the body's results. gopher-lua v1.1.2's tail call of a Go function
// removes the calling frame before the yield returns, so the coroutine is
// left without a frame: it reads as not started and the next resume
// dereferences a nil frame. The engine notes such a coroutine when the
// resume that suspended it returns, and finishes it at the next resume as
// Lua does (lua_coroutines.yaml: co-yield-tail-*).

// noteTailYield records coroutine th, which the resume just suspended,
// when it is left without a frame.
func (r *scriptRun) noteTailYield(th *lua.LState) {
	if th.Dead || !currentFrameOK() || currentFrameOf(th) != nil {
		return
	}
	if r.tailYield == nil {
		r.tailYield = map[*lua.LState]bool{}
	}
	r.tailYield[th] = true
}

// resumeTailYield is coroutine.resume(th, ...) on L for a coroutine
// suspended by a yield in its body's tail position: the body returns the
// arguments and the coroutine is dead. ok is false for any other
// coroutine.
func (r *scriptRun) resumeTailYield(L, th *lua.LState) (n int, ok bool) {
	if !r.tailYield[th] {
		return 0, false
	}
	delete(r.tailYield, th)
	th.Dead = true
	top := L.GetTop()
	L.Push(lua.LTrue)
	for i := 2; i <= top; i++ {
		L.Push(L.Get(i))
	}
	return top, true
}
