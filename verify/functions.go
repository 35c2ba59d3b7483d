package verify

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/keyspace"
	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Redis Functions: FUNCTION LOAD [REPLACE], FCALL, FCALL_RO. Like Redis, all
// libraries share one Lua state whose globals are an empty readonly table:
// while a library loads, its reads go to a small API table (redis with
// register_function, log and the version constants, nothing else); when a
// function runs they go to the full sandbox.

type function struct {
	name     string
	lib      string
	callback *lua.LFunction
	flags    []string
	desc     *string // register_function's description; nil: none given
}

type library struct {
	name  string
	code  []byte
	funcs []*function
	seq   uint64 // load order: FUNCTION LIST's order offline
}

type functions struct {
	run   *scriptRun // the shared state; nil until the first load
	libs  map[string]*library
	funcs map[string]*function
	api   *lua.LTable // globals seen while a library loads
	// pending collects register_function calls during a load.
	pending []*function
	// loads counts libraries loaded, for library.seq.
	loads uint64
	// badArgv: the last redis.call of a function failed on a non-string
	// argument, which leaves the functions' Lua client with argc set and
	// no argv (luaRedisGenericCommand); see serverFacts.fnArgvCrash.
	badArgv bool
}

func newFunctions() *functions {
	return &functions{libs: map[string]*library{}, funcs: map[string]*function{}}
}

// state returns the shared Functions Lua state, creating it on first use.
func (e *Engine) functionsState() *scriptRun {
	fs := e.funcs
	if fs.run != nil {
		return fs.run
	}
	r := &scriptRun{e: e, ctx: newStepContext(context.Background(), e.steps), name: ""}
	r.newState()
	L := r.L
	// The load-time API: redis.register_function, redis.log, constants.
	api := L.NewTable()
	rt := L.NewTable()
	rt.RawSetString("register_function", L.NewFunction(r.registerFunction))
	G := r.real(r.globals).(*lua.LTable)
	full := r.real(G.RawGetString("redis")).(*lua.LTable)
	// The Functions state's error handler is a local kept in the
	// registry, not a global (function_lua.c luaEngineInitEngine).
	G.RawSetString("__redis__err__handler", lua.LNil)
	G.RawSetString("__server__err__handler", lua.LNil)
	// Script-only helpers Redis 7.0 does not give functions.
	for _, k := range []string{"replicate_commands", "breakpoint", "debug"} {
		full.RawSetString(k, lua.LNil)
	}
	for _, k := range []string{"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM",
		"VALKEY_VERSION", "VALKEY_VERSION_NUM", "SERVER_NAME"} {
		rt.RawSetString(k, full.RawGetString(k))
	}
	errMT := L.NewTable()
	errMT.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", luaToString(L.Get(2)))
		return 0
	}))
	L.SetMetatable(rt, errMT)
	L.SetMetatable(api, errMT)
	api.RawSetString("redis", r.readonlyProxy(rt))
	if r.e.t.serverGlobal {
		api.RawSetString("server", api.RawGetString("redis"))
	}
	api.RawSetString(catName, r.cat)
	api.RawSetString(arithName, r.arith)
	api.RawSetString(forName, r.forHelp)
	api.RawSetString(tnewName, r.tnew)
	api.RawSetString(delName, r.del)
	api.RawSetString(setName, r.set)
	api.RawSetString(lenName, r.lenHelp)
	api.RawSetString(manyName, r.many)
	api.RawSetString(catChainName, r.catLong)
	fs.api = r.readonlyProxy(api)
	r.sources["user_function"] = "@user_function"
	r.sealUnlessOnce(fs.api)
	fs.run = r
	return r
}

// setLoadGlobals points the shared globals at the load API (true) or at the
// full sandbox (false).
func (r *scriptRun) setLoadGlobals(loading bool) {
	mt := r.proxyMT[r.globals]
	if loading {
		mt.RawSetString("__index", r.e.funcs.api)
	} else {
		mt.RawSetString("__index", r.real(r.globals))
	}
	r.loading = loading
}

// LoadBudgetSpent reports whether the last FunctionLoad stopped at the
// load budget (Options.LoadStepLimit), and the budget: its reply is
// Redis's "FUNCTION LOAD timeout", but offline it is a count of
// instructions, not a fault the code's syntax or a server showed. A check
// reports it as its own finding, never as a syntax error.
func (e *Engine) LoadBudgetSpent() (steps int64, spent bool) {
	return e.loadSteps, e.loadSpent
}

