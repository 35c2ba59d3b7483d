package verify

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Runtime error wording. gopher-lua's VM words index, call and arithmetic
// errors its own way and never names the operand; Lua 5.1 (and so Redis)
// says "attempt to index local 'x' (a nil value)". At error time, while the
// failing frame is still on the stack, the engine finds the failing operand
// among the sites the compiler recorded on the failing line, evaluates the
// candidates (locals, upvalues, globals, constant fields) and rewrites the
// message. When it cannot tell which operand failed, the message keeps Lua
// 5.1's shape without the name and the run gets a warning.

type siteKind int

const (
	siteIndex siteKind = iota
	siteCall
	siteMethod
	siteArith
	siteLen
)

// site is one operation on a line that can raise a type error.
type site struct {
	kind   siteKind
	key    string  // index key, method name or arithmetic operator
	obj    operand // indexed object, callee, method receiver, left operand
	obj2   operand // right operand of arithmetic
	fnLine int     // line of the enclosing function's definition (0: chunk)
}

// operand is an expression as Lua 5.1 names it, and how to evaluate it.
type operand struct {
	info       string // "local 'x'", "field 'y'", ... or ""
	ok         bool   // root/name/fields evaluate it
	root       string // "local", "upvalue" or "global"
	name       string
	fields     []string
	constNum   bool
	constStr   string
	isConstStr bool
}

var (
	reIndex    = lazy.Regexp(`^attempt to index a non-table object\((\w+)\) with key '(.*)'$`)
	reCall     = lazy.Regexp(`^attempt to call a non-function object$`)
	reArith    = lazy.Regexp(`^cannot perform (\w+) operation between (\w+) and (\w+)$`)
	reCmp      = lazy.Regexp(`^attempt to compare (\w+) with (\w+)$`)
	reArg      = lazy.Regexp(`^bad argument #(\d+) to '([^']+)' \((.*)\)$`)
	rePos      = lazy.Regexp(`^([^\n]*?:\d+: )(.*)$`)
	rePosParts = lazy.Regexp(`^(.*):(\d+): $`)
)

