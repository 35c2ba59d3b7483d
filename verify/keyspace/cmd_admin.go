package keyspace

import (
	"encoding/binary"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/slot"
)

// Server commands a script may call whose answer the server's code fixes
// without looking at its state, answered exactly; where the answer is the
// server's state (statistics, the slow log, the allocator, a real
// deployment's subscribers), a server-state RunError says so. Commands and
// subcommands flagged noscript never get here: exec answers Redis's
// refusal first. Each row is proven by difftest's lua_refused.yaml.
//
//   - CLUSTER (every subcommand), READONLY, READWRITE, ASKING: the error of
//     a server without cluster support, which the corpus's servers are (the
//     engine's cluster strictness is about keys, not these commands);
//   - SLOWLOG RESET and MEMORY PURGE: OK; SLOWLOG GET's count and MEMORY
//     USAGE's SAMPLES errors; MEMORY USAGE of a missing key: nil;
//   - PUBSUB NUMPAT, NUMSUB, CHANNELS, SHARDNUMSUB, SHARDCHANNELS with no
//     subscriber declared: nobody listens offline;
//   - DUMP of a missing key: nil; RESTORE's option, TTL, BUSYKEY and
//     payload-footer errors (RDB version and CRC64);
//   - PFSELFTEST: OK; PFDEBUG's missing-key and type errors.

// CodeServerState is the RunError code of a command whose reply is the
// state of a running server (INFO, LASTSAVE, SLOWLOG GET, MEMORY USAGE of
// a key, DUMP of a key, ...): no offline run can know it.
const CodeServerState = "server-state"

func serverState(format string, args ...any) *RunError {
	re := NotImplemented(format, args...)
	re.Code = CodeServerState
	re.Msg = "depends on the server's state: " + strings.TrimPrefix(re.Msg, "not implemented offline: ")
	return re
}

// adminPartial says, for the coverage table, what of each command below
// is answered and what is a RunError.
var adminPartial = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"cluster":        "answered: a server without cluster support refuses every subcommand",
		"readonly":       "answered: a server without cluster support refuses it (Valkey 8.0+: OK)",
		"readwrite":      "answered: a server without cluster support refuses it (Valkey 8.0+: OK)",
		"asking":         "answered: a server without cluster support refuses it",
		"slowlog":        "RESET and argument errors answered; GET and LEN are the server's slow log (server-state)",
		"memory":         "PURGE, USAGE of a missing key and argument errors answered; the allocator's figures are server-state",
		"pubsub":         "answered while no subscriber is declared (nobody listens offline); declared subscribers are server-state",
		"dump":           "DUMP of a missing key answered; an RDB payload is not serialised (server-state)",
		"restore":        "option, TTL, BUSYKEY and payload-footer (version, CRC64) errors answered; a valid payload is not parsed",
		"restore-asking": "as RESTORE",
		"pfselftest":     "answered: OK",
		"pfdebug":        "missing-key and type errors answered; the registers are not emulated",
		"info":           "server-state: statistics and configuration of the running server",
		"lastsave":       "server-state: the time of the server's last save",
		"lolwut":         "argument errors answered; the art is not emulated",
		"migrate":        "server-state: moves keys to another server",
		"wait":           "answered as a server without replicas: 0 (Redis 7.0 refuses it in scripts: noscript)",
		"waitaof":        "answered as a server without replicas or appendonly",
	}
}}

