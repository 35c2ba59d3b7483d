package verify

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Errors of a run: their messages and positions as Lua 5.1 gives them, and
// the chunks loadstring compiles.

// luaToString is lua_tostring for a string or number: numbers as %.14g.
func luaToString(v lua.LValue) string {
	if n, ok := v.(lua.LNumber); ok {
		return luaNumber(float64(n))
	}
	return lua.LVAsString(v)
}

var badArgRE = lazy.Regexp(`bad argument #(\d+) to ([^ ('"]+) \(`)

// luaMessage turns a gopher-lua error text into Lua 5.1's wording where
// they differ mechanically.
func luaMessage(s string) string {
	if strings.Contains(s, "bad argument #") {
		s = strings.Replace(s, " to (anonymous) (", " to '?' (", 1)
		s = badArgRE.Get().ReplaceAllString(s, "bad argument #$1 to '$2' (")
	}
	return s
}

// loadChunk compiles s for loadstring/load: the function, or nil and the
// error message.
func (r *scriptRun) loadChunk(L *lua.LState, s, chunkname string) int {
	c := compileCached([]byte(s), chunkname)
	if err := c.err; err != nil {
		if _, exact := err.(*syntaxError); !exact {
			r.warn("loadstring compile error text is approximated: %s", err)
		}
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	r.sources[chunkID(chunkname)] = chunkname
	r.chunks[chunkID(chunkname)] = c
	L.Push(r.instantiate(L, c.proto))
	return 1
}

// instantiate makes the function of a compiled chunk, whose globals are the
// readonly _G.
func (r *scriptRun) instantiate(L *lua.LState, proto *lua.FunctionProto) *lua.LFunction {
	fn := L.NewFunctionFromProto(proto)
	fn.Env = r.globals
	return fn
}

// rethrow re-raises an error pcall must not swallow: a RunError, the run's
// step budget or deadline, or a value stack past the offline limit.
func (r *scriptRun) rethrow(L *lua.LState, err error) {
	if r.runErr == nil {
		if isStackOverflow(err) {
			r.runErr = &RunError{Code: CodeStackOverflow, Msg: "stack overflow: the Lua value stack exceeded the offline limit"}
		}
	}
	if r.aborting() {
		L.Error(errorObject(err), 0)
	}
}

// isStackOverflow reports gopher-lua's value stack overflow (Lua 5.1 has
// no such limit short of memory).
func isStackOverflow(err error) bool {
	return strings.Contains(err.Error(), "registry overflow")
}

// errorObject is the Lua value an error carries.
func errorObject(err error) lua.LValue {
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		if s, ok := ae.Object.(lua.LString); ok {
			return lua.LString(luaMessage(string(s)))
		}
		return ae.Object
	}
	return lua.LString(err.Error())
}

// luaWhere is luaL_where: "chunk:line: " for a Lua function at level (1 is
// the function calling the Go function), "" for a Go function or none.
func luaWhere(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
		return ""
	}
	if dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}

// luaPos is the chunk and line of the Lua function at level, as luaWhere
// prints them; "" and 0 for a Go function or none.
func luaPos(L *lua.LState, level int) (string, int) {
	dbg, ok := L.GetStack(level)
	if !ok {
		return "", 0
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return "", 0
	}
	return dbg.Source, dbg.CurrentLine
}

// rewordHandler is the message handler of pcall: it words gopher-lua's
// runtime errors like Lua 5.1 while the failing frame is still there.
func (r *scriptRun) rewordHandler(L *lua.LState) int {
	obj := L.Get(1)
	if s, ok := obj.(lua.LString); ok {
		msg, exact := r.reword(L, string(s), 1)
		if !exact {
			r.warn("error text approximated (gopher-lua wording): %s", msg)
		}
		obj = lua.LString(msg)
	}
	L.Push(obj)
	return 1
}
