package verify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Call depth, as Lua 5.1.5 in Redis limits it. Lua counts call infos per
// thread (growCI in ldo.c): a fresh one has room for 16384 (BASIC_CI_SIZE
// 8, doubled as needed). A call past the room doubles it; when the new
// size passes LUAI_MAXCALLS (20000) the call raises "stack overflow" at
// the caller's position, an ordinary error pcall catches, and the error
// handlers run in the doubled room (32768, or 40000). A call past that
// room, while the size is above LUAI_MAXCALLS, throws LUA_ERRERR: "error
// in error handling", no handler called. The pcall that catches the error
// (luaD_pcall's restore_stack_limit) shrinks the room to LUAI_MAXCALLS,
// where it stays for the thread's life: the next overflow comes at 20000.
// Redis 7.0.15, 8.0.2, Valkey 8.1.1 and 9.1.2 run f() + 1 recursion 16381
// levels deep inside pcall on a fresh state, 19997 after one overflow, in
// the same script or a later one (lua_errors.yaml:
// stack-overflow-depth-*, lua_limits.yaml: overflow-*): SCRIPT FLUSH
// makes a new EVAL state; the Functions state lives on, but for FUNCTION
// FLUSH on a target that builds it again (serverFacts.fnFlushNewState:
// Redis 7.4+, Valkey 9; targets.yaml: targets-function-flush-*). Lua's
// collector halves a little-used thread's call infos
// (checkstacksizes, fullGC): the engine does so for collectgarbage(), not
// for the cycles Lua runs on its own. Calls that cross into C
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
	callInfoGrown = 20000 // LUAI_MAXCALLS
	// callInfoMax is the most a thread can hold: twice LUAI_MAXCALLS,
	// while the handlers of an overflow at LUAI_MAXCALLS run.
	callInfoMax = 2 * callInfoGrown
	maxCCalls   = 200
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
	if m := reTraceTop.Get().FindStringSubmatch(trace); m != nil && m[1] != "[G]" && m[2] != "" {
		line, _ = strconv.Atoi(m[2])
		return m[1] + ":" + m[2] + ": stack overflow", m[1], line, true
	}
	return "stack overflow", "", 0, true
}

// overflowed records a stack overflow on the main thread when gopher-lua's
// own frame limit stands for Lua's (no frameDepthOK): the state's call
// infos grow to LUAI_MAXCALLS from the next run on (see callInfoFresh).
func (r *scriptRun) overflowed(L *lua.LState) {
	if L == L.G.MainThread && !frameDepthOK.Get() {
		r.grown = true
	}
}

// keepCallInfos keeps the main thread's room for call infos after a run
// (Redis's lua_pcall restores it on an error) for the state's next run.
func (r *scriptRun) keepCallInfos(L *lua.LState, perr error) {
	if perr != nil {
		r.restoreStackLimit(L)
	}
	if n := r.ctx.mainFrames; n != callInfoFresh || r.grown {
		r.callInfo, r.grown = min(n, callInfoGrown), true
	}
}

// keptCallInfos is the room for call infos a state built after r's must
// have (Engine.evalCallInfo).
func (r *scriptRun) keptCallInfos() int {
	if frameDepthOK.Get() {
		return r.callInfo
	}
	return callInfoGrown
}

// freshCallInfos gives r's state the room of a fresh one again, where the
// frames were sized for any room (frameDepthOK); false when it cannot.
func (r *scriptRun) freshCallInfos() bool {
	if !frameDepthOK.Get() {
		return false
	}
	r.callInfo, r.grown = callInfoFresh, false
	return true
}

// flushEvalState is SCRIPT FLUSH's new EVAL Lua state: what runs did to
// the old one (call infos an overflow grew, cjson's settings) is gone
// with it. The sandbox is restored as Engine.Reset does, or dropped and
// built again on first use.
func (e *Engine) flushEvalState() {
	e.evalCallInfo = 0
	r := e.evalRun
	if r == nil {
		return
	}
	if !r.sealed || r.broken || r.grown && !r.freshCallInfos() {
		r.L.Close()
		e.evalRun = nil
		return
	}
	r.reset()
}

