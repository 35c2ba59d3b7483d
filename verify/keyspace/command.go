package keyspace

import (
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/lazy"
)

// engineTarget is the server the engine emulates; its command table (names,
// arity, flags) is the one recorded from that server.
const engineTarget = "redis-7.0"

// commandTable is engineTarget's command table, decoded on first use.
var commandTable = lazy.Value[*cmdtable.Table]{New: func() *cmdtable.Table { return cmdtable.MustLoad(engineTarget) }}

// lookupCommand returns what the server declares for a command a client or
// a script names (top-level commands only: "object|encoding" is none).
func lookupCommand(name string) (*cmdtable.Command, bool) {
	return commandTable.Get().Command(name)
}

// handler runs one implemented command. args[0] is the lowercased name.
type handler struct {
	keys func(args []string) []string // the keys the command touches
	run  func(e *Server, args []string) Reply
	// runCtx, when set instead of run, also learns how the command was
	// called and may answer with a *RunError.
	runCtx func(e *Server, c cmdCtx, args []string) (Reply, error)
	// block, set instead of run for a blocking command, also reports that
	// nothing could be served (the reply is then unused): a script cannot
	// block (CLIENT_DENY_BLOCKING), so Redis answers nil at once; a client
	// would wait for another client's push, which the offline engine cannot
	// judge.
	block func(e *Server, args []string) (r Reply, blocked bool)
	// runIn, when set, replaces run for a command whose reply depends on
	// its caller (sc is the running script, nil for a client) or that can
	// find out only while running that it cannot be judged offline.
	runIn func(e *Server, sc Script, args []string) (Reply, error)
	// runErr replaces run for commands that may also refuse offline (a
	// *RunError), such as a string growing past the offline memory limit.
	runErr func(e *Server, args []string) (Reply, error)
	// full, when set, runs instead of run: for a command whose answer
	// depends on running in a script (a blocking pop answers at once there)
	// or that may not be judged offline (a RunError).
	full func(e *Server, args []string, inScript bool) (Reply, error)
}

// cmdCtx is how a command was called: the name as typed (Redis echoes it
// in some errors) and whether a script called it.
type cmdCtx struct {
	name   string
	script bool
}

// SubcommandChecked says whether name is one of the implemented container
// commands (XGROUP, XINFO) whose subcommand exec looks up, with its own
// arity and flags from the command table, before the command runs, as
// Redis does.
//
// It is written out here, not filled as the families register (handlers):
// the engine asks it without asking for the handlers first, from several
// goroutines; a switch, not a map, so the process builds nothing at start. COMMAND's subcommands are checked from the command table.
func SubcommandChecked(name string) bool {
	switch name {
	case "xgroup", "xinfo", "command", "cluster", "slowlog", "memory", "pubsub":
		return true
	}
	return false
}

func registerCtx(name string, keys func([]string) []string, run func(*Server, cmdCtx, []string) (Reply, error)) {
	register(name, keys, nil)
	registered[name] = handler{keys: keys, runCtx: run}
}

// MayReplicate says whether Redis 7.0.15 flags the command may_replicate
// but not write (PFCOUNT, which may write its cached cardinality): a script
// counts such commands as writes, so a read-only script may not call them
// (scriptVerifyWriteCommandAllow).
func MayReplicate(name string) bool {
	return name == "pfcount" || name == "publish" || name == "spublish"
}

// families are the registrations of the implemented commands, one per
// cmd_*.go file. They run on the first use of handlers, not at process
// start: most scriptctl commands run no command offline, and building the
// map in init cost every process (`scriptctl version` included) its time
// and memory pages.
var families = []func(){
	registerAdmin, registerBitmap, registerGeo, registerHash, registerHll,
	registerKeys, registerList, registerPubsub, registerServer, registerSet,
	registerSort, registerStream, registerString, registerZset,
}