// FunctionLoad runs FUNCTION LOAD [REPLACE] code. It replies with the
// library name, or Redis's error.
func (e *Engine) FunctionLoad(code []byte, replace bool) (Reply, error) {
	if e.tErr != nil {
		return Reply{}, e.tErr
	}
	e.warnings = nil
	e.loadSpent = false
	name, errText := libraryMeta(code)
	if errText != "" {
		return ErrorReply("ERR " + errText), nil
	}
	fs := e.funcs
	old := fs.libs[name]
	if old != nil && !replace {
		return ErrorReply(fmt.Sprintf("ERR Library '%s' already exists", name)), nil
	}
	r := e.functionsState()
	end := bytes.IndexByte(code, '\n')
	c := compileCached(code[end:], "@user_function")
	if c.err != nil {
		e.noteCompileError(c.err)
		return ErrorReply(sanitize("ERR Error compiling function: " + c.err.Error())), nil
	}
	r.chunks["user_function"] = c
	// Redis stops a library's load after 500 ms (LOAD_TIMEOUT_MS): the
	// instructions a server runs in that time.
	ctx, cancel := e.runContext(context.Background(), min(e.steps, e.loadSteps))
	defer cancel()
	r.ctx = ctx
	r.runErr = nil
	r.name = name
	fs.pending = nil
	r.setLoadGlobals(true)
	L := r.L
	fn := r.instantiate(L, c.proto)
	L.SetContext(ctx)
	L.Push(fn)
	perr := L.PCall(0, 0, nil)
	L.RemoveContext()
	r.setLoadGlobals(false)
	pending := fs.pending
	fs.pending = nil
	if re := r.judge(perr); re != nil {
		r.broken = true
		if re.Code == CodeStepLimit && e.steps > e.loadSteps {
			e.loadSpent = true
			return ErrorReply("ERR Error registering functions: ERR FUNCTION LOAD timeout"), nil
		}
		return Reply{}, re
	}
	if perr != nil {
		obj := errorObject(perr)
		msg := ""
		switch v := obj.(type) {
		case *lua.LTable:
			s, _ := luaStringField(v, "err")
			msg = s
		default:
			msg = "ERR " + luaToString(obj)
		}
		return ErrorReply(sanitize("ERR Error registering functions: " + msg)), nil
	}
	if len(pending) == 0 {
		return ErrorReply("ERR No functions registered"), nil
	}
	if e.t.scriptingEngines {
		// Valkey 8.1 checks the names once the library's code has run,
		// in registration order, and without the registering prefix.
		for i, f := range pending {
			if text := checkPending(pending[:i], f, true); text != "" {
				return ErrorReply("ERR " + text), nil
			}
		}
	}
	// Function names are global and case-insensitive (library names and a
	// library's own function names are case-sensitive), as in Redis.
	for _, f := range pending {
		if other, ok := fs.funcs[strings.ToLower(f.name)]; ok && (old == nil || other.lib != old.name) {
			return ErrorReply(fmt.Sprintf("ERR Function %s already exists", f.name)), nil
		}
	}
	if old != nil {
		fs.unlink(old)
	}
	fs.loads++
	lib := &library{name: name, code: append([]byte(nil), code...), funcs: pending, seq: fs.loads}
	for _, f := range pending {
		f.lib = name
		fs.funcs[strings.ToLower(f.name)] = f // a later same-name-but-case wins
	}
	fs.libs[name] = lib
	return BulkReply(name), nil
}

// unlink removes lib and its functions (libraryUnlink): function names
// are unique without regard to case across libraries, so each lower-cased
// name is lib's own.
func (fs *functions) unlink(lib *library) {
	for _, f := range lib.funcs {
		delete(fs.funcs, strings.ToLower(f.name))
	}
	delete(fs.libs, lib.name)
}

