package verify

import (
	"fmt"
	"strings"
	"sync"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
)

// engineTarget is the server the engine emulates; its command table (names,
// arity, flags) is the one recorded from that server.
const engineTarget = "redis-7.0"

// commandTable is engineTarget's command table, decoded on first use.
var commandTable = sync.OnceValue(func() *cmdtable.Table { return cmdtable.MustLoad(engineTarget) })

// lookupCommand returns what the server declares for a command a client or
// a script names (top-level commands only: "object|encoding" is none). It
// tells "unknown command" (Redis's own error) from "not implemented
// offline".
func lookupCommand(name string) (*cmdtable.Command, bool) {
	return commandTable().Command(name)
}

// handler runs one implemented command. args[0] is the lowercased name.
type handler struct {
	keys func(args []string) []string // the keys the command touches
	run  func(e *Engine, args []string) Reply
	// runCtx, when set instead of run, also learns how the command was
	// called and may answer with a *RunError.
	runCtx func(e *Engine, c cmdCtx, args []string) (Reply, error)
	// block, set instead of run for a blocking command, also reports that
	// nothing could be served (the reply is then unused): a script cannot
	// block (CLIENT_DENY_BLOCKING), so Redis answers nil at once; a client
	// would wait for another client's push, which the offline engine cannot
	// judge.
	block func(e *Engine, args []string) (r Reply, blocked bool)
	// runIn, when set, replaces run for a command whose reply depends on
	// its caller (sc is the running script, nil for a client) or that can
	// find out only while running that it cannot be judged offline.
	runIn func(e *Engine, sc *scriptRun, args []string) (Reply, error)
	// runErr replaces run for commands that may also refuse offline (a
	// *RunError), such as a string growing past the offline memory limit.
	runErr func(e *Engine, args []string) (Reply, error)
	// full, when set, runs instead of run: for a command whose answer
	// depends on running in a script (a blocking pop answers at once there)
	// or that may not be judged offline (a RunError).
	full func(e *Engine, args []string, inScript bool) (Reply, error)
}

// cmdCtx is how a command was called: the name as typed (Redis echoes it
// in some errors) and whether a script called it.
type cmdCtx struct {
	name   string
	script bool
}

// subcommandChecked lists the implemented container commands (XGROUP,
// XINFO) whose subcommand exec looks up, with its own arity and flags from
// the command table, before the command runs, as Redis does.
var subcommandChecked = map[string]bool{"xgroup": true, "xinfo": true}

func registerCtx(name string, keys func([]string) []string, run func(*Engine, cmdCtx, []string) (Reply, error)) {
	register(name, keys, nil)
	handlers[name] = handler{keys: keys, runCtx: run}
}

// mayReplicate lists commands Redis 7.0.15 flags may_replicate but not
// write (PFCOUNT, which may write its cached cardinality): a script counts
// them as writes, so a read-only script may not call them
// (scriptVerifyWriteCommandAllow).
var mayReplicate = map[string]bool{"pfcount": true, "publish": true, "spublish": true}

// handlers holds the implemented commands; each cmd_*.go file registers its
// family in init.
var handlers = map[string]handler{}

// register adds a handler. That Redis knows the command is checked by
// TestHandlersKnownToRedis, not here: looking it up would decode the
// command table in every process at start.
func register(name string, keys func([]string) []string, run func(*Engine, []string) Reply) {
	if _, dup := handlers[name]; dup {
		panic("verify: command registered twice: " + name)
	}
	handlers[name] = handler{keys: keys, run: run}
}

// registerBlocking registers a blocking command (see handler.block).
func registerBlocking(name string, keys func([]string) []string, block func(*Engine, []string) (Reply, bool)) {
	register(name, keys, nil)
	handlers[name] = handler{keys: keys, block: block}
}

// registerErr registers a command whose handler may return a *RunError.
func registerErr(name string, keys func([]string) []string, run func(*Engine, []string) (Reply, error)) {
	register(name, keys, nil)
	handlers[name] = handler{keys: keys, runErr: run}
}

