package verify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Call depth, as Lua 5.1.5 in Redis limits it. Lua counts call infos
// (luaD_growCI): a fresh state has room for 16384 (BASIC_CI_SIZE 8,
// doubled), and the first overflow, once caught, leaves 20000
// (LUAI_MAXCALLS, restore_stack_limit) for the rest of the state's life;
// past them a call raises "stack overflow" at the caller's position, an
// ordinary error pcall catches. Redis 7.0.15, 8.0.2 and Valkey 8.1.1 run
// f() + 1 recursion 16381 levels deep inside pcall on a fresh state
// (SCRIPT FLUSH makes a new one), 19997 after one overflow
// (lua_errors.yaml: stack-overflow-depth-*). Calls that cross into C
// (lua_pcall: pcall, xpcall) count separately: the 200th nested one
// (LUAI_MAXCCALLS) fails with "C stack overflow".
//
// gopher-lua's frames stand for call infos one for one once the run's
// function is called through a Go frame (callBase), as Redis calls it
// from C. The step counter reads the running thread's frame count before
// every instruction (framedepth.go) and, past the call infos, makes the VM
// raise the error in the frame just entered; the handlers then put Lua's
// text, with the caller's position, in its place (overflowInfo), and the
// frames beyond the limit leave them room to run. Without frameDepthOK the
// frame stack is sized to the call infos instead: the push past it panics
// ("lua callstack overflow"), and the panic's Lua traceback
// (IncludeGoStackTrace) gives the position.
const (
	callInfoFresh = 16384
	callInfoGrown = 20000
	maxCCalls     = 200
	// errErrDepth is how deep Lua 5.1 follows an xpcall handler that
	// itself fails before giving up with "error in error handling"
	// (LUAI_MAXCCALLS + LUAI_MAXCCALLS>>3).
	errErrDepth = maxCCalls + maxCCalls>>3
)

var reTraceTop = lazy.Regexp(`^stack traceback:\n\t(\S+?):(\d*):? in `)

// callStackOverflow reports whether err is gopher-lua's frame stack
// overflow and returns Lua's message for it: "stack overflow" with the
// position of the Lua function whose call overflowed ("" and 0 when a Go
// function made the call).
func callStackOverflow(err error) (msg, chunk string, line int, ok bool) {
	var ae *lua.ApiError
	if !errors.As(err, &ae) || ae.Type != lua.ApiErrorPanic || !strings.Contains(ae.Error(), "lua callstack overflow") {
		return "", "", 0, false
	}
	trace := ae.StackTrace
	if i := strings.Index(trace, "stack traceback:"); i >= 0 {
		trace = trace[i:]
	}
	if m := reTraceTop().FindStringSubmatch(trace); m != nil && m[1] != "[G]" && m[2] != "" {
		line, _ = strconv.Atoi(m[2])
		return m[1] + ":" + m[2] + ": stack overflow", m[1], line, true
	}
	return "stack overflow", "", 0, true
}

// overflowed records a stack overflow on the main thread: the state's call
// infos grow to LUAI_MAXCALLS (see callInfoFresh).
func (r *scriptRun) overflowed(L *lua.LState) {
	if L == L.G.MainThread {
		r.grown = true
	}
}

// enterC counts a call that crosses into C (lua_pcall) on L's thread and
// reports false, counting nothing, when it is the one past
// LUAI_MAXCCALLS. Each thread counts from 1, the call that started it.
func (r *scriptRun) enterC(L *lua.LState) bool {
	if r.ccalls == nil {
		r.ccalls = map[*lua.LState]int{}
	}
	n := r.ccalls[L]
	if n == 0 {
		n = 1
	}
	if n+1 >= maxCCalls {
		return false
	}
	r.ccalls[L] = n + 1
	return true
}

func (r *scriptRun) leaveC(L *lua.LState) {
	if n := r.ccalls[L]; n > 1 {
		r.ccalls[L] = n - 1
	}
}

