package verify

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's C-call limit. Lua counts every call made through luaD_call
// (L->nCcalls): a metamethod the VM calls (__index, __add, ... functions),
// a function a C function calls (string.gsub's and table.sort's callbacks,
// tostring's __tostring, pcall's function), a generic for's iterator; a Lua
// function calling another (OP_CALL, __call included) does not count. At
// LUAI_MAXCCALLS (200) the call fails with "C stack overflow", at the
// caller's position when the caller is Lua code. gopher-lua counts nothing
// of the kind (its frames run out after about 16000 metamethod levels), so
// the step check (stepContext.Done) keeps, per frame depth of the running
// thread, the number of such calls below it: a frame is one when its caller
// is a Go function or a Lua function whose current instruction is not a
// call. The frames are read through framepc.go's mirror and the thread's
// current frame (currentFrameOff), only when the depth grew since the last
// instruction.

// currentFrameOff is the offset of LState.currentFrame, valid when
// currentFrameOK: the field is a pointer to the frame type framepc.go
// mirrors. Both offsets (this and vmarith.go's regOff) are read by
// reflection on first use, not at start (every process, `scriptctl
// version` included, would pay it: docs/performance.md).
var (
	layoutOnce              sync.Once
	currentFrameOff, regOff uintptr
	frameOffOK, regOffOK    bool
)

func readLayout() {
	currentFrameOff, frameOffOK = frameOffset()
	regOff, regOffOK = regOffset()
}

func currentFrameOK() bool {
	layoutOnce.Do(readLayout)
	return frameOffOK
}

func frameOffset() (uintptr, bool) {
	if !frameMirrorOK.Get() {
		return 0, false
	}
	f, ok := reflect.TypeFor[lua.LState]().FieldByName("currentFrame")
	d, ok2 := reflect.TypeFor[lua.Debug]().FieldByName("frame")
	if !ok || !ok2 || f.Type != d.Type {
		return 0, false
	}
	return f.Offset, true
}

func currentFrameOf(L *lua.LState) *gopherFrame {
	return *(**gopherFrame)(unsafe.Add(unsafe.Pointer(L), currentFrameOff))
}

// errCStackOverflow is what the VM raises when Done finds the C calls at
// Lua's limit: Lua 5.1's exact text, capital C included.
//
//lint:ignore ST1005 the message is Lua's, byte for byte
var errCStackOverflow = errors.New("C stack overflow")

// cCall reports whether frame f was entered the way Lua 5.1 counts as a C
// call (see above); a coroutine's first frame counts as two, as measured
// on the servers (ccall-coroutine-index).
func cCall(f *gopherFrame, coroutine bool) int {
	if f.Fn != nil && f.Fn.IsG && f.Fn.Env == handlerEnv {
		return 0
	}
	p := f.Parent
	switch {
	case p == nil:
		if coroutine {
			return 2 // lua_resume's, and the resumed body's (measured live)
		}
		return 0
	case p.Fn == nil || p.Fn.IsG || p.Fn.Proto == nil:
		return 1
	}
	if pc := p.Pc - 1; pc >= 0 && pc < len(p.Fn.Proto.Code) {
		if op := instOp(p.Fn.Proto.Code[pc]); op == lua.OP_CALL || op == lua.OP_TAILCALL {
			return 0
		}
	}
	return 1
}

// cCallsAt returns the C calls under the top frame of th, which holds
// depth frames, updating the per-depth record.
func (s *stepContext) cCallsAt(th *lua.LState, depth int) int {
	if th != s.cThread {
		s.cThread, s.cKnown = th, 0
	}
	if depth < s.cKnown {
		s.cKnown = depth
	}
	if depth > s.cKnown {
		if s.cDepth == nil {
			s.cDepth, s.cFrames = make([]int, 0, 64), make([]*gopherFrame, 0, 16)
		}
		for len(s.cDepth) <= depth {
			s.cDepth = append(s.cDepth, 0)
		}
		s.cFrames = s.cFrames[:0]
		f := currentFrameOf(th)
		for k := depth; k > s.cKnown && f != nil; k-- {
			s.cFrames = append(s.cFrames, f)
			f = f.Parent
		}
		co := th != s.g.MainThread
		for i := len(s.cFrames) - 1; i >= 0; i-- {
			k := depth - i
			s.cDepth[k] = s.cDepth[k-1] + cCall(s.cFrames[i], co)
		}
		s.cKnown = depth
	}
	return s.cDepth[depth]
}

// cStackOverflow records Lua 5.1's "C stack overflow" of the call that
// entered th's top frame: at its caller's position when the caller is Lua.
func (s *stepContext) cStackOverflow(th *lua.LState) {
	o := overflowInfo{msg: "C stack overflow"}
	if dbg, ok := th.GetStack(0); ok {
		if _, err := th.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" {
			o.raw = fmt.Sprintf("%s:%d: C stack overflow", dbg.Source, dbg.CurrentLine)
		}
	}
	if dbg, ok := th.GetStack(1); ok {
		if _, err := th.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What != "G" && dbg.CurrentLine > 0 {
			o.chunk, o.line = dbg.Source, dbg.CurrentLine
			o.msg = fmt.Sprintf("%s:%d: C stack overflow", dbg.Source, dbg.CurrentLine)
		}
	}
	s.overflow = o
	s.pendingErr = errCStackOverflow
}
