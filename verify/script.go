package verify

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Script flags (shebang "#!lua flags=..." or register_function's flags).
var scriptFlags = []string{"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}

// parseShebang is evalExtractShebangFlags: the flags of a "#!lua" first line
// and the length of that line (its newline excluded), or the error text
// Redis replies with (after "ERR ").
//
// On Valkey 8.1 (scriptingEngines) the engine is looked up by name,
// case-insensitively, after the options are checked.
func parseShebang(body []byte, t *serverFacts) (flags []string, n int, errText string) {
	if !bytes.HasPrefix(body, []byte("#!")) {
		return nil, 0, ""
	}
	end := bytes.IndexByte(body, '\n')
	if end < 0 {
		return nil, 0, "Invalid script shebang"
	}
	parts := strings.Fields(string(body[:end]))
	if len(parts) == 0 {
		return nil, 0, "Invalid engine in script shebang"
	}
	if parts[0] != "#!lua" && !t.scriptingEngines {
		return nil, 0, "Unexpected engine in script shebang: " + parts[0]
	}
	flags = []string{}
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return nil, 0, "Unknown lua shebang option: " + p
		}
		if v == "" {
			continue
		}
		for _, f := range strings.Split(v, ",") {
			if !isScriptFlag(f) {
				return nil, 0, "Unexpected flag in script shebang: " + f
			}
			flags = append(flags, f)
		}
	}
	if engine := parts[0][2:]; t.scriptingEngines && !strings.EqualFold(engine, "lua") {
		return nil, 0, "Could not find scripting engine '" + engine + "'"
	}
	return flags, end, ""
}

func isScriptFlag(f string) bool {
	for _, x := range scriptFlags {
		if x == f {
			return true
		}
	}
	return false
}

func hasFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

func (e *Engine) eval(ctx context.Context, src []byte, keys, args []string, ro bool) (Reply, error) {
	sha := scriptSHA(src)
	if _, ok := e.sources[sha]; !ok {
		if len(e.sources) >= maxCachedScripts {
			clear(e.sources)
		}
		e.sources[sha] = append([]byte(nil), src...)
	}
	if len(keys) > 0 {
		if r, bad := e.crossSlot(keys); bad {
			return r, nil
		}
	}
	flags, shebangLen, errText := parseShebang(src, e.t)
	if errText != "" {
		return ErrorReply("ERR " + errText), nil
	}
	c := compileCached(src[shebangLen:], "@user_script")
	if c.err != nil {
		e.noteCompileError(c.err)
		return ErrorReply(sanitize("ERR Error compiling script (new function): " + c.err.Error())), nil
	}
	if hasFlag(flags, "no-cluster") && e.cluster() {
		return ErrorReply(errNoCluster), nil
	}
	if flags != nil && !hasFlag(flags, "no-writes") && ro {
		return ErrorReply("ERR Can not execute a script with write flag using *_ro command."), nil
	}
	runCtx, cancel := e.runContext(ctx, e.steps)
	defer cancel()
	// One sandbox serves every EVAL of the engine, like Redis's single Lua
	// state: its globals are readonly, so a script cannot leave anything
	// behind but garbage. It is rebuilt after a run that could not be
	// judged.
	r := e.evalRun
	if r == nil {
		r = &scriptRun{e: e, ctx: runCtx, callInfo: e.evalCallInfo}
		r.newState()
		r.sealUnlessOnce()
		e.evalRun = r
	}
	r.ctx, r.name, r.runErr = runCtx, sha, nil
	r.readOnly = ro || hasFlag(flags, "no-writes")
	r.setKeys(keys)
	r.startRun(keys, flags == nil || hasFlag(flags, "allow-cross-slot-keys"))
	clear(r.chunks)
	r.chunks["user_script"] = c
	L := r.L
	G := L.G.Global
	G.RawSetString("KEYS", stringArray(L, keys))
	G.RawSetString("ARGV", stringArray(L, args))
	fn := r.instantiate(L, c.proto)
	rep, err := r.call(fn)
	if r.grown {
		e.evalCallInfo = r.keptCallInfos()
	}
	if err != nil || (r.grown && r.callInfo < e.evalCallInfo) {
		// A stopped run, or the first stack overflow where gopher-lua's
		// own frame limit stands for Lua's: Lua's state then keeps room
		// for LUAI_MAXCALLS call infos, so the next run gets a state
		// built with that room.
		r.L.Close()
		e.evalRun = nil
	}
	return rep, err
}

func (r *scriptRun) setKeys(keys []string) {
	r.keys = make(map[string]bool, len(keys))
	for _, k := range keys {
		r.keys[k] = true
	}
}

func stringArray(L *lua.LState, ss []string) *lua.LTable {
	t := L.CreateTable(len(ss), 0)
	for i, s := range ss {
		t.RawSetInt(i+1, lua.LString(s))
	}
	return t
}