// callBase calls the function at stack index 1 with the arguments above
// it: the Go frame under a run's function that stands for Redis's C
// caller (so that frames and Lua's call infos count alike).
func callBase(L *lua.LState) int {
	L.Call(L.GetTop()-1, 1)
	return 1
}

// yieldAcrossC reports whether a yield from the running Go function would
// cross a C call of its coroutine, as Lua 5.1's lua_yield refuses it
// (L->nCcalls above the resume's baseCcalls): a Go (C) frame (pcall,
// xpcall, a library function calling back into Lua: string.gsub,
// table.sort, tostring) or a call the VM makes through luaD_call, which
// leaves no Go frame: a metamethod (__index, __newindex, __add, __concat,
// __eq, __lt, __le, __unm ... functions) or a generic for's iterator. A
// Lua function's __call is a Lua call and lets the yield through. Only
// the coroutine's own frames count: a metamethod that resumed it does not.
func yieldAcrossC(L *lua.LState) bool {
	if currentFrameOK {
		for f := currentFrameOf(L); f != nil && f.Parent != nil; f = f.Parent {
			if cCall(f, true) != 0 {
				return true
			}
		}
		return false
	}
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return false
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
			return false
		}
		if dbg.What == "G" {
			return true
		}
	}
}

// xpcallHandler runs xpcall's message handler h on the error value obj as
// Lua 5.1 does (luaG_errormsg): a string message is first worded like Lua
// 5.1 (the failing frame is still on the stack); an error inside the
// handler goes to the handler again, until it returns or the C stack runs
// out, which gives "error in error handling".
func (r *scriptRun) xpcallHandler(L *lua.LState, h, obj lua.LValue) lua.LValue {
	if s, ok := obj.(lua.LString); ok {
		msg, exact := r.reword(L, string(s), 1)
		if !exact {
			r.warn("error text approximated (gopher-lua wording): %s", msg)
		}
		obj = lua.LString(msg)
	}
	if r.ctx != nil {
		r.ctx.errHandling++
		defer func() { r.ctx.errHandling-- }()
	}
	depth := r.ccalls[L]
	for ; depth < errErrDepth; depth++ {
		if !callable(L, h) {
			break
		}
		L.Push(h)
		L.Push(obj)
		err := L.PCall(1, 1, L.NewFunction(r.rewordHandler))
		if err == nil {
			v := L.Get(-1)
			L.Pop(1)
			return v
		}
		if _, _, _, ok := callStackOverflow(err); ok {
			break
		}
		r.rethrow(L, err)
		obj = errorObject(err)
	}
	return lua.LString("error in error handling")
}

// overflowInfo is the last stack overflow of a run: the text gopher-lua
// raises (the callee's position and "stack overflow") and Lua 5.1's (the
// caller's), which the error handlers put in its place (reword).
type overflowInfo struct {
	raw, msg string
	chunk    string
	line     int
	main     bool // on the main thread: the state's call infos grow
}

// errStackOverflow is what the VM raises when Done finds the depth past
// Lua's call infos.
var errStackOverflow = errors.New("stack overflow")

// stackOverflow records an overflow found at the first instruction of the
// frame th just entered, and arms Err to report it. Lua 5.1 raises it in
// the caller, before the callee exists: the position is the caller's, none
// when the caller is a Go (C) function.
func (s *stepContext) stackOverflow(th *lua.LState) {
	o := overflowInfo{msg: "stack overflow", main: th == s.g.MainThread}
	if dbg, ok := th.GetStack(0); ok {
		if _, err := th.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" {
			o.raw = fmt.Sprintf("%s:%d: stack overflow", dbg.Source, dbg.CurrentLine)
		}
	}
	if dbg, ok := th.GetStack(1); ok {
		if _, err := th.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine > 0 {
			o.chunk, o.line = dbg.Source, dbg.CurrentLine
			o.msg = fmt.Sprintf("%s:%d: stack overflow", dbg.Source, dbg.CurrentLine)
		}
	}
	s.overflow = o
	s.pendingErr = errStackOverflow
}