// callInfos is the room for call infos thread th has now (size_ci).
func (s *stepContext) callInfos(th *lua.LState) int {
	if th == s.g.MainThread {
		return s.mainFrames
	}
	if n, ok := s.coFrames[th]; ok {
		return n
	}
	return callInfoFresh
}

func (s *stepContext) setCallInfos(th *lua.LState, n int) {
	if th == s.g.MainThread {
		s.mainFrames = n
		return
	}
	if s.coFrames == nil {
		s.coFrames = map[*lua.LState]int{}
	}
	s.coFrames[th] = n
}

// inUse is the number of call infos thread th holding depth frames uses:
// a coroutine's first call info is its base, which has no frame.
func inUse(s *stepContext, th *lua.LState, depth int) int {
	if th == s.g.MainThread {
		return depth
	}
	return depth + 1
}

// frameLimit is the most frames thread th may hold before its next call
// overflows.
func (s *stepContext) frameLimit(th *lua.LState) int {
	n := s.callInfos(th)
	if n > callInfoGrown && s.errHandling > 0 {
		// An xpcall handler of the overflow runs: Lua calls it where the
		// overflowing call would have gone, the engine above that frame
		// and a Go frame of its own.
		n += 2
	}
	if th == s.g.MainThread {
		return n
	}
	return n - 1
}

// callInfoOverflow is growCI on thread th, which just entered a frame past
// its room: the room doubles and, past LUAI_MAXCALLS, the call raises
// "stack overflow", or, when the room is already past LUAI_MAXCALLS (an
// overflow's handlers running), "error in error handling". It reports
// whether the call fails.
func (s *stepContext) callInfoOverflow(th *lua.LState) bool {
	n := s.callInfos(th)
	if n > callInfoGrown {
		s.errorInErrorHandling(th)
		return true
	}
	s.setCallInfos(th, 2*n)
	if 2*n <= callInfoGrown {
		return false // a room the collector shrank grows back silently
	}
	s.stackOverflow(th)
	return true
}

// fullGC is what collectgarbage("collect") does to the call infos (lgc.c
// checkstacksizes): each traversal of a thread halves its room when under
// a quarter of it is in use, the room is above 16 and not past
// LUAI_MAXCALLS. A full cycle traverses every thread once and the running
// one twice (propagation, then the atomic phase), so a grown room of 20000
// halved six times regrows to 19968 (lua_limits.yaml: overflow-after-gc).
// Lua's automatic, incremental cycles do the same at times the engine
// cannot know.
func (r *scriptRun) fullGC(L *lua.LState) {
	s := r.ctx
	if s == nil || s.g == nil || s.g != L.G {
		return
	}
	halve := func(th *lua.LState) {
		n := s.callInfos(th)
		used := inUse(s, th, frameDepthOf(th)) - 1
		if n <= callInfoGrown && 4*used < n && 16 < n {
			s.setCallInfos(th, n/2)
		}
	}
	halve(s.g.MainThread)
	for th := range s.coFrames {
		halve(th)
	}
	halve(L)
}

// restoreStackLimit is restore_stack_limit, run where a pcall (pcall,
// xpcall, Redis's own lua_pcall) returns an error on thread L: call infos
// grown past LUAI_MAXCALLS go back to LUAI_MAXCALLS when fewer are in use.
func (r *scriptRun) restoreStackLimit(L *lua.LState) {
	s := r.ctx
	if s == nil || s.g == nil || s.g != L.G {
		return
	}
	if s.callInfos(L) > callInfoGrown && inUse(s, L, frameDepthOf(L)) < callInfoGrown {
		s.setCallInfos(L, callInfoGrown)
	}
}

// errErrorHandling is what the VM raises for LUA_ERRERR.
var errErrorHandling = errors.New("error in error handling")

// errorInErrorHandling records Lua's LUA_ERRERR thrown in the frame th
// just entered: a message without a position, which no handler sees.
func (s *stepContext) errorInErrorHandling(th *lua.LState) {
	o := overflowInfo{msg: "error in error handling", errErr: true}
	if dbg, ok := th.GetStack(0); ok {
		if _, err := th.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" {
			o.raw = fmt.Sprintf("%s:%d: error in error handling", dbg.Source, dbg.CurrentLine)
		}
	}
	s.overflow = o
	s.pendingErr = errErrorHandling
}

