package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
)

// Facts is what the value tracker finds in one script: every command call
// with what is known of its arguments, every global read and write, every
// KEYS/ARGV index, and the ARGV checks the control flow passes.
type Facts struct {
	Calls        []*Call
	GlobalReads  []Ref
	GlobalWrites []Ref
	BadFields    []Ref // redis.cal: a field the library table lacks
	Lua52        []Ref // goto and labels
	KeyRefs      []IndexRef
	ArgRefs      []IndexRef
	AllKeys      bool // KEYS is indexed dynamically or escapes whole
	AllArgs      bool
	Randoms      []Ref // math.random calls
	// WriteChecks pairs a write with an ARGV check that follows it.
	WriteChecks []WriteCheck
	// Unordered are returns and writes of a reply whose order the server
	// does not define (SMEMBERS, HKEYS, ...), not sorted first.
	Unordered []Unordered
	// Replies are redis.error_reply / redis.status_reply texts and {err =
	// ...} / {ok = ...} tables built from KEYS or ARGV.
	Replies []ReplyText
}

// Unordered is a return or a write of a value in a server-defined order.
type Unordered struct {
	Pos  Pos
	From string // the command whose reply it is
	Sink string // "returned" or the write command
	Path []Pos
}

// ReplyText is a status or error reply whose text comes from the input.
type ReplyText struct {
	Pos  Pos
	Kind string // redis.error_reply, redis.status_reply, {err = ...}, {ok = ...}
	V    Value
	// within: as Call.within.
	within []*ast.FunctionExpr
}

// Ref is a name at a position.
type Ref struct {
	Name string
	Pos  Pos
}

// IndexRef is KEYS[n] or ARGV[n]; N is -1 when n is not a literal.
type IndexRef struct {
	N   int
	Pos Pos
}

// WriteCheck is a write command that runs before an ARGV check, or before
// an operation that raises on a bad argument (Raise names it).
type WriteCheck struct {
	Write *Call
	Check Pos
	Raise string // "" for a check; "a comparison", "arithmetic", "INCRBY"
	Args  uint64 // the unchecked arguments a Raise operation reads
}

// Call is one redis.call / redis.pcall (also through pcall(redis.call, ...)
// and local aliases).
type Call struct {
	Pos  Pos
	Name string // upper case; "" when the name is not a literal
	Args []Arg  // the arguments after the command name
	// Open: more arguments follow from a multi-value expression
	// (unpack(...), a call, ...) whose count is unknown.
	Open   bool
	InLoop bool
	// Via is the outermost call site when the call was reached by
	// following a call of a local function; zero otherwise. Path is every
	// call site from the outermost in.
	Via  Pos
	Path []Pos
	// Checked is the set of ARGV indexes (bit n for ARGV[n], bit 0 for a
	// dynamic index) checked on every path to the call.
	Checked uint64
	info    *cmdInfo
	// body is the local function being followed for a call site (nil at
	// the top level); within lists the functions walked on their own
	// (parameters unknown) that hold the call.
	body   *ast.FunctionExpr
	within []*ast.FunctionExpr
	// names is "LPUSH/RPUSH" when the name is one of several literals
	// (one Call per name): findings about an argument use it, so that
	// they are one per cause.
	names string
}

// label names the command for a finding about one of its arguments.
func (c *Call) label() string {
	if c.names != "" {
		return c.names
	}
	return c.Name
}

// Arg is one argument of a call.
type Arg struct {
	Pos Pos
	V   Value
	// Direct is true when the argument is written KEYS[...] itself.
	Direct bool
}

// Origin is where a value may come from; a value may have several.
type Origin uint8

// Origins.
const (
	FromKeys    Origin = 1 << iota // an element of KEYS
	FromArgv                       // an element of ARGV, or computed from one
	FromLiteral                    // a literal string, number, boolean or nil
	FromBuilt                      // computed: concatenation, string.*, arithmetic
	FromReply                      // a reply of redis.call
	FromUnknown                    // a function parameter, a user function's result
)

// Value is what the tracker knows of a value.
type Value struct {
	O          Origin
	Keys, Args uint64 // KEYS/ARGV indexes it derives from (bit 0: dynamic)
	Lit        string // the literal text when IsLit
	IsLit      bool
	How        string // how a built value was made, for messages
	builtin    string // a known global: "redis", "redis.call", "KEYS", ...
	lenOf      string // #KEYS or #ARGV
	errReply   bool   // redis.error_reply(...) or {err = ...}
	// alts are the literal texts a value may have when there are several
	// ('LPUSH' or 'RPUSH' through `a and 'X' or 'Y'`, branches, a table of
	// literals); O is FromLiteral.
	alts []string
	// litNotNil: the literal part may be something other than nil and
	// false, so `if x then` does not drop it.
	litNotNil bool
	num       bool   // certainly a number: arithmetic on it cannot raise
	numOrNil  bool   // a number or nil: tonumber(...)
	unord     string // in the order of this command's reply (SMEMBERS ...)
	// leak: the order itself is in the value (members[1], a string made
	// with table.concat or cjson.encode), not only the collection.
	leak  bool
	paged bool // a SCAN reply, {cursor, elements}: indexing it is structure
	clean bool // as text, holds no CR or LF: a number, a fixed text
	// at is where the value was made: a literal, KEYS[n], a concatenation.
	at Pos
	fn *funcVal
	// fields holds, for a table, the values of the fields with a literal
	// name ({key = KEYS[1]}, t.key = ..., and positional fields as "1",
	// "2", ...). The table's own value is the join of every element it may
	// hold; the map is never changed once built.
	fields map[string]Value
}