// call runs fn with args under the run's deadline and converts the outcome
// into the reply Redis sends, or a RunError.
func (r *scriptRun) call(fn *lua.LFunction, args ...lua.LValue) (rep Reply, err error) {
	L := r.L
	r.resp3 = false // every run starts in RESP2, as scriptPrepareForRun sets
	L.SetContext(r.ctx)
	defer L.RemoveContext()
	// A SELECT inside the script does not change the caller's database.
	defer r.e.srv.Select(r.e.srv.SelectedDB())
	top := L.GetTop()
	defer L.SetTop(top)
	clear(r.ccalls)
	r.raised = ""
	if frameDepthOK.Get() {
		r.ctx.g, r.ctx.mainFrames = L.G, r.callInfo
		if r.onThread == nil {
			r.onThread = r.hookCoroutine // made once: a method value allocates
		}
		r.ctx.onThread = r.onThread
	}
	if r.ctx.cover != nil {
		r.ctx.coverG = L.G
	}
	r.coWorded = ""
	// Redis calls the function from C: a Go frame under it makes
	// gopher-lua's frames count like Lua's call infos (overflow.go).
	L.Push(r.base)
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	perr := L.PCall(len(args)+1, 1, L.NewFunction(r.errorHandler))
	if frameDepthOK.Get() {
		r.keepCallInfos(L, perr)
	}
	if msg, chunk, line, ok := callStackOverflow(perr); ok && r.runErr == nil {
		// The handler had no frame left to run in: build its table.
		r.overflowed(L)
		t := L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+msg))
		if chunk != "" {
			src := chunk
			if full, ok := r.sources[chunk]; ok {
				src = full
			}
			t.RawSetString("source", lua.LString(src))
			t.RawSetString("line", lua.LNumber(line))
		}
		return r.errorReply(t)
	}
	if re := r.judge(perr); re != nil {
		r.broken = true
		return Reply{}, re
	}
	if perr != nil {
		return r.errorReply(errorObject(perr))
	}
	return r.fromLua(L.Get(-1), 0)
}

// judge returns the RunError of a finished run, if any.
func (r *scriptRun) judge(perr error) *RunError {
	if r.runErr != nil {
		return r.runErr
	}
	if err := r.ctx.Err(); err != nil {
		return r.e.stopError(err, r.ctx.limit)
	}
	if perr != nil && isStackOverflow(perr) {
		return &RunError{Code: CodeStackOverflow, Msg: "stack overflow: the Lua value stack exceeded the offline limit"}
	}
	var ae *lua.ApiError
	if errors.As(perr, &ae) && ae.Type == lua.ApiErrorPanic {
		return &RunError{Code: CodeNotImplemented, Msg: "not implemented offline: internal engine error: " + ae.Error()}
	}
	return nil
}

// errorHandler is Redis's __redis__err__handler: it turns any error into a
// table {err=..., source=..., line=...}, the position being the function
// that raised the error, or its caller when that is a Go (C) function.
func (r *scriptRun) errorHandler(L *lua.LState) int {
	obj := L.Get(1)
	var t *lua.LTable
	switch x := obj.(type) {
	case *lua.LTable:
		t = x
	default:
		t = L.NewTable()
		var s string
		switch v := obj.(type) {
		case lua.LString:
			msg, exact := r.reword(L, string(v), 1)
			if !exact {
				r.warn("error text approximated (gopher-lua wording): %s", msg)
			}
			s = msg
		default:
			s = rawToString(v)
		}
		t.RawSetString("err", lua.LString("ERR "+s))
		if o := r.ctx.overflow; o.raw != "" && s == o.msg && o.line > 0 {
			// Lua raised it in the caller: Redis's handler names that.
			src := o.chunk
			if full, ok := r.sources[src]; ok {
				src = full
			}
			t.RawSetString("source", lua.LString(src))
			t.RawSetString("line", lua.LNumber(o.line))
			L.Push(t)
			return 1
		}
	}
	for level := 1; level <= 2; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.What == "G" || dbg.CurrentLine < 0 {
			continue
		}
		src := dbg.Source
		if full, ok := r.sources[src]; ok {
			src = full
		}
		t.RawSetString("source", lua.LString(src))
		t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
		break
	}
	L.Push(t)
	return 1
}

// errorReply builds the error reply of a failed run from the handler's
// table: "<err> script: <name>, on <source>:<line>.".
func (r *scriptRun) errorReply(obj lua.LValue) (Reply, error) {
	t, ok := obj.(*lua.LTable)
	if !ok {
		return ErrorReply(sanitize("ERR Error running script " + r.name + ", " + luaToString(obj))), nil
	}
	msg, ok := luaStringField(t, "err")
	if !ok && r.e.t.errTableUnknown {
		msg, ok = "ERR unknown error", true
	}
	if !ok {
		return Reply{}, &RunError{Code: CodeServerCrash, Msg: "error() with a table that has no string err field crashes the server (segfault in luaCallFunction; seen on Redis 7.0.15, 8.0.2 and Valkey 8.1.1)"}
	}
	text := cString(msg)
	src, okSrc := luaStringField(t, "source")
	line, okLine := luaStringField(t, "line")
	if okSrc && okLine {
		name := r.name + ", "
		if r.e.t.errNoName {
			name = ""
		}
		text += " script: " + name + "on " + cString(src) + ":" + line + "."
	}
	return ErrorReply(sanitize(text)), nil
}

// luaStringField reads t.name when it is a string or a number (lua_isstring).
func luaStringField(t *lua.LTable, name string) (string, bool) {
	switch v := t.RawGetString(name).(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		if float64(v) == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10), true
		}
		return luaNumber(float64(v)), true
	}
	return "", false
}

// noteCompileError records that a compile error's text is approximated
// unless it is Lua 5.1's own (every error of the Lua 5.1 parser, parse51);
// what is left is gopher-lua's compiler's.
func (e *Engine) noteCompileError(err error) {
	msg := err.Error()
	var exact *syntaxError
	if errors.As(err, &exact) {
		return
	}
	e.warnings = append(e.warnings, "compile error text is approximated (gopher-lua's compiler): "+msg)
}