// handlers returns the implemented commands, registered on first use.
var handlers = lazy.Value[map[string]handler]{New: func() map[string]handler {
	registered = map[string]handler{}
	for _, f := range families {
		f()
	}
	m := registered
	registered = nil
	return m
}}

// registered is the map the families fill while handlers builds it.
var registered map[string]handler

// register adds a handler. That Redis knows the command is checked by
// TestHandlersKnownToRedis, not here: looking it up would decode the
// command table in every process at start.
func register(name string, keys func([]string) []string, run func(*Server, []string) Reply) {
	if _, dup := registered[name]; dup {
		panic("verify: command registered twice: " + name)
	}
	registered[name] = handler{keys: keys, run: run}
}

// registerBlocking registers a blocking command (see handler.block).
func registerBlocking(name string, keys func([]string) []string, block func(*Server, []string) (Reply, bool)) {
	register(name, keys, nil)
	registered[name] = handler{keys: keys, block: block}
}

// registerErr registers a command whose handler may return a *RunError.
func registerErr(name string, keys func([]string) []string, run func(*Server, []string) (Reply, error)) {
	register(name, keys, nil)
	registered[name] = handler{keys: keys, runErr: run}
}

// registerFull registers a command that needs handler.full.
func registerFull(name string, keys func([]string) []string, full func(*Server, []string, bool) (Reply, error)) {
	register(name, keys, nil)
	h := registered[name]
	h.full = full
	registered[name] = h
}

// Key position helpers.
func firstKey(args []string) []string { return args[1:2] }
func allKeys(args []string) []string  { return args[1:] }
func noKeys([]string) []string        { return nil }
func everyOtherKey(args []string) []string {
	var ks []string
	for i := 1; i < len(args); i += 2 {
		ks = append(ks, args[i])
	}
	return ks
}

// Errors Redis replies with; the texts are Redis 7.0.15's.
var (
	errSyntax      = ErrorReply("ERR syntax error")
	errNotInt      = ErrorReply("ERR value is not an integer or out of range")
	errWrongType   = ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value")
	errOverflow    = ErrorReply("ERR increment or decrement would overflow")
	errHashNotInt  = ErrorReply("ERR hash value is not an integer")
	okReply        = StatusReply("OK")
	errDecOverflow = ErrorReply("ERR decrement would overflow")
	errNoSuchKey   = ErrorReply("ERR no such key")
	errNotPositive = ErrorReply("ERR value is out of range, must be positive")
)

// ErrArity is a client's wrong-number-of-arguments error for the command
// name.
func ErrArity(name string) Reply { return errArity(name) }

func errArity(name string) Reply {
	return ErrorReply(fmt.Sprintf("ERR wrong number of arguments for '%s' command", name))
}

func errExpire(name string) Reply {
	return ErrorReply(fmt.Sprintf("ERR invalid expire time in '%s' command", name))
}

// ScriptErrWrite is the script layer's refusal of a write command (raised
// by redis.call, returned by redis.pcall); the layer's other errors depend
// on the target.
const ScriptErrWrite = "ERR Write commands are not allowed from read-only scripts."