// libraryMeta parses "#!lua name=<lib>" (functionExtractLibMetaData).
func libraryMeta(code []byte) (string, string) {
	if !bytes.HasPrefix(code, []byte("#!")) {
		return "", "Missing library metadata"
	}
	end := bytes.IndexByte(code, '\n')
	if end < 0 {
		return "", "Invalid library metadata"
	}
	parts := strings.Fields(string(code[:end]))
	if len(parts) == 0 {
		return "", "Invalid library metadata"
	}
	engine := strings.TrimPrefix(parts[0], "#!")
	name, hasName := "", false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if hasName {
				return "", "Invalid metadata value, name argument was given multiple times"
			}
			name, hasName = p[5:], true
			continue
		}
		return "", "Invalid metadata value given: " + p
	}
	if !hasName {
		return "", "Library name was not given"
	}
	if !validName(name) {
		return "", "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	}
	if !strings.EqualFold(engine, "lua") {
		return "", fmt.Sprintf("Engine '%s' not found", engine)
	}
	return name, ""
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// registerFunction is redis.register_function, in both forms.
func (r *scriptRun) registerFunction(L *lua.LState) int {
	fail := func(text string) {
		L.Error(errTable(L, "ERR "+r.e.t.text(text)), 0)
	}
	if !r.loading {
		fail("redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &function{flags: []string{}}
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			fail("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		// luaRegisterFunctionReadNamedArgs: lua_next's order, keys
		// compared without case, and a number where a string is asked
		// for read as its text (lua_isstring, lua_tolstring).
		var bad string
		for k, v := range r.orderedPairs(t) {
			var key string
			switch x := k.(type) {
			case lua.LString:
				key = string(x)
			case lua.LNumber:
				key = luaNumber(float64(x))
			default:
				bad = "named argument key given to redis.register_function is not a string"
			}
			if bad != "" {
				break
			}
			switch strings.ToLower(key) {
			case "function_name":
				s, ok := luaStringArg(v)
				if !ok {
					bad = "function_name argument given to redis.register_function must be a string"
					break
				}
				f.name = s
			case "description":
				s, ok := luaStringArg(v)
				if !ok {
					bad = "description argument given to redis.register_function must be a string"
					break
				}
				f.desc = &s
			case "callback":
				fn, ok := v.(*lua.LFunction)
				if !ok {
					bad = "callback argument given to redis.register_function must be a function"
					break
				}
				f.callback = fn
			case "flags":
				ft, ok := v.(*lua.LTable)
				if !ok {
					bad = "flags argument to redis.register_function must be a table representing function flags"
					break
				}
				flags, ok := readFunctionFlags(ft)
				if !ok {
					bad = "unknown flag given"
					break
				}
				f.flags = flags
			default:
				bad = "unknown argument given to redis.register_function"
			}
			if bad != "" {
				break
			}
		}
		if bad != "" {
			fail(bad)
		}
		if f.name == "" {
			fail("redis.register_function must get a function name argument")
		}
		if f.callback == nil {
			fail("redis.register_function must get a callback argument")
		}
	case 2:
		s, ok := luaStringArg(L.Get(1))
		if !ok {
			fail("first argument to redis.register_function must be a string")
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			fail("second argument to redis.register_function must be a function")
		}
		f.name, f.callback = s, fn
	default:
		fail("wrong number of arguments to redis.register_function")
	}
	if !r.e.t.scriptingEngines {
		if text := checkPending(r.e.funcs.pending, f, false); text != "" {
			fail(text)
		}
	}
	r.e.funcs.pending = append(r.e.funcs.pending, f)
	return 0
}

// luaStringArg is luaGetStringSds: a string, or a number as its text
// (lua_isstring, lua_tolstring), as concatString reads an operand.
func luaStringArg(v lua.LValue) (string, bool) { return concatString(v) }

// readFunctionFlags is luaRegisterFunctionReadFlags: t[1], t[2], ... up to
// the first nil, each a flag's name without regard to case (a number is
// its text, and names no flag). The flags come back by their names.
func readFunctionFlags(t *lua.LTable) ([]string, bool) {
	flags := []string{}
	for i := 1; ; i++ {
		s, ok := luaStringArg(lualib.RawGetInt(t, i))
		if lualib.RawGetInt(t, i) == lua.LNil {
			return flags, true
		}
		if !ok {
			return nil, false
		}
		f, ok := functionFlag(s)
		if !ok {
			return nil, false
		}
		if !hasFlag(flags, f) {
			flags = append(flags, f)
		}
	}
}

// functionFlag is the flag register_function's flags name, compared
// without regard to case (a shebang's flags are compared exactly).
func functionFlag(name string) (string, bool) {
	j := slices.IndexFunc(scriptFlags, func(f string) bool { return strings.EqualFold(f, name) })
	if j < 0 {
		return "", false
	}
	return scriptFlags[j], true
}

// checkPending returns the error of registering f after earlier ones: an
// invalid name (Redis 7.0 words it as a library name; Valkey 8.1, which
// checks after the load, as a function name: fixed) or a name used twice.
func checkPending(earlier []*function, f *function, fixed bool) string {
	if !validName(f.name) {
		if fixed {
			return "Function names can only contain letters, numbers, or underscores(_) and must be at least one character long"
		}
		return "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
	}
	for _, p := range earlier {
		if p.name == f.name {
			return "Function already exists in the library"
		}
	}
	return ""
}

// FCall runs FCALL fn numkeys key... arg....
func (e *Engine) FCall(ctx context.Context, fn string, keys, args []string) (Reply, error) {
	return e.fcall(ctx, fn, keys, args, false)
}

// FCallRO runs FCALL_RO: the function must have the no-writes flag.
func (e *Engine) FCallRO(ctx context.Context, fn string, keys, args []string) (Reply, error) {
	return e.fcall(ctx, fn, keys, args, true)
}

func (e *Engine) fcall(ctx context.Context, name string, keys, args []string, ro bool) (Reply, error) {
	if e.tErr != nil {
		return Reply{}, e.tErr
	}
	e.warnings, e.findings = nil, nil
	if len(keys) > 0 {
		if r, bad := e.crossSlot(keys); bad {
			return r, nil
		}
	}
	f, ok := e.funcs.funcs[strings.ToLower(name)]
	if !ok {
		return ErrorReply("ERR Function not found"), nil
	}
	if hasFlag(f.flags, "no-cluster") && e.cluster() {
		return ErrorReply(errNoCluster), nil
	}
	noWrites := hasFlag(f.flags, "no-writes")
	if ro && !noWrites {
		return ErrorReply("ERR Can not execute a script with write flag using *_ro command."), nil
	}
	r := e.funcs.run
	runCtx, cancel := e.runContext(ctx, e.steps)
	defer cancel()
	r.ctx = runCtx
	r.runErr = nil
	r.name = name
	r.readOnly = ro || noWrites
	r.setKeys(keys)
	r.startRun(keys, hasFlag(f.flags, "allow-cross-slot-keys"))
	L := r.L
	rep, err := r.call(f.callback, stringArray(L, keys), stringArray(L, args))
	if err == nil && e.funcs.badArgv && e.t.fnArgvCrash {
		// The server replies and runs on; the crash waits for FUNCTION
		// FLUSH (functionFlush), and another function's call clears it.
		e.warn("%s", e.argvCrashText())
	}
	return rep, err
}

// doScript runs EVAL, EVAL_RO, FCALL or FCALL_RO sent as a command.
func (e *Engine) doScript(ctx context.Context, args []string) (Reply, error) {
	name := strings.ToLower(args[0])
	if len(args) < 3 {
		return errArity(name), nil
	}
	n, ok := parseInt(args[2])
	if !ok {
		return errNotInt, nil
	}
	if n < 0 {
		return ErrorReply("ERR Number of keys can't be negative"), nil
	}
	if n > int64(len(args)-3) {
		return ErrorReply("ERR Number of keys can't be greater than number of args"), nil
	}
	keys := args[3 : 3+n]
	rest := args[3+n:]
	switch name {
	case "eval":
		return e.Eval(ctx, []byte(args[1]), keys, rest)
	case "eval_ro":
		return e.EvalRO(ctx, []byte(args[1]), keys, rest)
	case "evalsha", "evalsha_ro":
		src, ok := e.sources[strings.ToLower(args[1])]
		if !ok {
			return ErrorReply(e.t.noscript), nil
		}
		if name == "evalsha_ro" {
			return e.EvalRO(ctx, src, keys, rest)
		}
		return e.Eval(ctx, src, keys, rest)
	case "fcall":
		return e.FCall(ctx, args[1], keys, rest)
	}
	return e.FCallRO(ctx, args[1], keys, rest)
}

// doScriptCmd runs SCRIPT LOAD, SCRIPT EXISTS and SCRIPT FLUSH on the
// engine's script cache, and SCRIPT KILL (nothing runs while a client's
// command does).
func (e *Engine) doScriptCmd(args []string) (Reply, error) {
	if len(args) < 2 {
		return errArity("script"), nil
	}
	switch sub := strings.ToLower(args[1]); sub {
	case "load":
		if len(args) != 3 {
			return errArity("script|load"), nil
		}
		src := []byte(args[2])
		if _, _, errText := parseShebang(src, e.t); errText != "" {
			return ErrorReply("ERR " + errText), nil
		}
		_, n, _ := parseShebang(src, e.t)
		if c := compileCached(src[n:], "@user_script"); c.err != nil {
			e.noteCompileError(c.err)
			return ErrorReply(sanitize("ERR Error compiling script (new function): " + c.err.Error())), nil
		}
		sha := SHA1(src)
		e.sources[sha] = src
		return BulkReply(sha), nil
	case "exists":
		if len(args) < 3 {
			return errArity("script|exists"), nil
		}
		out := make([]Reply, 0, len(args)-2)
		for _, sha := range args[2:] {
			if _, ok := e.sources[strings.ToLower(sha)]; ok {
				out = append(out, IntReply(1))
			} else {
				out = append(out, IntReply(0))
			}
		}
		return ArrayReply(out...), nil
	case "flush":
		if len(args) > 3 || len(args) == 3 && !strings.EqualFold(args[2], "sync") && !strings.EqualFold(args[2], "async") {
			return ErrorReply("ERR SCRIPT FLUSH only support SYNC|ASYNC option"), nil
		}
		// The compile cache is process-wide and holds no script state:
		// the SHAs EVALSHA finds are forgotten, and the EVAL Lua state
		// is a new one (scriptingReset, with ASYNC too).
		clear(e.sources)
		e.flushEvalState()
		return okReply, nil
	case "kill":
		if len(args) != 2 {
			return errArity("script|kill"), nil
		}
		return errNotBusy, nil
	case "debug", "help":
		return Reply{}, notImplemented("SCRIPT %s", strings.ToUpper(sub))
	}
	return keyspace.ErrUnknownSubcommand(args), nil
}
