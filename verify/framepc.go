package verify

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// The failing instruction. Lua 5.1 names the operand of a runtime error
// ("attempt to index local 'x'") from the instruction that failed; gopher-
// lua keeps that instruction's position in the frame (callFrame.Pc, one past
// the instruction being executed) but exports neither the frame nor its
// position. gopherDebug and gopherFrame mirror gopher-lua 1.1.2's Debug and
// callFrame; frameMirrorOK checks once that the mirrors match the library's
// layout. When they do not (another gopher-lua), the engine cannot name
// operands and says so with a warning (errwording.go).

// gopherDebug mirrors lua.Debug.
type gopherDebug struct {
	frame           *gopherFrame
	Name            string
	What            string
	Source          string
	CurrentLine     int
	NUpvalues       int
	LineDefined     int
	LastLineDefined int
}

// gopherFrame mirrors gopher-lua's callFrame.
type gopherFrame struct {
	Idx        int
	Fn         *lua.LFunction
	Parent     *gopherFrame
	Pc         int
	Base       int
	LocalBase  int
	ReturnBase int
	NArgs      int
	NRet       int
	TailCall   int
}

// sameLayout reports whether struct types a and b have the same fields
// (names, offsets and, where the field's type is not a mirror, types).
func sameLayout(a, b reflect.Type, mirrored map[string]reflect.Type) bool {
	if a.Kind() != reflect.Struct || b.Kind() != reflect.Struct || a.Size() != b.Size() || a.NumField() != b.NumField() {
		return false
	}
	for i := 0; i < a.NumField(); i++ {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Offset != fb.Offset || fa.Type.Size() != fb.Type.Size() {
			return false
		}
		if m, ok := mirrored[fa.Name]; ok {
			// a pointer to the library's own (unexported) struct, mirrored
			if fa.Type.Kind() != reflect.Pointer || fb.Type != m {
				return false
			}
			continue
		}
		if fa.Type != fb.Type {
			return false
		}
	}
	return true
}

var frameMirrorOK = lazy.Value[bool]{New: func() bool {
	dbg, mine := reflect.TypeFor[lua.Debug](), reflect.TypeFor[gopherDebug]()
	f, ok := dbg.FieldByName("frame")
	if !ok || f.Type.Kind() != reflect.Pointer {
		return false
	}
	frame := f.Type.Elem()
	if !sameLayout(frame, reflect.TypeFor[gopherFrame](), map[string]reflect.Type{"Parent": reflect.TypeFor[*gopherFrame]()}) {
		return false
	}
	if p, _ := frame.FieldByName("Parent"); p.Type != f.Type {
		return false
	}
	return sameLayout(dbg, mine, map[string]reflect.Type{"frame": reflect.TypeFor[*gopherFrame]()})
}}

// framePC returns the function a stack level runs and, for a Lua function,
// the index of the instruction it executes (the failing one, or the call
// of the function above it). ok is false for a Go function, an unknown
// level or an unexpected gopher-lua layout.
func framePC(dbg *lua.Debug) (fn *lua.LFunction, pc int, ok bool) {
	if !frameMirrorOK.Get() || dbg == nil {
		return nil, 0, false
	}
	f := (*gopherDebug)(unsafe.Pointer(dbg)).frame
	if f == nil || f.Fn == nil || f.Fn.IsG || f.Fn.Proto == nil {
		return nil, 0, false
	}
	pc = f.Pc - 1
	if pc < 0 || pc >= len(f.Fn.Proto.Code) {
		return nil, 0, false
	}
	return f.Fn, pc, true
}