var arithOps = map[string]string{"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "pow": "^", "unm": "unm"}

// reword rewrites a gopher-lua error message raised in the Lua frame at
// stack level (seen from the running Go function) into Lua 5.1's words. It
// returns the message and whether it is exact.
func (r *scriptRun) reword(L *lua.LState, msg string, level int) (string, bool) {
	if o := r.ctx.overflow; o.raw != "" && msg == o.raw {
		return o.msg, true
	}
	msg = luaMessage(msg)
	pos, body := "", msg
	if m := rePos().FindStringSubmatch(msg); m != nil {
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
				if reCmp().MatchString(body) || reIndex().MatchString(body) || reCall().MatchString(body) || reArith().MatchString(body) {
					out, exact := r.reword(L, body, level)
					return out, exact
				}
			}
		}
	}
	if m := reArg().FindStringSubmatch(body); m != nil {
		// Lua 5.1 does not count self when the function was called as a
		// method: ('x'):rep() is "bad argument #1 to 'rep'".
		if r.calledAsMethod(L, level+1, m[2]) {
			n, _ := strconv.Atoi(m[1])
			if n == 1 {
				return pos + fmt.Sprintf("calling '%s' on bad self (%s)", m[2], m[3]), true
			}
			return pos + fmt.Sprintf("bad argument #%d to '%s' (%s)", n-1, m[2], m[3]), true
		}
		return msg, true
	}
	if m := reCmp().FindStringSubmatch(body); m != nil {
		if m[1] == m[2] {
			return pos + fmt.Sprintf("attempt to compare two %s values", m[1]), true
		}
		return msg, true
	}
	im, cm, am := reIndex().FindStringSubmatch(body), reCall().FindStringSubmatch(body), reArith().FindStringSubmatch(body)
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
	var dbg *lua.Debug
	ok := false
	if level >= 0 {
		dbg, ok = L.GetStack(level)
	}
	var sites []site
	if level < 0 {
		// No stack (the error left a coroutine): the position names the
		// chunk and line; every operation on that line is a candidate.
		if m := rePosParts().FindStringSubmatch(pos); m != nil {
			line, _ := strconv.Atoi(m[2])
			sites = r.sitesAt(m[1], line)
		}
	}
	if ok {
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil {
			for _, s := range r.sitesAt(dbg.Source, dbg.CurrentLine) {
				if s.fnLine == dbg.LineDefined {
					sites = append(sites, s)
				}
			}
		}
	}
	ev := &evaluator{r: r, L: L, dbg: dbg, ok: ok}
	if body == "__len undefined" {
		var cands []site
		for _, s := range sites {
			if s.kind == siteLen {
				cands = append(cands, s)
			}
		}
		isBad := func(s site) bool {
			v, ok := ev.eval(s.obj)
			if !ok {
				return false
			}
			switch v.(type) {
			case *lua.LTable, lua.LString:
				return false
			}
			return true
		}
		if s, exact := pick(cands, isBad, ev, func(s site) bool { return s.obj.ok }); s != nil {
			typ := "nil"
			if v, ok := ev.eval(s.obj); ok {
				typ = luaTypeName(v)
			}
			return pos + typeError("get length of", s.obj.info, typ), exact
		}
		return pos + "attempt to get length of a nil value", false
	}
	switch {
	case im != nil:
		typ, key := im[1], im[2]
		var cands []site
		for _, s := range sites {
			if s.kind == siteIndex && s.key == key {
				cands = append(cands, s)
			}
		}
		if s, exact := pick(cands, func(s site) bool { v, ok := ev.eval(s.obj); return ok && luaTypeName(v) == typ }, ev, func(s site) bool { return s.obj.ok }); s != nil {
			return pos + typeError("index", s.obj.info, typ), exact
		}
		return pos + typeError("index", "", typ), false
	case cm != nil:
		var cands []site
		for _, s := range sites {
			if s.kind == siteCall || s.kind == siteMethod {
				cands = append(cands, s)
			}
		}
		notCallable := func(s site) bool {
			v, ok := ev.callee(s)
			if !ok {
				return false
			}
			_, isFn := v.(*lua.LFunction)
			return !isFn && L.GetMetaField(v, "__call") == lua.LNil
		}
		s, exact := pick(cands, notCallable, ev, func(s site) bool { _, ok := ev.callee(s); return ok })
		if s == nil {
			return pos + typeError("call", "", "nil"), false
		}
		typ := "nil"
		if v, ok := ev.callee(*s); ok {
			typ = luaTypeName(v)
		}
		info := s.obj.info
		if s.kind == siteMethod {
			info = fmt.Sprintf("method '%s'", s.key)
		}
		return pos + typeError("call", info, typ), exact
	default:
		op, lt, rt := am[1], am[2], am[3]
		var cands []site
		for _, s := range sites {
			if s.kind == siteArith && s.key == arithOps[op] {
				cands = append(cands, s)
			}
		}
		// Lua blames the left operand unless it converts to a number.
		blame := func(s site) (operand, string) {
			if op == "unm" {
				if v, ok := ev.eval(s.obj); ok {
					return s.obj, luaTypeName(v)
				}
				return s.obj, lt
			}
			if lt != "number" && !(lt == "string" && leftConverts(ev, s)) {
				return s.obj, lt
			}
			return s.obj2, rt
		}
		match := func(s site) bool {
			o, typ := blame(s)
			v, ok := ev.eval(o)
			return ok && luaTypeName(v) == typ
		}
		if s, exact := pick(cands, match, ev, func(s site) bool { o, _ := blame(s); return o.ok }); s != nil {
			o, typ := blame(*s)
			return pos + typeError("perform arithmetic on", o.info, typ), exact
		}
		typ := lt
		if lt == "number" || lt == "" {
			typ = rt
		}
		if typ == "" {
			typ = "nil"
		}
		return pos + typeError("perform arithmetic on", "", typ), false
	}
}

func leftConverts(ev *evaluator, s site) bool {
	if s.obj.isConstStr {
		_, ok := lualib.ToNumber(lua.LString(s.obj.constStr))
		return ok
	}
	v, ok := ev.eval(s.obj)
	if !ok {
		return false
	}
	_, conv := lualib.ToNumber(v)
	return conv
}

// pick chooses the failing site: the only candidate, or the only one whose
// evaluation shows the failure. exact reports that the choice is certain.
func pick(cands []site, fails func(site) bool, _ *evaluator, evaluable func(site) bool) (*site, bool) {
	if len(cands) == 0 {
		return nil, false
	}
	var failing []site
	allEvaluable := true
	for _, s := range cands {
		if !evaluable(s) {
			allEvaluable = false
			continue
		}
		if fails(s) {
			failing = append(failing, s)
		}
	}
	switch {
	case len(failing) == 1 && allEvaluable:
		return &failing[0], true
	case len(failing) >= 1:
		return &failing[0], false
	case len(cands) == 1:
		return &cands[0], true
	}
	return nil, false
}