// funcVal is a function value whose body is known: a local function or a
// function expression, with the scope it was defined in.
type funcVal struct {
	expr *ast.FunctionExpr
	sc   *scope
}

func join(a, b Value) Value {
	v := Value{O: a.O | b.O, Keys: a.Keys | b.Keys, Args: a.Args | b.Args, How: a.How,
		litNotNil: a.litNotNil || b.litNotNil, num: a.num && b.num, numOrNil: (a.num || a.numOrNil) && (b.num || b.numOrNil),
		unord: a.unord, at: a.at, clean: a.clean && b.clean, leak: a.leak || b.leak}
	if v.How == "" {
		v.How = b.How
	}
	if v.unord == "" {
		v.unord = b.unord
	}
	if v.at.Line == 0 {
		v.at = b.at
	}
	if a.IsLit && b.IsLit && a.Lit == b.Lit {
		v.Lit, v.IsLit = a.Lit, true
	} else if la, lb := litSet(a), litSet(b); la != nil && lb != nil && len(la)+len(lb) <= maxAlts {
		v.alts = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(la), lb...))))
	}
	if a.builtin == b.builtin {
		v.builtin = a.builtin
	}
	if a.fn == b.fn {
		v.fn = a.fn
	}
	if a.fields != nil && b.fields != nil {
		v.fields = map[string]Value{}
		for k, x := range a.fields {
			if y, ok := b.fields[k]; ok {
				v.fields[k] = join(x, y)
			}
		}
	}
	return v
}

// litSet returns the literal texts v may have, or nil when v may be
// something else.
func litSet(v Value) []string {
	switch {
	case v.O != FromLiteral:
		return nil
	case v.IsLit:
		return []string{v.Lit}
	}
	return v.alts
}

// maxAlts bounds the literal texts a value keeps.
const maxAlts = 16

// narrow drops the nil (and false) a value may be, after `if x then`,
// `x ~= nil` or `type(x) == 'string'` passed.
func narrow(v Value) Value {
	if v.numOrNil {
		v.num = true // tonumber(x) that is not nil
	}
	if v.O&FromLiteral != 0 && v.O != FromLiteral && !v.litNotNil {
		v.O &^= FromLiteral
		if v.How == "nil" || v.How == "false" {
			v.How = ""
		}
	}
	return v
}

// maxFields bounds the named fields a store keeps (each store copies the
// map), so that a script of thousands of t.f = v lines stays linear; past
// it, reads see the table's joined value.
const maxFields = 64

// store returns table tbl after tbl[key] = v (field is key's literal text
// when known): the table's value joins v, the named field is replaced, and
// a store under an unknown key forgets the named fields. An empty table
// (O == 0) takes v's origins.
func store(tbl Value, field string, known bool, v Value) Value {
	elem := v
	elem.alts = litSet(v)
	elem.IsLit, elem.Lit, elem.builtin, elem.lenOf, elem.fn, elem.fields = false, "", "", "", nil, nil
	out := join(tbl, elem)
	if tbl.O == 0 {
		out.How, out.alts = elem.How, elem.alts
	}
	out.IsLit, out.Lit, out.builtin, out.lenOf, out.fn, out.errReply = false, "", "", "", nil, tbl.errReply
	out.fields = nil
	if known && len(tbl.fields) < maxFields {
		out.fields = make(map[string]Value, len(tbl.fields)+1)
		for k, x := range tbl.fields {
			out.fields[k] = x
		}
		out.fields[field] = v
	}
	return out
}

// boolOf is the boolean computed from v: it remembers the arguments and
// replies it looks at, so that `local ok = tonumber(ARGV[1]) ~= nil` then
// `if not ok then ... end` checks ARGV[1], and a boolean computed from a
// reply is not an argument check.
func boolOf(v Value, how string) Value {
	return Value{O: FromLiteral | v.O&FromReply, Args: v.Args, How: how, litNotNil: true}
}

// positive reports whether v is a number literal greater than zero.
func positive(v Value) bool {
	if !v.IsLit || v.O != FromLiteral || !strings.HasPrefix(v.How, "the number ") {
		return false
	}
	f, err := strconv.ParseFloat(v.Lit, 64)
	return err == nil && f > 0
}

// quote names a literal string for messages, shortened when long.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return "the literal " + strconv.Quote(s)
}

func bit(n int) uint64 {
	if n < 1 || n > 63 {
		return 1
	}
	return 1 << uint(n)
}
