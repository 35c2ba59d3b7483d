package lint

import (
	"slices"
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// calleeBuiltin returns the known global a plain call's function is, by
// name (locals shadow globals), without evaluating anything.
func (t *tracker) calleeBuiltin(call *ast.FuncCallExpr, sc *scope) string {
	if id, ok := call.Func.(*ast.IdentExpr); ok && sc.lookup(id.Value) == nil && redisGlobals.Get()[id.Value] {
		return id.Value
	}
	return ""
}

func (t *tracker) call(e *ast.FuncCallExpr, sc *scope, st *state) Value {
	if e.Receiver != nil {
		recv := t.expr(e.Receiver, sc, st)
		t.loc(e, e.Line(), parse.TIdent, e.Method)
		args := make([]Value, len(e.Args))
		for i, a := range e.Args {
			args[i] = t.expr(a, sc, st)
		}
		t.escape(args)
		v := recv
		for _, a := range args {
			v = join(v, a)
		}
		v.O |= FromBuilt
		v.How, v.IsLit, v.Lit, v.builtin, v.at = "string method "+e.Method, false, "", "", Pos{}
		v.clean = e.Method == "len" || e.Method == "gsub" && len(args) > 0 && stripsCRLF(args[0])
		return v
	}
	fn := t.expr(e.Func, sc, st)
	args := make([]Arg, len(e.Args))
	for i, a := range e.Args {
		args[i] = Arg{V: t.expr(a, sc, st), Pos: t.posOf(a), Direct: isKeysIndex(a, sc)}
	}
	open := len(e.Args) > 0 && isMulti(e.Args[len(e.Args)-1])
	if fv := fn.fn; fv != nil && fn.builtin == "" {
		t.noteCall(fv.expr, args, open)
		if len(t.stack) < maxInline && t.inlines < maxInlines && !slices.Contains(t.stack, fv.expr) {
			t.inlines++
			return t.inline(t.posOf(e.Func), fv, args, open, st)
		}
		t.escape(values(args))
		return Value{O: FromUnknown}
	}
	switch fn.builtin {
	case "redis.call", "redis.pcall":
		return t.commands(t.posOf(e.Func), args, open, fn.builtin == "redis.call", st)
	case "table.sort":
		if len(e.Args) > 0 {
			if id, ok := e.Args[0].(*ast.IdentExpr); ok {
				if b := sc.lookup(id.Value); b != nil {
					if v, ok := st.get(b); ok {
						v.unord, v.leak = "", false
						st.set(b, v)
					}
				}
			}
		}
		return Value{O: FromLiteral, How: "nil"}
	case "redis.status_reply":
		if len(args) > 0 {
			t.replyText(fn.builtin, e.Args[0], args[0].V)
		}
		return Value{O: FromBuilt, How: "a status reply"}
	case "table.insert":
		if len(args) >= 2 {
			if id, ok := e.Args[0].(*ast.IdentExpr); ok {
				if b := sc.lookup(id.Value); b != nil {
					t.storeIn(b, "", false, args[len(args)-1].V, st)
				}
			}
		}
	case "pcall", "xpcall":
		if fn.builtin == "pcall" && len(args) > 0 && (args[0].V.builtin == "redis.call" || args[0].V.builtin == "redis.pcall") {
			return t.commands(args[0].Pos, args[1:], open, false, st)
		}
		t.escape(values(args))
		return Value{O: FromUnknown}
	case "tonumber", "tostring", "assert":
		if fn.builtin == "assert" && t.collect == nil {
			var m uint64
			reply := false
			for _, a := range args {
				m |= a.V.Args
				reply = reply || a.V.O&FromReply != 0
			}
			if m != 0 && !reply {
				t.check(t.posOf(e.Func), st)
				st.checked |= m
			}
		}
		if len(args) == 0 {
			return Value{O: FromLiteral, How: "nil"}
		}
		v := args[0].V
		v.builtin, v.lenOf = "", ""
		if fn.builtin == "tostring" && v.IsLit {
			return v
		}
		v.IsLit, v.Lit, v.alts = false, "", nil
		if fn.builtin == "tonumber" {
			v.numOrNil, v.unord, v.clean = !v.num, "", true
		}
		return v
	case "unpack", "ipairs", "pairs", "next", "table.getn":
		if len(args) == 0 {
			return Value{O: FromUnknown}
		}
		a := args[0].V
		switch a.builtin {
		case "KEYS":
			if fn.builtin != "table.getn" {
				t.allKeys++
			}
			if fn.builtin == "unpack" {
				return Value{O: FromKeys, Keys: 1}
			}
		case "ARGV":
			if fn.builtin != "table.getn" {
				t.allArgs++
			}
			if fn.builtin == "unpack" {
				return Value{O: FromArgv, Args: 1}
			}
		}
		if fn.builtin == "unpack" {
			a.builtin, a.IsLit, a.Lit = "", false, ""
		}
		return a
	case "redis.error_reply":
		if len(args) > 0 {
			t.replyText(fn.builtin, e.Args[0], args[0].V)
		}
		return Value{O: FromBuilt, How: "an error reply", errReply: true}
	case "math.random":
		t.f.Randoms = append(t.f.Randoms, Ref{Name: "math.random", Pos: t.posOf(e.Func)})
		t.randWithin = append(t.randWithin, slices.Clone(t.alone))
		return Value{O: FromBuilt, How: "math.random"}
	}
	t.escape(values(args))
	if fn.builtin != "" {
		// A library function: its result is computed from its arguments.
		v := Value{O: FromBuilt, How: fn.builtin}
		numeric := strings.HasPrefix(fn.builtin, "math.") || fn.builtin == "string.len" || fn.builtin == "table.getn"
		for _, a := range args {
			v.O |= a.V.O &^ FromLiteral
			v.Args |= a.V.Args
			v.Keys |= a.V.Keys
			if v.unord == "" && !numeric {
				v.unord = a.V.unord
				v.leak = v.unord != "" && (a.V.leak || serializers.Get()[fn.builtin])
			}
		}
		v.num, v.clean = numeric, numeric
		if fn.builtin == "string.gsub" && len(args) >= 2 && stripsCRLF(args[1].V) {
			v.clean = true // string.gsub(s, '[\r\n]', '') cleans text for a reply
		}
		if fn.builtin == "math.max" && slices.ContainsFunc(args, func(a Arg) bool { return positive(a.V) }) {
			// math.max(1, tonumber(ARGV[1]) or 60) is a number of at least
			// 1, or it raises: a clamp checks the argument.
			v.O &^= FromArgv
			v.Args = 0
		}
		return v
	}
	return Value{O: FromUnknown}
}

func values(args []Arg) []Value {
	out := make([]Value, len(args))
	for i, a := range args {
		out[i] = a.V
	}
	return out
}

// escape notes KEYS or ARGV handed whole to a function: any index may be
// read there.
func (t *tracker) escape(args []Value) {
	for _, a := range args {
		switch a.builtin {
		case "KEYS":
			t.allKeys++
		case "ARGV":
			t.allArgs++
		}
	}
}

// commands records a redis.call (raises: not pcall) whose name may be one
// of several literals ('LPUSH' or 'RPUSH'): one Call per name.
func (t *tracker) commands(pos Pos, args []Arg, open, raises bool, st *state) Value {
	if len(args) == 0 || args[0].V.IsLit || len(litSet(args[0].V)) < 2 {
		return t.command(pos, args, open, raises, st)
	}
	var v Value
	names := litSet(args[0].V)
	label := strings.ToUpper(strings.Join(names, "/"))
	for i, name := range names {
		one := slices.Clone(args)
		one[0].V = Value{O: FromLiteral, Lit: name, IsLit: true, How: quote(name), litNotNil: true}
		r := t.command(pos, one, open, raises, st)
		t.f.Calls[len(t.f.Calls)-1].names = label
		if i == 0 {
			v = r
		} else {
			v = join(v, r)
		}
	}
	return v
}

func (t *tracker) command(pos Pos, args []Arg, open, raises bool, st *state) Value {
	t.escape(values(args))
	c := &Call{Pos: pos, Open: open, InLoop: t.loop > 0, Checked: st.checked}
	if len(t.via) > 0 {
		c.Via, c.Path = t.via[0], slices.Clone(t.via)
		c.body = t.stack[len(t.stack)-1]
	}
	if len(t.alone) > 0 {
		c.within = slices.Clone(t.alone)
	}
	if len(args) > 0 {
		if a := args[0].V; a.IsLit && a.O == FromLiteral {
			c.Name = strings.ToUpper(a.Lit)
			c.info = lookupCommand(c.Name)
		}
		c.Args = args[1:]
	} else {
		c.Open = true
	}
	if raises && len(st.writes) > 0 {
		// A number argument Redis refuses makes redis.call raise.
		var m uint64
		for _, i := range numberArgs(c) {
			m |= mayRaise(c.Args[i-1].V, st)
		}
		if m != 0 {
			t.raise(pos, c.Name, m, st)
		}
	}
	if c.info != nil && c.info.write {
		if orderSinks.Get()[c.Name] {
			for _, a := range c.Args {
				if a.V.unord != "" && len(t.alone) == 0 {
					t.f.Unordered = append(t.f.Unordered, Unordered{Pos: a.Pos, From: a.V.unord, Sink: c.Name, Path: c.Path})
					break
				}
			}
		}
		st.writes = append(st.writes, c)
	}
	t.f.Calls = append(t.f.Calls, c)
	v := Value{O: FromReply, How: "a reply of " + c.Name}
	if unorderedReplies.Get()[c.Name] && (!countedReplies.Get()[c.Name] || len(c.Args) >= 2) {
		v.unord = c.Name
		v.paged = strings.HasSuffix(c.Name, "SCAN")
	}
	return v
}

// unorderedReplies are the commands whose reply order the server does not
// define; orderSinks the writes where the order of their arguments is kept.
var (
	unorderedReplies = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"SMEMBERS": true, "HKEYS": true, "HVALS": true, "HGETALL": true,
			"SSCAN": true, "HSCAN": true, "SCAN": true, "SRANDMEMBER": true, "SPOP": true, "KEYS": true,
			"SINTER": true, "SUNION": true, "SDIFF": true, "HRANDFIELD": true}
	}}
	// serializers turn a collection into one value in its order.
	serializers = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"table.concat": true, "cjson.encode": true, "cmsgpack.pack": true, "struct.pack": true}
	}}
	// countedReplies give one element unless a count follows the key.
	countedReplies = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"SRANDMEMBER": true, "SPOP": true, "HRANDFIELD": true}
	}}
	orderSinks = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"RPUSH": true, "LPUSH": true, "RPUSHX": true, "LPUSHX": true, "LINSERT": true,
			"LSET": true, "XADD": true, "SET": true, "SETEX": true, "PSETEX": true, "SETNX": true, "GETSET": true,
			"APPEND": true, "SETRANGE": true, "MSET": true, "MSETNX": true, "PUBLISH": true, "SPUBLISH": true}
	}}
)