func registerAdmin() {
	clusterOff := func(*Server, Script, []string) (Reply, error) {
		return ErrorReply("ERR This instance has cluster support disabled"), nil
	}
	registerIn("asking", noKeys, clusterOff)
	registerIn("cluster", noKeys, func(e *Server, sc Script, a []string) (Reply, error) {
		if e.t.data.keyslotStandalone && len(a) == 3 && strings.EqualFold(a[1], "keyslot") {
			return IntReply(int64(slot.Of(a[2]))), nil
		}
		return clusterOff(e, sc, a)
	})
	for _, n := range []string{"readonly", "readwrite"} {
		registerIn(n, noKeys, func(e *Server, sc Script, a []string) (Reply, error) {
			if e.t.data.readonlyStandalone {
				return okReply, nil
			}
			return clusterOff(e, sc, a)
		})
	}
	registerIn("slowlog", noKeys, cmdSlowlog)
	registerIn("wait", noKeys, cmdWait)
	registerIn("memory", func(a []string) []string {
		if len(a) >= 3 && strings.EqualFold(a[1], "usage") {
			return a[2:3]
		}
		return nil
	}, cmdMemory)
	registerIn("pubsub", noKeys, cmdPubsub)
	registerIn("dump", firstKey, func(e *Server, _ Script, a []string) (Reply, error) {
		if e.db.get(a[1]) == nil {
			return NilReply(), nil
		}
		return Reply{}, serverState("DUMP of an existing key: an RDB payload")
	})
	registerIn("restore", firstKey, cmdRestore)
	registerIn("restore-asking", firstKey, cmdRestore)
	registerIn("pfselftest", noKeys, func(*Server, Script, []string) (Reply, error) { return okReply, nil })
	registerIn("pfdebug", func(a []string) []string { return a[2:3] }, func(e *Server, _ Script, a []string) (Reply, error) {
		v := e.db.get(a[2])
		if v == nil {
			return ErrorReply("ERR The specified key does not exist"), nil
		}
		if v.kind != kindString || !isHLL(v.str) {
			return errHLLType, nil
		}
		return Reply{}, NotImplemented("PFDEBUG %s", strings.ToUpper(a[1]))
	})
	registerIn("info", noKeys, func(*Server, Script, []string) (Reply, error) {
		return Reply{}, serverState("INFO")
	})
	registerIn("lastsave", noKeys, func(*Server, Script, []string) (Reply, error) {
		return Reply{}, serverState("LASTSAVE")
	})
	registerIn("migrate", noKeys, func(*Server, Script, []string) (Reply, error) {
		return Reply{}, serverState("MIGRATE")
	})
	registerIn("lolwut", noKeys, func(_ *Server, _ Script, a []string) (Reply, error) {
		// lolwutCommand reads VERSION only as its first argument.
		if len(a) >= 3 && strings.EqualFold(a[1], "version") {
			if _, ok := parseInt(a[2]); !ok {
				return errNotInt, nil
			}
		}
		return Reply{}, NotImplemented("LOLWUT")
	})
}

// ErrSubcommandSyntax is Redis's addReplySubcommandSyntaxError: the reply
// to a container command's subcommand (args[1]) given a wrong number of
// arguments.
func ErrSubcommandSyntax(args []string) Reply { return subSyntax(args) }

// subSyntax is addReplySubcommandSyntaxError.
func subSyntax(a []string) Reply {
	return errorf("unknown subcommand or wrong number of arguments for '%s'. Try %s HELP.", cArg(a[1], 128), strings.ToUpper(cTrunc(a[0])))
}

func cmdSlowlog(_ *Server, _ Script, a []string) (Reply, error) {
	sub := strings.ToLower(a[1])
	switch {
	case sub == "reset" && len(a) == 2:
		return okReply, nil
	case sub == "get" && (len(a) == 2 || len(a) == 3):
		if len(a) == 3 {
			if n, ok := parseInt(a[2]); !ok || n < -1 {
				return ErrorReply("ERR count should be greater than or equal to -1"), nil
			}
		}
		return Reply{}, serverState("SLOWLOG GET: the server's slow log")
	case sub == "len" && len(a) == 2:
		return Reply{}, serverState("SLOWLOG LEN: the server's slow log")
	case sub == "help" && len(a) == 2:
		return Reply{}, NotImplemented("SLOWLOG HELP")
	}
	return subSyntax(a), nil
}

