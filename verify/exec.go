package verify

import (
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/verify/keyspace"
)

// exec runs one command. sc is the running script, nil for a client command.
// The Reply is Redis's answer; a *RunError means the command cannot be judged
// offline.
func (e *Engine) exec(sc *scriptRun, args []string) (Reply, error) {
	if sc != nil {
		e.srv.Advance(e.callTick)
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
		return keyspace.ErrArity(name), nil
	}
	// A script's command is looked up with its subcommand, as scriptCall's
	// lookupCommand does, so a container's subcommand has its own arity
	// and flags (CONFIG GET is noscript, CONFIG HELP is not).
	if (keyspace.SubcommandChecked[name] || (sc != nil && len(info.Subcommands) > 0)) && len(args) >= 2 {
		sub, known := info.Sub(strings.ToLower(args[1]))
		switch {
		case !known && sc != nil && !e.t.scriptSubText:
			return ErrorReply(e.t.errUnknownCommand), nil
		case !known:
			return keyspace.Errorf("unknown subcommand '%s'. Try %s HELP.", keyspace.CArg(args[1], 128), strings.ToUpper(keyspace.CTrunc(args[0]))), nil
		case !sub.ArityOK(len(args)):
			if sc != nil {
				return ErrorReply(e.t.errArity), nil
			}
			return keyspace.ErrArity(name + "|" + strings.ToLower(args[1])), nil
		}
		info = sub
	}
	if sc != nil {
		if info.Noscript() {
			return ErrorReply(e.t.errNoScript), nil
		}
		if (info.Write() || keyspace.MayReplicate[name]) && sc.ReadOnly() {
			return ErrorReply(keyspace.ScriptErrWrite), nil
		}
	}
	h, ok := e.srv.Handler(name)
	if !ok {
		return Reply{}, notImplemented("%s", strings.ToUpper(strings.ReplaceAll(info.Name, "|", " ")))
	}
	orig := args[0]
	args = append([]string{name}, args[1:]...)
	if sc != nil {
		if rep, ok, err := sc.checkKeys(name, args, h.Keys(args)); !ok {
			return rep, err
		}
	}
	if info.Write() && !e.charge(argBytes(args)) && sc != nil {
		return Reply{}, e.memoryError()
	}
	var caller keyspace.Script
	if sc != nil {
		caller = sc
	}
	r, blocked, err := h.Run(e.srv, caller, orig, args)
	if !blocked {
		return r, err
	}
	if sc == nil {
		return Reply{}, notImplemented("%s would block (no other client can push offline)", strings.ToUpper(name))
	}
	return NilReply(), nil
}

// ReadOnly, Declared, Undeclared and SubcommandError make a running script the
// keyspace.Script its commands see.
func (r *scriptRun) ReadOnly() bool { return r.readOnly }

func (r *scriptRun) Declared(key string) bool { return r.declared(key) }

func (r *scriptRun) Undeclared(key, cmd string) *RunError { return r.undeclared(key, cmd) }

func (r *scriptRun) SubcommandError(unknown bool) (Reply, bool) {
	switch {
	case !unknown:
		return ErrorReply(r.e.t.errArity), true
	case r.e.t.scriptSubText:
		return Reply{}, false
	}
	return ErrorReply(r.e.t.errUnknownCommand), true
}