// numberArgs returns the positions of a call's arguments that Redis
// refuses unless they are numbers (TTL arguments are unvalidated-ttl's).
func numberArgs(c *Call) []int {
	switch c.Name {
	case "INCRBY", "DECRBY", "INCRBYFLOAT", "ZINCRBY":
		if len(c.Args) >= 2 {
			return []int{2}
		}
	case "HINCRBY", "HINCRBYFLOAT":
		if len(c.Args) >= 3 {
			return []int{3}
		}
	}
	return nil
}

// isKeysIndex reports whether e is written KEYS[...] (the global KEYS).
func isKeysIndex(e ast.Expr, sc *scope) bool {
	x, ok := e.(*ast.AttrGetExpr)
	if !ok {
		return false
	}
	id, ok := x.Object.(*ast.IdentExpr)
	return ok && id.Value == "KEYS" && sc.lookup("KEYS") == nil
}

// replyText records a status or error reply text built from KEYS or ARGV.
func (t *tracker) replyText(kind string, e ast.Expr, v Value) {
	if v.clean || v.O&(FromArgv|FromKeys) == 0 {
		return
	}
	t.f.Replies = append(t.f.Replies, ReplyText{Pos: t.posOf(e), Kind: kind, V: v, within: slices.Clone(t.alone)})
}