func cmdMemory(e *Server, _ Script, a []string) (Reply, error) {
	sub := strings.ToLower(a[1])
	switch {
	case sub == "usage" && len(a) >= 3:
		for j := 3; j < len(a); j++ {
			if !strings.EqualFold(a[j], "samples") || j+1 >= len(a) {
				return errSyntax, nil
			}
			n, ok := parseInt(a[j+1])
			if !ok {
				return errNotInt, nil
			}
			if n < 0 {
				return errSyntax, nil
			}
			j++
		}
		if e.db.get(a[2]) == nil {
			return NilReply(), nil
		}
		return Reply{}, serverState("MEMORY USAGE: the allocator's figures")
	case sub == "purge" && len(a) == 2:
		return okReply, nil
	case (sub == "stats" || sub == "malloc-stats" || sub == "doctor") && len(a) == 2:
		return Reply{}, serverState("MEMORY %s: the allocator's figures", strings.ToUpper(sub))
	case sub == "help" && len(a) == 2:
		return Reply{}, NotImplemented("MEMORY HELP")
	}
	return subSyntax(a), nil
}

// cmdPubsub answers PUBSUB while no subscriber is declared: nobody
// listens to the offline engine.
func cmdPubsub(e *Server, _ Script, a []string) (Reply, error) {
	sub := strings.ToLower(a[1])
	if sub == "help" && len(a) == 2 {
		return Reply{}, NotImplemented("PUBSUB HELP")
	}
	if len(e.subscribers) > 0 {
		return Reply{}, serverState("PUBSUB %s with declared subscribers", strings.ToUpper(sub))
	}
	switch {
	case (sub == "channels" || sub == "shardchannels") && (len(a) == 2 || len(a) == 3):
		return ArrayReply(), nil
	case sub == "numsub" || sub == "shardnumsub":
		out := make([]Reply, 0, 2*(len(a)-2))
		for _, ch := range a[2:] {
			out = append(out, BulkReply(ch), IntReply(0))
		}
		return ArrayReply(out...), nil
	case sub == "numpat" && len(a) == 2:
		return IntReply(0), nil
	}
	return subSyntax(a), nil
}

// crcJones is the table of Redis's crc64 (Jones polynomial, reflected, no
// final xor), built on first use. hash/crc64 computes the same
// (TestRedisCRC64), but its package initialiser would run in every process.
var crcJones = lazy.Value[*[256]uint64]{New: func() *[256]uint64 {
	t := new([256]uint64)
	for i := range t {
		crc := uint64(i)
		for range 8 {
			if crc&1 == 1 {
				crc = crc>>1 ^ 0x95ac9329ac4bc9b5
			} else {
				crc >>= 1
			}
		}
		t[i] = crc
	}
	return t
}}

func redisCRC64(p []byte) uint64 {
	t := crcJones.Get()
	var crc uint64
	for _, b := range p {
		crc = t[byte(crc)^b] ^ crc>>8
	}
	return crc
}

// cmdRestore answers RESTORE's errors up to the payload's footer (7.0
// cluster.c restoreCommand, verifyDumpPayload); a payload whose footer is
// sound would have to be parsed.
func cmdRestore(e *Server, _ Script, a []string) (Reply, error) {
	replace, idle, freq := false, false, false
	for j := 4; j < len(a); j++ {
		more := len(a) - j - 1
		switch w := strings.ToLower(a[j]); {
		case w == "replace":
			replace = true
		case w == "absttl":
		case w == "idletime" && more >= 1 && !freq:
			n, ok := parseInt(a[j+1])
			if !ok {
				return errNotInt, nil
			}
			if n < 0 {
				return ErrorReply("ERR Invalid IDLETIME value, must be >= 0"), nil
			}
			idle = true
			j++
		case w == "freq" && more >= 1 && !idle:
			n, ok := parseInt(a[j+1])
			if !ok {
				return errNotInt, nil
			}
			if n < 0 || n > 255 {
				return ErrorReply("ERR Invalid FREQ value, must be >= 0 and <= 255"), nil
			}
			freq = true
			j++
		default:
			return errSyntax, nil
		}
	}
	if !replace && e.db.get(a[1]) != nil {
		return ErrorReply("BUSYKEY Target key name already exists."), nil
	}
	ttl, ok := parseInt(a[2])
	if !ok {
		return errNotInt, nil
	}
	if ttl < 0 {
		return ErrorReply("ERR Invalid TTL value, must be >= 0"), nil
	}
	p := []byte(a[3])
	if len(p) < 10 || redisCRC64(p[:len(p)-8]) != binary.LittleEndian.Uint64(p[len(p)-8:]) {
		return ErrorReply("ERR DUMP payload version or checksum are wrong"), nil
	}
	return Reply{}, NotImplemented("RESTORE of an RDB payload")
}