// cTrunc is s as C's %s prints it: up to the first NUL byte.
func cTrunc(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// cArg is s as C's %.<max>s prints it: up to the first NUL, at most max bytes.
func cArg(s string, max int) string {
	s = cTrunc(s)
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// errorf is Redis's addReplyErrorFormat: CR and LF at either end are
// trimmed and inside become spaces; a text starting with '-' carries its
// own code, any other gets "ERR ".
func errorf(format string, args ...any) Reply {
	s := strings.Trim(fmt.Sprintf(format, args...), "\r\n")
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	if strings.HasPrefix(s, "-") {
		return ErrorReply(s[1:])
	}
	return ErrorReply("ERR " + s)
}

// registerIn registers a command whose handler sees its caller (handler.runIn).
func registerIn(name string, keys func([]string) []string, run func(*Server, Script, []string) (Reply, error)) {
	register(name, keys, nil)
	h := registered[name]
	h.runIn = run
	registered[name] = h
}

// Handler is one implemented command of a target.
type Handler struct{ h handler }

// ErrUnknownSubcommand is Redis's reply to a container command (args[0])
// whose subcommand args[1] it does not know.
func ErrUnknownSubcommand(args []string) Reply {
	return errorf("unknown subcommand '%s'. Try %s HELP.", cArg(args[1], 128), strings.ToUpper(cTrunc(args[0])))
}

// ClientLookup reads a command as the server reads one a client sends:
// its lowercased name and what the target's command table declares for it
// (a checked container's subcommand: XGROUP, XINFO), or, with ok false,
// the error Redis answers for an unknown command, a wrong number of
// arguments or an unknown subcommand. A script's command is read by the
// engine, whose texts differ.
func (e *Server) ClientLookup(args []string) (name string, info *cmdtable.Command, rep Reply, ok bool) {
	name = strings.ToLower(args[0])
	info, known := e.t.Command(name)
	if !known {
		var b strings.Builder
		for _, a := range args[1:] {
			if b.Len() >= 128 {
				break
			}
			fmt.Fprintf(&b, "'%.128s' ", a)
		}
		return name, nil, ErrorReply(fmt.Sprintf("ERR unknown command '%.128s', with args beginning with: %s", args[0], b.String())), false
	}
	if !info.ArityOK(len(args)) {
		return name, nil, errArity(name), false
	}
	if SubcommandChecked(name) && len(args) >= 2 {
		sub, known := info.Sub(strings.ToLower(args[1]))
		switch {
		case !known:
			return name, nil, ErrUnknownSubcommand(args), false
		case !sub.ArityOK(len(args)):
			return name, nil, errArity(name + "|" + strings.ToLower(args[1])), false
		}
		info = sub
	}
	return name, info, Reply{}, true
}

// Handler returns the emulation of the command name (lowercase) on the
// server's target.
func (e *Server) Handler(name string) (Handler, bool) {
	h, ok := e.t.handler(name)
	return Handler{h}, ok
}

// Keys returns the keys the command args (args[0] the lowercase name)
// touches.
func (h Handler) Keys(args []string) []string { return h.h.keys(args) }

// Run runs the command args (args[0] the lowercase name; typed is the name
// as the caller typed it, which some errors echo) for a client (sc nil) or
// for the script sc. blocked reports a blocking command that could serve
// nothing (its reply is then unused): a script's gets nil at once, a
// client's would wait for another client. A *RunError means the command
// cannot be judged offline.
func (h Handler) Run(e *Server, sc Script, typed string, args []string) (r Reply, blocked bool, err error) {
	if sc != nil {
		e.scriptCmd = true
		defer func() { e.scriptCmd = false }()
	}
	switch h := h.h; {
	case h.runCtx != nil:
		r, err = h.runCtx(e, cmdCtx{name: typed, script: sc != nil}, args)
	case h.block != nil:
		r, blocked = h.block(e, args)
	case h.runIn != nil:
		r, err = h.runIn(e, sc, args)
	case h.runErr != nil:
		r, err = h.runErr(e, args)
	case h.full != nil:
		r, err = h.full(e, args, sc != nil)
	default:
		r = h.run(e, args)
	}
	return r, blocked, err
}

// Implemented reports whether the engine's own target (DefaultTarget)
// runs the command name offline; note is how far when only partly
// (adminPartial), "" when whole.
func Implemented(name string) (ok bool, note string) {
	_, ok = handlers.Get()[name]
	return ok, adminPartial.Get()[name]
}

// Replies and parsing the engine's own commands (EVAL, SCRIPT, FUNCTION)
// share with the data commands.
var (
	ErrNotInt = ErrorReply("ERR value is not an integer or out of range") // errNotInt
	OKReply   = StatusReply("OK")                                         // okReply
)

// ParseInt is Redis's string2ll (parseInt).
func ParseInt(s string) (int64, bool) { return parseInt(s) }