// stripsCRLF reports whether a gsub pattern removes CR and LF: a class
// naming both, %c or %s.
func stripsCRLF(pat Value) bool {
	p := pat.Lit
	return pat.IsLit && (strings.Contains(p, "%c") || strings.Contains(p, "%s") || strings.ContainsRune(p, '\r') && strings.ContainsRune(p, '\n'))
}

// exits accumulates what the returns of an inlined function produce.
type exits struct {
	n       int
	v       Value
	checked uint64
	writes  []*Call
	base    int // len(caller's writes): every exit starts with those
}

func (x *exits) add(v Value, st *state) {
	if x.n == 0 {
		x.v, x.checked = v, st.checked
	} else {
		x.v = join(x.v, v)
		x.checked &= st.checked
	}
	switch {
	case x.n == 0:
		x.writes = st.writes
	case len(x.writes) >= x.base && len(st.writes) >= x.base && (x.base == 0 || x.writes[x.base-1] == st.writes[x.base-1]):
		// Both start with the caller's writes; add what this exit added.
		x.writes = append(x.writes[:len(x.writes):len(x.writes)], st.writes[x.base:]...)
	default: // a check in the function reported and dropped writes
		for _, w := range st.writes {
			if !slices.Contains(x.writes, w) {
				x.writes = append(x.writes, w)
			}
		}
	}
	x.n++
}
