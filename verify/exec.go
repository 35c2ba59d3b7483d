package verify

import (
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdtable"

	"github.com/scriptctl/scriptctl/verify/keyspace"
)

// exec runs one command. sc is the running script, nil for a client command.
// The Reply is Redis's answer; a *RunError means the command cannot be judged
// offline.
func (e *Engine) exec(sc *scriptRun, args []string) (Reply, error) {
	if sc == nil {
		name, info, rep, ok := e.srv.ClientLookup(args)
		if !ok {
			return rep, nil
		}
		return e.run(nil, name, info, args)
	}
	e.srv.Advance(e.callTick)
	name := strings.ToLower(args[0])
	info, known := e.t.command(name)
	if !known {
		return ErrorReply(e.t.errUnknownCommand), nil
	}
	if !info.ArityOK(len(args)) {
		return ErrorReply(e.t.errArity), nil
	}
	// A script's command is looked up with its subcommand, as scriptCall's
	// lookupCommand does, so a container's subcommand has its own arity
	// and flags (CONFIG GET is noscript, CONFIG HELP is not).
	if (keyspace.SubcommandChecked(name) || len(info.Subcommands) > 0) && len(args) >= 2 {
		sub, known := info.Sub(strings.ToLower(args[1]))
		switch {
		case !known && !e.t.scriptSubText:
			return ErrorReply(e.t.errUnknownCommand), nil
		case !known:
			return keyspace.ErrUnknownSubcommand(args), nil
		case !sub.ArityOK(len(args)):
			return ErrorReply(e.t.errArity), nil
		}
		info = sub
	}
	if info.Noscript() {
		return ErrorReply(e.t.errNoScript), nil
	}
	if (info.Write() || keyspace.MayReplicate(name)) && sc.ReadOnly() {
		return ErrorReply(keyspace.ScriptErrWrite), nil
	}
	return e.run(sc, name, info, args)
}

// run runs a command exec has read (name lowercased, info its table
// entry): the script's key rules, the memory budget, then the handler.
func (e *Engine) run(sc *scriptRun, name string, info *cmdtable.Command, args []string) (Reply, error) {
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
