package verify

import (
	"slices"
	"strings"

	"github.com/scriptctl/scriptctl/verify/keyspace"
)

// The FUNCTION command a client sends (functions.c): LOAD, FLUSH, DELETE,
// LIST, STATS and KILL. DUMP and RESTORE carry an RDB payload (its
// strings LZF-compressed), which the engine does not serialise, as DUMP
// of a key; HELP's text is the server's own.

// doFunction runs FUNCTION's subcommands.
func (e *Engine) doFunction(args []string) (Reply, error) {
	if len(args) < 2 {
		return errArity("function"), nil
	}
	e.warnings = nil
	switch sub := strings.ToLower(args[1]); sub {
	case "load":
		return e.functionLoadCmd(args)
	case "flush":
		crash := e.funcs.badArgv && e.t.fnArgvCrash
		r := e.functionFlush(args)
		if crash && !r.IsError() {
			return Reply{}, &RunError{Code: CodeServerCrash, Msg: e.argvCrashText()}
		}
		return r, nil
	case "delete":
		if len(args) != 3 {
			return errArity("function|delete"), nil
		}
		return e.functionDelete(args[2]), nil
	case "list":
		return e.functionList(args), nil
	case "stats":
		if len(args) != 2 {
			return errArity("function|stats"), nil
		}
		return e.functionStats(), nil
	case "kill":
		if len(args) != 2 {
			return errArity("function|kill"), nil
		}
		return errNotBusy, nil
	case "dump", "restore", "help":
		return Reply{}, notImplemented("FUNCTION %s", strings.ToUpper(sub))
	}
	return keyspace.ErrUnknownSubcommand(args), nil
}

// errNotBusy is FUNCTION KILL's and SCRIPT KILL's reply when nothing runs:
// offline, no script runs while a client command does.
var errNotBusy = ErrorReply("NOTBUSY No scripts in execution right now.")

// argvCrashText says why the target crashes at FUNCTION FLUSH after a
// function whose last call failed its argument conversion.
func (e *Engine) argvCrashText() string {
	return "a function's redis.call or redis.pcall with an argument that is not a string or a number, not followed by another call, crashes " +
		e.t.family + " " + e.t.versionName() + " at the next FUNCTION FLUSH (the Lua client keeps argc without argv)"
}

// functionLoadCmd is FUNCTION LOAD [REPLACE] code.
func (e *Engine) functionLoadCmd(args []string) (Reply, error) {
	rest := args[2:]
	replace := false
	if len(rest) > 1 && strings.EqualFold(rest[0], "replace") {
		replace, rest = true, rest[1:]
	}
	if len(rest) != 1 {
		return errArity("function|load"), nil
	}
	return e.FunctionLoad([]byte(rest[0]), replace)
}

// functionFlush is FUNCTION FLUSH [ASYNC|SYNC] (functionFlushCommand):
// every library and function is dropped, whichever the mode. The
// Functions Lua state is a new one where the target's flush builds its
// engines again (serverFacts.fnFlushNewState); elsewhere it lives on with
// what runs did to it (grown call infos, cjson settings).
func (e *Engine) functionFlush(args []string) Reply {
	if len(args) > 3 {
		return keyspace.ErrSubcommandSyntax(args)
	}
	if len(args) == 3 && !strings.EqualFold(args[2], "sync") && !strings.EqualFold(args[2], "async") {
		return ErrorReply("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
	}
	fs := e.funcs
	if fs.run != nil && e.t.fnFlushNewState {
		fs.run.L.Close()
		fs.run, fs.api = nil, nil
	}
	clear(fs.libs)
	clear(fs.funcs)
	fs.badArgv = false
	return okReply
}

// functionDelete is FUNCTION DELETE library (functionDeleteCommand): the
// library's functions go with it; the Lua state keeps what their runs did
// to it, as on every target.
func (e *Engine) functionDelete(name string) Reply {
	lib, ok := e.funcs.libs[name]
	if !ok {
		return ErrorReply("ERR Library not found")
	}
	e.funcs.unlink(lib)
	return okReply
}

// functionList is FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]
// (functionListCommand): each library as a map of library_name, engine,
// functions (each a map of name, description and flags, the flags a set
// in the flags table's order) and, with WITHCODE, library_code. The
// server walks dicts hashed with a seed chosen at its start, so the order
// of several libraries, or of a library's functions, is not fixed there;
// the engine lists them in load and registration order and warns.
func (e *Engine) functionList(args []string) Reply {
	withCode, pattern, hasPattern := false, "", false
	for i := 2; i < len(args); i++ {
		a := args[i]
		if !withCode && strings.EqualFold(a, "withcode") {
			withCode = true
			continue
		}
		if !hasPattern && strings.EqualFold(a, "libraryname") {
			if i >= len(args)-1 {
				return ErrorReply("ERR library name argument was not given")
			}
			i++
			pattern, hasPattern = args[i], true
			continue
		}
		return ErrorReply("ERR Unknown argument " + a)
	}
	libs := make([]*library, 0, len(e.funcs.libs))
	for _, lib := range e.funcs.libs {
		if hasPattern && !keyspace.StringMatch(pattern, lib.name, true) {
			continue
		}
		libs = append(libs, lib)
	}
	slices.SortFunc(libs, func(a, b *library) int { return int(a.seq) - int(b.seq) })
	if len(libs) > 1 {
		e.warn("FUNCTION LIST: the server lists libraries in its dict order, which depends on a hash seed chosen at server start; the engine lists them in load order")
	}
	out := make([]Reply, 0, len(libs))
	for _, lib := range libs {
		if len(lib.funcs) > 1 {
			e.warn("FUNCTION LIST: the server lists a library's functions in its dict order, which depends on a hash seed chosen at server start; the engine lists them in registration order")
		}
		fns := make([]Reply, 0, len(lib.funcs))
		for _, f := range lib.funcs {
			desc := NilReply()
			if f.desc != nil {
				desc = BulkReply(*f.desc)
			}
			var flags []Reply
			for _, fl := range scriptFlags {
				if hasFlag(f.flags, fl) {
					flags = append(flags, StatusReply(fl))
				}
			}
			fns = append(fns, ArrayReply(BulkReply("name"), BulkReply(f.name),
				BulkReply("description"), desc, BulkReply("flags"), ArrayReply(flags...)))
		}
		m := []Reply{BulkReply("library_name"), BulkReply(lib.name), BulkReply("engine"), BulkReply("LUA"),
			BulkReply("functions"), ArrayReply(fns...)}
		if withCode {
			m = append(m, BulkReply("library_code"), BulkReply(string(lib.code)))
		}
		out = append(out, ArrayReply(m...))
	}
	return ArrayReply(out...)
}

// functionStats is FUNCTION STATS (functionStatsCommand): no script runs
// while a client's command does, so running_script is nil.
func (e *Engine) functionStats() Reply {
	n := 0
	for _, lib := range e.funcs.libs {
		n += len(lib.funcs)
	}
	return ArrayReply(BulkReply("running_script"), NilReply(), BulkReply("engines"),
		ArrayReply(BulkReply("LUA"), ArrayReply(
			BulkReply("libraries_count"), IntReply(int64(len(e.funcs.libs))),
			BulkReply("functions_count"), IntReply(int64(n)))))
}
