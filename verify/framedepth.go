package verify

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// frameDepth reads how many call frames a gopher-lua thread holds, in
// constant time: the step counter checks it before every VM instruction
// (stepContext.Done) to raise Lua 5.1's "stack overflow" exactly where
// Lua's call infos run out. gopher-lua does not export the depth, so it is
// read from the frame stack's fields, found by name once; if the layout is
// not the expected one (another gopher-lua version), frameDepthOK is false
// and the depth limit falls back to gopher-lua's own frame limit.
// The layout is measured on first use (frameDepthOK), not at start-up: a
// process that runs no script does not build a Lua state for it.
var frameDepthOK = lazy.Value[bool]{New: measureFrameDepth}

var (
	stackFieldOff, segIdxOff, segSpOff uintptr
	// stackItab is the type word of the frame stack interface the offsets
	// were read from: a thread whose stack has another concrete type
	// (built with other options) is not read.
	stackItab unsafe.Pointer
)

func measureFrameDepth() bool {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, MinimizeStackMemory: true, CallStackSize: 16})
	defer L.Close()
	f, ok := reflect.TypeOf(*L).FieldByName("stack")
	if !ok || f.Type.Kind() != reflect.Interface {
		return false
	}
	v := reflect.ValueOf(L).Elem().FieldByIndex(f.Index).Elem()
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	st := v.Elem().Type()
	idx, ok1 := st.FieldByName("segIdx")
	sp, ok2 := st.FieldByName("segSp")
	if !ok1 || !ok2 || idx.Type.Kind() != reflect.Uint16 || sp.Type.Kind() != reflect.Uint8 {
		return false
	}
	stackFieldOff, segIdxOff, segSpOff = f.Offset, idx.Offset, sp.Offset
	stackItab = (*[2]unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), stackFieldOff))[0]
	// Check against a known depth: the frame stack is empty now.
	if frameDepthOf(L) != 0 {
		return false
	}
	return true
}

// frameDepthOf is the number of frames on L's stack (frameDepthOK only);
// 0 for a stack of another type than the one measured.
func frameDepthOf(L *lua.LState) int {
	iface := (*[2]unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), stackFieldOff))
	if iface[0] != stackItab {
		return 0
	}
	p := iface[1]
	idx := *(*uint16)(unsafe.Add(p, segIdxOff))
	sp := *(*uint8)(unsafe.Add(p, segSpOff))
	return int(idx)*lua.FramesPerSegment + int(sp)
}