// commandGetkeys is COMMAND GETKEYS (getKeysSubcommandImpl): the keys of
// argv by the target's command table.
func commandGetkeys(e *Server, argv []string) Reply {
	top, ok := e.t.Command(strings.ToLower(argv[0]))
	c := top
	if ok && len(top.Subcommands) > 0 && len(argv) >= 2 {
		c, ok = top.Sub(strings.ToLower(argv[1]))
	}
	switch {
	case !ok:
		return ErrorReply("ERR Invalid command specified")
	case !c.HasKeys():
		return ErrorReply("ERR The command has no key arguments")
	case !c.ArityOK(len(argv)):
		return ErrorReply("ERR Invalid number of arguments specified for command")
	}
	pos := top.Keys(argv)
	if len(pos) == 0 && !c.HasFlag("no_mandatory_keys") {
		return ErrorReply("ERR Invalid arguments specified for command")
	}
	out := make([]Reply, len(pos))
	for i, p := range pos {
		out[i] = BulkReply(argv[p])
	}
	return ArrayReply(out...)
}

// waitTimeout is getTimeoutFromObjectOrReply in milliseconds.
func waitTimeout(e *Server, s string) *Reply {
	ms, ok := parseInt(s)
	if !ok {
		r := ErrorReply("ERR timeout is not an integer or out of range")
		return &r
	}
	if ms < 0 {
		return &errTimeoutNeg
	}
	return timeoutDeadline(e, ms)
}

// cmdWait is WAIT on a server without replicas: no replica acknowledges,
// so a script (which may not block; Redis 7.2+ lets scripts call WAIT)
// and a client asking for none get 0 at once; a client asking for
// replicas would wait for ones that do not exist.
func cmdWait(e *Server, sc Script, a []string) (Reply, error) {
	n, ok := parseInt(a[1])
	if !ok {
		return errNotInt, nil
	}
	if errr := waitTimeout(e, a[2]); errr != nil {
		return *errr, nil
	}
	if n > 0 && sc == nil {
		return Reply{}, NotImplemented("WAIT would block (no replica acknowledges offline)")
	}
	return IntReply(0), nil
}

// waitaofHandlers are the commands of this file Redis 7.2 added: the
// targets from 7.2 on (and every Valkey) take them (target.go).
func waitaofHandlers() map[string]handler {
	return map[string]handler{"waitaof": {keys: noKeys, runIn: cmdWaitaof}}
}

// cmdWaitaof is WAITAOF on a server without replicas and without
// appendonly: numlocal 1 is refused, and nothing acknowledges.
func cmdWaitaof(e *Server, sc Script, a []string) (Reply, error) {
	local, ok := parseInt(a[1])
	if !ok {
		return errNotInt, nil
	}
	if local < 0 || local > 1 {
		return ErrorReply("ERR value is out of range, value must between 0 and 1"), nil
	}
	n, ok := parseInt(a[2])
	if !ok {
		return errNotInt, nil
	}
	if n < 0 {
		return errNotPositive, nil
	}
	if errr := waitTimeout(e, a[3]); errr != nil {
		return *errr, nil
	}
	if local == 1 {
		return ErrorReply("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled."), nil
	}
	if n > 0 && sc == nil {
		return Reply{}, NotImplemented("WAITAOF would block (no replica acknowledges offline)")
	}
	return ArrayReply(IntReply(0), IntReply(0)), nil
}
