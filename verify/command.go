package verify

import (
	"fmt"
	"strings"
)

// commandInfo is what Redis 7.0.15 declares for a command (commands_gen.go).
type commandInfo struct {
	arity    int // exact when positive, minimum when negative; the name counts
	noscript bool
	write    bool
}

// handler runs one implemented command. args[0] is the lowercased name.
type handler struct {
	keys func(args []string) []string // the keys the command touches
	run  func(e *Engine, args []string) Reply
}

// handlers holds the implemented commands; each cmd_*.go file registers its
// family in init.
var handlers = map[string]handler{}

func register(name string, keys func([]string) []string, run func(*Engine, []string) Reply) {
	if _, ok := redisCommands[name]; !ok {
		panic("verify: registering a command Redis does not know: " + name)
	}
	if _, dup := handlers[name]; dup {
		panic("verify: command registered twice: " + name)
	}
	handlers[name] = handler{keys: keys, run: run}
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
	if (info.arity > 0 && info.arity != len(args)) || len(args) < -info.arity {
		if sc != nil {
			return ErrorReply(e.t.errArity), nil
		}
		return errArity(name), nil
	}
	if sc != nil {
		if info.noscript {
			return ErrorReply(e.t.errNoScript), nil
		}
		if info.write && sc.readOnly {
			return ErrorReply(scriptErrWrite), nil
		}
	}
	h, ok := e.t.handler(name)
	if !ok {
		return Reply{}, notImplemented("%s", strings.ToUpper(name))
	}
	args = append([]string{name}, args[1:]...)
	if sc != nil {
		for _, k := range h.keys(args) {
			if !sc.declared(k) {
				return Reply{}, &RunError{Code: CodeUndeclaredKey, Msg: fmt.Sprintf("undeclared key %q: pass it in KEYS (%s)", k, strings.ToUpper(name))}
			}
		}
	}
	return h.run(e, args), nil
}