func typeError(op, info, typ string) string {
	if info == "" {
		return fmt.Sprintf("attempt to %s a %s value", op, typ)
	}
	return fmt.Sprintf("attempt to %s %s (a %s value)", op, info, typ)
}

// evaluator reads operands from the failing frame.
type evaluator struct {
	r   *scriptRun
	L   *lua.LState
	dbg *lua.Debug
	ok  bool
}

func (ev *evaluator) eval(o operand) (lua.LValue, bool) {
	// Without the failing frame (an error that left its coroutine) only
	// globals can be read.
	if !o.ok || (!ev.ok && o.root != "global") {
		return nil, false
	}
	var v lua.LValue
	switch o.root {
	case "local":
		reg := ev.localRegister(o.name)
		if reg == 0 {
			return nil, false
		}
		name, val := ev.L.GetLocal(ev.dbg, reg)
		if name == "" {
			return nil, false
		}
		v = val
	case "upvalue":
		fn, err := ev.L.GetInfo("f", ev.dbg, lua.LNil)
		f, isFn := fn.(*lua.LFunction)
		if err != nil || !isFn {
			return nil, false
		}
		found := false
		for n := 1; n <= len(f.Upvalues); n++ {
			if name, val := ev.L.GetUpvalue(f, n); name == o.name {
				v, found = val, true
				break
			}
		}
		if !found {
			return nil, false
		}
	case "global":
		v = ev.r.real(ev.r.globals).(*lua.LTable).RawGetString(o.name)
		if v == lua.LNil {
			if t, ok := ev.r.real(ev.r.globals).(*lua.LTable); ok {
				v = t.RawGetString(o.name)
			}
		}
	default:
		return nil, false
	}
	for _, f := range o.fields {
		t, ok := ev.r.real(v).(*lua.LTable)
		if !ok {
			return nil, false
		}
		v = t.RawGetString(f)
	}
	return v, true
}

// callee evaluates what a call site calls.
func (ev *evaluator) callee(s site) (lua.LValue, bool) {
	if s.kind == siteCall {
		return ev.eval(s.obj)
	}
	recv, ok := ev.eval(s.obj)
	if !ok {
		return nil, false
	}
	switch x := ev.r.real(recv).(type) {
	case *lua.LTable:
		return x.RawGetString(s.key), true
	case lua.LString:
		return ev.r.real(ev.r.real(ev.r.globals).(*lua.LTable).RawGetString("string")).(*lua.LTable).RawGetString(s.key), true
	}
	return nil, false
}

// localRegister finds the register (1-based) of the local called name that
// is active on the failing line, or 0. gopher-lua does not expose the
// failing instruction, so the line stands for it: the local active at the
// line's last instruction wins.
func (ev *evaluator) localRegister(name string) int {
	fn, err := ev.L.GetInfo("f", ev.dbg, lua.LNil)
	f, ok := fn.(*lua.LFunction)
	if err != nil || !ok || f.Proto == nil {
		return 0
	}
	p := f.Proto
	line := ev.dbg.CurrentLine
	best := 0
	for pc, l := range p.DbgSourcePositions {
		if l != line {
			continue
		}
		reg := 0
		for _, loc := range p.DbgLocals {
			if loc.StartPc <= pc && pc < loc.EndPc {
				reg++
				if loc.Name == name {
					best = reg
				}
			}
		}
	}
	return best
}

// sitesAt returns the error-wording sites of a chunk's line.
func (r *scriptRun) sitesAt(chunk string, line int) []site {
	if c := r.chunks[chunk]; c != nil {
		return c.lineSites()[line]
	}
	return nil
}

// calledAsMethod reports whether the Lua frame at level calls name only as
// a method (obj:name()) on its current line.
func (r *scriptRun) calledAsMethod(L *lua.LState, level int, name string) bool {
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
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
		return false
	}
	method := false
	for _, s := range r.sitesAt(dbg.Source, dbg.CurrentLine) {
		if s.fnLine != dbg.LineDefined {
			continue
		}
		switch {
		case s.kind == siteMethod && s.key == name:
			method = true
		case s.kind == siteCall && strings.HasSuffix(s.obj.info, "'"+name+"'"):
			return false
		}
	}
	return method
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
