package verify

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Runtime error wording. gopher-lua's VM words index, call and arithmetic
// errors its own way and never names the operand; Lua 5.1 (and so Redis)
// says "attempt to index local 'x' (a nil value)". At error time, while the
// failing frame is still on the stack, the engine reads the failing
// instruction and names its operand as Lua 5.1 does (operands.go), then
// rewrites the message.

var (
	reIndex = lazy.Regexp(`(?s)^attempt to index a non-table object\((\w+)\) with key '(.*)'$`)
	reCall  = lazy.Regexp(`^attempt to call a non-function object$`)
	reArith = lazy.Regexp(`^cannot perform (\w+) operation between (\w+) and (\w+)$`)
	reCmp   = lazy.Regexp(`^attempt to compare (\w+) with (\w+)$`)
	reArg   = lazy.Regexp(`^bad argument #(\d+) to '([^']+)' \((.*)\)$`)
	rePos   = lazy.Regexp(`(?s)^([^\n]*?:\d+: )(.*)$`)
)

var arithOps = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "pow": "^", "unm": "unm"}
}}

// reword rewrites a gopher-lua error message raised in the Lua frame at
// stack level (seen from the running Go function) into Lua 5.1's words. It
// returns the message and whether it is exact.
func (r *scriptRun) reword(L *lua.LState, msg string, level int) (string, bool) {
	if o := r.ctx.overflow; o.raw != "" && msg == o.raw {
		return o.msg, true
	}
	msg = luaMessage(msg)
	pos, body := "", msg
	if m := rePos.Get().FindStringSubmatch(msg); m != nil {
		pos, body = m[1], m[2]
	}
	if pos != "" && level >= 0 && msg != r.raised && r.goCaller(L, level) {
		// luaL_error names its caller's line; when the caller is itself a
		// Go (C) function, as in pcall(setmetatable, t, {}), Lua 5.1 names
		// no position at all.
		return r.reword(L, body, level)
	}
	// A VM error raised while a Go (C) function runs, say a comparison
	// inside table.sort, has no position in Lua 5.1 and names no variable.
	if pos != "" && !strings.HasPrefix(body, "attempt to concatenate") {
		if dbg, ok := L.GetStack(level); ok {
			if _, err := L.GetInfo("S", dbg, lua.LNil); err == nil && dbg.What == "G" {
				if reCmp.Get().MatchString(body) || reIndex.Get().MatchString(body) || reCall.Get().MatchString(body) || reArith.Get().MatchString(body) {
					out, exact := r.reword(L, body, level)
					return out, exact
				}
			}
		}
	}
	if m := reArg.Get().FindStringSubmatch(body); m != nil {
		// Lua 5.1 does not count self when the function was called as a
		// method: ('x'):rep() is "bad argument #1 to 'rep'".
		if r.calledAsMethod(L, level+1) {
			n, _ := strconv.Atoi(m[1])
			if n == 1 {
				return pos + fmt.Sprintf("calling '%s' on bad self (%s)", m[2], m[3]), true
			}
			return pos + fmt.Sprintf("bad argument #%d to '%s' (%s)", n-1, m[2], m[3]), true
		}
		return msg, true
	}
	if m := reCmp.Get().FindStringSubmatch(body); m != nil {
		if m[1] == m[2] {
			return pos + fmt.Sprintf("attempt to compare two %s values", m[1]), true
		}
		return msg, true
	}
	im, cm, am := reIndex.Get().FindStringSubmatch(body), reCall.Get().FindStringSubmatch(body), reArith.Get().FindStringSubmatch(body)
	if body == "__unm undefined" {
		am = []string{body, "unm", "", ""}
	}
	if im == nil && cm == nil && am == nil && body != "__len undefined" {
		return msg, !strings.Contains(body, "non-table object") && !strings.Contains(body, "non-function object") && !strings.HasPrefix(body, "cannot perform")
	}
	if level >= 0 {
		// The failing instruction names the operand, as in Lua 5.1.
		if out, ok := r.instructionError(L, level, body, im, cm, am); ok {
			return pos + out, true
		}
	}
	return r.unnamedError(L, level, pos, body, im, cm, am)
}

// unnamedError words a type error whose operand Lua 5.1 would not name
// because a Go (C) function raised it, as in a comparison inside
// table.sort; exact reports that it is such an error and its type is
// known. Otherwise (the failing instruction could not be read) the text
// names nothing and is approximated.
func (r *scriptRun) unnamedError(L *lua.LState, level int, pos, body string, im, cm, am []string) (string, bool) {
	exact := false
	if dbg, ok := L.GetStack(level); ok && level >= 0 {
		if _, err := L.GetInfo("S", dbg, lua.LNil); err == nil && dbg.What == "G" {
			exact = true
		}
	}
	switch {
	case im != nil:
		return pos + typeError("index", "", im[1]), exact
	case am != nil && am[1] != "unm":
		// luaG_aritherror blames the first operand unless it converted
		// to a number (gopher-lua names the converted type)
		typ := am[2]
		if typ == "number" {
			typ = am[3]
		}
		return pos + typeError("perform arithmetic on", "", typ), exact
	case am != nil:
		return pos + typeError("perform arithmetic on", "", "nil"), false
	case cm != nil:
		return pos + typeError("call", "", "nil"), false
	}
	return pos + "attempt to get length of a nil value", false
}

func typeError(op, info, typ string) string {
	if info == "" {
		return fmt.Sprintf("attempt to %s a %s value", op, typ)
	}
	return fmt.Sprintf("attempt to %s %s (a %s value)", op, info, typ)
}

// calledAsMethod reports whether the Lua frame at level called the running
// Go function as a method (obj:name()), as Lua 5.1's getfuncname sees it.
func (r *scriptRun) calledAsMethod(L *lua.LState, level int) bool {
	dbg, ok := L.GetStack(level)
	if !ok {
		return false
	}
	// Lua 5.1 (luaL_argerror): the caller's call instruction calls a
	// register that getobjname names a method.
	if fn, pc, ok := framePC(dbg); ok {
		switch i := fn.Proto.Code[pc]; instOp(i) {
		case lua.OP_CALL, lua.OP_TAILCALL, lua.OP_TFORLOOP:
			if locals, ok := r.localsOf(fn.Proto); ok {
				return strings.HasPrefix(objName(fn.Proto, locals, pc, instA(i)), "method ")
			}
		}
	}
	return false
}

// goCaller reports whether the frame at level and its caller are both Go
// functions.
func (r *scriptRun) goCaller(L *lua.LState, level int) bool {
	for _, l := range []int{level, level + 1} {
		dbg, ok := L.GetStack(l)
		if !ok {
			return false
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil || dbg.What != "G" {
			return false
		}
	}
	return true
}