// registerFull registers a command that needs handler.full.
func registerFull(name string, keys func([]string) []string, full func(*Engine, []string, bool) (Reply, error)) {
	register(name, keys, nil)
	h := handlers[name]
	h.full = full
	handlers[name] = h
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

func errArity(name string) Reply {
	return ErrorReply(fmt.Sprintf("ERR wrong number of arguments for '%s' command", name))
}

func errExpire(name string) Reply {
	return ErrorReply(fmt.Sprintf("ERR invalid expire time in '%s' command", name))
}

// Script-layer errors (raised by redis.call, returned by redis.pcall); the
// others depend on the target (serverFacts).
const scriptErrWrite = "ERR Write commands are not allowed from read-only scripts."

// exec runs one command. sc is the running script, nil for a client command.
// The Reply is Redis's answer; a *RunError means the command cannot be judged
// offline.
func (e *Engine) exec(sc *scriptRun, args []string) (Reply, error) {
	if sc != nil {
		e.now += e.callTick
	}
	name := strings.ToLower(args[0])
	info, known := e.t.command(name)
	if !known {
		if sc != nil {
			return ErrorReply(e.t.errUnknownCommand), nil
		}
		var b strings.Builder
		for _, a := range args[1:] {
			if b.Len() >= 128 {
				break
			}
			fmt.Fprintf(&b, "'%.128s' ", a)
		}
		return ErrorReply(fmt.Sprintf("ERR unknown command '%.128s', with args beginning with: %s", args[0], b.String())), nil
	}
	if !info.ArityOK(len(args)) {
		if sc != nil {
			return ErrorReply(e.t.errArity), nil
		}
		return errArity(name), nil
	}
	// A script's command is looked up with its subcommand, as scriptCall's
	// lookupCommand does, so a container's subcommand has its own arity
	// and flags (CONFIG GET is noscript, CONFIG HELP is not).
	if (subcommandChecked[name] || (sc != nil && len(info.Subcommands) > 0)) && len(args) >= 2 {
		sub, known := info.Sub(strings.ToLower(args[1]))
		switch {
		case !known && sc != nil && !e.t.scriptSubText:
			return ErrorReply(e.t.errUnknownCommand), nil
		case !known:
			return errorf("unknown subcommand '%s'. Try %s HELP.", cArg(args[1], 128), strings.ToUpper(cTrunc(args[0]))), nil
		case !sub.ArityOK(len(args)):
			if sc != nil {
				return ErrorReply(e.t.errArity), nil
			}
			return errArity(name + "|" + strings.ToLower(args[1])), nil
		}
		info = sub
	}
	if sc != nil {
		if info.Noscript() {
			return ErrorReply(e.t.errNoScript), nil
		}
		if (info.Write() || mayReplicate[name]) && sc.readOnly {
			return ErrorReply(scriptErrWrite), nil
		}
	}
	h, ok := e.t.handler(name)
	if !ok {
		return Reply{}, notImplemented("%s", strings.ToUpper(strings.ReplaceAll(info.Name, "|", " ")))
	}
	orig := args[0]
	args = append([]string{name}, args[1:]...)
	if sc != nil {
		if rep, ok, err := sc.checkKeys(name, args, h.keys(args)); !ok {
			return rep, err
		}
	}
	if info.Write() && !e.charge(argBytes(args)) && sc != nil {
		return Reply{}, e.memoryError()
	}
	if sc != nil {
		e.scriptCmd = true
		defer func() { e.scriptCmd = false }()
	}
	if h.runCtx != nil {
		return h.runCtx(e, cmdCtx{name: orig, script: sc != nil}, args)
	}
	if h.block != nil {
		r, blocked := h.block(e, args)
		if !blocked {
			return r, nil
		}
		if sc == nil {
			return Reply{}, notImplemented("%s would block (no other client can push offline)", strings.ToUpper(name))
		}
		return NilReply(), nil
	}
	if h.runIn != nil {
		return h.runIn(e, sc, args)
	}
	if h.runErr != nil {
		return h.runErr(e, args)
	}
	if h.full != nil {
		return h.full(e, args, sc != nil)
	}
	return h.run(e, args), nil
}

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
func registerIn(name string, keys func([]string) []string, run func(*Engine, *scriptRun, []string) (Reply, error)) {
	register(name, keys, nil)
	h := handlers[name]
	h.runIn = run
	handlers[name] = h
}