// isErrorInErrorHandling reports whether obj is the LUA_ERRERR the step
// counter raised last, as gopher-lua worded it or as Lua does.
func (r *scriptRun) isErrorInErrorHandling(obj lua.LValue) bool {
	s, ok := obj.(lua.LString)
	o := r.ctx.overflow
	return ok && o.errErr && (string(s) == o.raw || string(s) == o.msg)
}

// reraised notes that error() raises msg again: when it is the text of
// the last overflow, caught and raised anew, Redis's handler names the
// line of that error() call, not the overflow's.
func (r *scriptRun) reraised(msg string) {
	if r.ctx != nil && r.ctx.overflow.raw != "" && msg == r.ctx.overflow.msg {
		r.ctx.overflow.line = 0
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
	if currentFrameOK() {
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
// handler calls the handler again where that error happened, one C call
// deeper (luaD_call), and the innermost answer is xpcall's. The C calls
// past LUAI_MAXCCALLS + LUAI_MAXCCALLS>>3 throw LUA_ERRERR ("error in
// error handling", stepContext.Done), which no handler sees.
func (r *scriptRun) xpcallHandler(L *lua.LState, h, obj lua.LValue) lua.LValue {
	if s, ok := obj.(lua.LString); ok {
		if r.ctx != nil && r.isErrorInErrorHandling(obj) {
			return lua.LString("error in error handling")
		}
		msg, exact := r.reword(L, string(s), 1)
		if !exact {
			r.warn("error text approximated (gopher-lua wording): %s", msg)
		}
		obj = lua.LString(msg)
	}
	if _, ok := h.(*lua.LFunction); !ok || r.ctx == nil || r.ctx.errHandling >= errErrDepth {
		// luaG_errormsg: a handler that is not a function is LUA_ERRERR
		return lua.LString("error in error handling")
	}
	r.ctx.errHandling++
	defer func() { r.ctx.errHandling-- }()
	L.Push(h)
	L.Push(obj)
	err := L.PCall(1, 1, r.xpcallFrame(L, h))
	if err == nil {
		v := L.Get(-1)
		L.Pop(1)
		return v
	}
	if _, _, _, ok := callStackOverflow(err); ok {
		return lua.LString("error in error handling")
	}
	r.rethrow(L, err)
	return errorObject(err)
}

// handlerEnv marks the Go functions through which gopher-lua calls an
// xpcall handler (xpcallFrame): Lua calls the handler itself from
// luaG_errormsg, so such a frame is no C call of its own (cCall).
var handlerEnv = &lua.LTable{}

// xpcallFrame returns the Go function gopher-lua's PCall calls on an error
// under xpcall with handler h.
func (r *scriptRun) xpcallFrame(L *lua.LState, h lua.LValue) *lua.LFunction {
	fn := L.NewFunction(func(L *lua.LState) int {
		L.Push(r.xpcallHandler(L, h, L.Get(1)))
		return 1
	})
	fn.Env = handlerEnv
	return fn
}

// overflowInfo is the last stack overflow of a run: the text gopher-lua
// raises (the callee's position and "stack overflow") and Lua 5.1's (the
// caller's), which the error handlers put in its place (reword).
type overflowInfo struct {
	raw, msg string
	chunk    string
	line     int
	errErr   bool // LUA_ERRERR: the handlers are not called
}

// errStackOverflow is what the VM raises when Done finds the depth past
// Lua's call infos.
var errStackOverflow = errors.New("stack overflow")

// stackOverflow records an overflow found at the first instruction of the
// frame th just entered, and arms Err to report it. Lua 5.1 raises it in
// the caller, before the callee exists: the position is the caller's, none
// when the caller is a Go (C) function.
func (s *stepContext) stackOverflow(th *lua.LState) {
	o := overflowInfo{msg: "stack overflow"}
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

// registryGrowStep is how much the Lua value stack grows past what a call
// needs. gopher-lua copies the whole stack at each growth, so a step of a
// few slots makes deep recursion quadratic: a call through __call, which
// inserts the table among the arguments, grows it at nearly every level
// (BenchmarkCallMetamethodRecursion).
const registryGrowStep = 1 << 12
