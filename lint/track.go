package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
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

type binding struct{ name string }

type scope struct {
	parent *scope
	names  map[string]*binding
}

func (s *scope) lookup(name string) *binding {
	for ; s != nil; s = s.parent {
		if b, ok := s.names[name]; ok {
			return b
		}
	}
	return nil
}

func (s *scope) declare(name string) *binding {
	b := &binding{name: name}
	s.names[name] = b
	return b
}

func (s *scope) child() *scope { return &scope{parent: s, names: map[string]*binding{}} }

// state is the flow state at one point of the script. A branch's state is
// an overlay on its parent's: vals holds only the bindings assigned in the
// branch, so branching costs nothing and merging costs what the branches
// assigned. A parent is not changed while an overlay on it is in use.
type state struct {
	parent  *state
	vals    map[*binding]Value
	checked uint64
	dead    bool
	errExit bool    // dead because the path raised or returned an error reply
	writes  []*Call // writes on some path here, not yet followed by a check
	base    int     // len(parent.writes) when the branch started
}

func (s *state) get(b *binding) (Value, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.vals[b]; ok {
			return v, true
		}
	}
	return Value{}, false
}

func (s *state) set(b *binding, v Value) { s.vals[b] = v }

// branch returns an overlay state for a path starting at s.
func (s *state) branch() *state {
	return &state{parent: s, vals: map[*binding]Value{}, checked: s.checked, dead: s.dead, writes: s.writes[:len(s.writes):len(s.writes)], base: len(s.writes)}
}

// merge joins the live paths among outs, overlays on s, into s. When no
// path is live, s is dead.
func (s *state) merge(outs ...*state) {
	var live []*state
	for _, o := range outs {
		if !o.dead {
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		s.dead, s.errExit = true, true
		for _, o := range outs {
			s.errExit = s.errExit && o.errExit
		}
		return
	}
	assigned := map[*binding]bool{}
	for _, o := range live {
		for b := range o.vals {
			assigned[b] = true
		}
	}
	for b := range assigned {
		var v Value
		for i, o := range live {
			w, ok := o.get(b)
			if !ok {
				w = Value{O: FromUnknown}
			}
			if i == 0 {
				v = w
			} else {
				v = join(v, w)
			}
		}
		s.vals[b] = v
	}
	s.checked = live[0].checked
	s.writes = live[0].writes
	for _, o := range live[1:] {
		s.checked &= o.checked
		// Every branch starts from the same writes; add what o added.
		if o.base <= len(o.writes) {
			s.writes = append(s.writes[:len(s.writes):len(s.writes)], o.writes[o.base:]...)
		}
	}
	s.dead, s.errExit = false, false
}

// mentions collects what a condition looks at.
type mentions struct {
	args  uint64
	argc  bool // #ARGV
	reply bool
}

type tracker struct {
	p        *Pass
	f        *Facts
	loop     int
	collect  *mentions
	pos      map[ast.Expr]Pos
	walked   []ast.Expr // posOf's path, kept to reuse its array
	depth    int        // expressions being walked (maxExprDepth)
	locs     map[locKey]Pos
	reported map[*Call]bool
	// inlining: the functions being walked for a call site, innermost
	// last, and what their returns produced.
	stack []*ast.FunctionExpr
	via   []Pos // the call sites of the functions on stack
	ret   *exits
	// inlines counts the calls followed so far: past maxInlines calls are
	// no longer followed, which bounds the work on pathological scripts.
	inlines int
	// alone are the functions being walked on their own, outermost first;
	// uses counts, per local function, its reads and the calls followed.
	alone []*ast.FunctionExpr
	uses  map[*ast.FunctionExpr]*fnUse
	// guard, while an if condition is evaluated, holds the arguments each
	// comparison of it that constrains a value reads (an ordering, or an
	// equality with a number, or a string literal that is one).
	guard map[ast.Expr]uint64
	// randWithin holds, for each of f.Randoms, the functions walked on
	// their own around it (as Call.within).
	randWithin [][]*ast.FunctionExpr
	// allKeys and allArgs count the places that index KEYS or ARGV
	// dynamically or let them escape whole (Facts.AllKeys, AllArgs).
	allKeys, allArgs int
	// params collects, per local function, the command names its
	// parameters receive at its call sites; seeds are what an earlier
	// pass found there, the values a function walked on its own starts
	// its parameters with (commandSeeds).
	params map[*ast.FunctionExpr]*paramNames
	seeds  map[*ast.FunctionExpr]map[int]Value
	// walks holds, per function, what each walk of it on its own added
	// to the facts: a helper never called drops it.
	walks map[*ast.FunctionExpr][]factSpan
	// dead holds the local functions that never run (findDead).
	dead map[*ast.FunctionExpr]bool
}

// factSpan is the facts one walk of a function added: for each list, the
// length before and after the walk.
type factSpan struct{ from, to factLens }

// factLens are the lengths of the fact lists a never-called helper's own
// walk must not contribute to.
type factLens struct {
	globalReads, globalWrites, badFields, keyRefs, argRefs, unordered, allKeys, allArgs int
}

func (t *tracker) lens() factLens {
	f := t.f
	return factLens{len(f.GlobalReads), len(f.GlobalWrites), len(f.BadFields), len(f.KeyRefs), len(f.ArgRefs), len(f.Unordered), t.allKeys, t.allArgs}
}

// fnUse counts how a local function is used. When every read of its name
// is a call that was followed (reads == followed), all its call sites are
// known and its own walk, with unknown parameters, reports nothing.
type fnUse struct {
	named          bool // bound to a local name
	reads, follows int
	calls          int // reads that are calls, followed or not
	// readIn holds, per read, the functions being walked on their own
	// around it (empty for a read in code that runs).
	readIn [][]*ast.FunctionExpr
}

func (t *tracker) use(fn *ast.FunctionExpr) *fnUse {
	u := t.uses[fn]
	if u == nil {
		u = &fnUse{}
		t.uses[fn] = u
	}
	return u
}

// closed reports whether every call of fn is known and followed, or fn
// never runs.
func (t *tracker) closed(fn *ast.FunctionExpr) bool {
	u := t.uses[fn]
	return u != nil && u.named && u.reads == u.follows || t.dead[fn]
}

// findDead finds the local functions that never run: those whose every
// read lies in functions that never run, itself included (a helper never
// called, one called only from such a helper, one that only calls itself).
// It starts from every local function and keeps those no live read
// reaches, the largest such set.
func (t *tracker) findDead() {
	// A read makes its function live once every function around it is
	// live; need counts those not yet live, waiting lists the reads
	// around which each function is.
	type read struct {
		fn   *ast.FunctionExpr
		need int
	}
	live := map[*ast.FunctionExpr]bool{}
	waiting := map[*ast.FunctionExpr][]*read{}
	var work []*ast.FunctionExpr
	for fn, u := range t.uses {
		for _, in := range u.readIn {
			r := &read{fn: fn}
			for i, g := range in {
				// Only a local function can be dead: a function
				// expression (a callback, a table's method) may run.
				if gu := t.uses[g]; gu != nil && gu.named && !slices.Contains(in[:i], g) {
					r.need++
					waiting[g] = append(waiting[g], r)
				}
			}
			if r.need == 0 && !live[fn] {
				live[fn] = true
				work = append(work, fn)
			}
		}
	}
	for len(work) > 0 {
		g := work[len(work)-1]
		work = work[:len(work)-1]
		for _, r := range waiting[g] {
			if r.need--; r.need == 0 && !live[r.fn] {
				live[r.fn] = true
				work = append(work, r.fn)
			}
		}
	}
	t.dead = map[*ast.FunctionExpr]bool{}
	for fn, u := range t.uses {
		if u.named && !live[fn] {
			t.dead[fn] = true
		}
	}
}

// locKey identifies one token lookup of one syntax node, so walking a
// function body again (for another call site) finds the same positions.
type locKey struct {
	node any
	typ  int
	str  string
}

// loc returns the position of the token typ/str of node on line.
func (t *tracker) loc(node any, line, typ int, str string) Pos {
	k := locKey{node, typ, str}
	if p, ok := t.locs[k]; ok {
		return p
	}
	p := t.p.locate(line, typ, str)
	t.locs[k] = p
	return p
}

func track(p *Pass) *Facts {
	var seeds map[*ast.FunctionExpr]map[int]Value
	for pass := 0; ; pass++ {
		t := trackOnce(p, seeds)
		// A helper past the inlining depth is walked on its own, its
		// parameters unknown: a command name it takes from one is
		// dynamic there, even when every caller passes a literal. Walk
		// again with the names the callers pass, until nothing new is
		// learnt (a chain of helpers learns one link per pass).
		if pass == maxInline+2 || !t.dynamicAlone() {
			return t.f
		}
		next := t.commandSeeds()
		if seedsEqual(seeds, next) {
			return t.f
		}
		seeds = next
	}
}

func trackOnce(p *Pass, seeds map[*ast.FunctionExpr]map[int]Value) *tracker {
	t := &tracker{p: p, f: &Facts{}, pos: map[ast.Expr]Pos{}, locs: map[locKey]Pos{}, reported: map[*Call]bool{}, uses: map[*ast.FunctionExpr]*fnUse{}, walks: map[*ast.FunctionExpr][]factSpan{},
		params: map[*ast.FunctionExpr]*paramNames{}, seeds: seeds}
	st := &state{vals: map[*binding]Value{}}
	t.block(p.Chunk, (&scope{}).child(), st)
	t.findDead()
	t.dropClosed()
	t.dropNeverCalled()
	return t
}

// paramNames are the command names each parameter of a local function
// receives at its call sites; bad marks a parameter that receives
// anything else at some site.
type paramNames struct {
	names map[int][]string
	bad   map[int]bool
}

// noteCall records what a call of fn passes to its parameters.
func (t *tracker) noteCall(fn *ast.FunctionExpr, args []Arg, open bool) {
	t.use(fn).calls++
	if fn.ParList == nil {
		return
	}
	pn := t.params[fn]
	if pn == nil {
		pn = &paramNames{names: map[int][]string{}, bad: map[int]bool{}}
		t.params[fn] = pn
	}
	for i := range fn.ParList.Names {
		if i >= len(args) || open && i >= len(args)-1 {
			pn.bad[i] = true
			continue
		}
		lits := litSet(args[i].V)
		if len(lits) == 0 || slices.ContainsFunc(lits, func(s string) bool { return lookupCommand(strings.ToUpper(s)) == nil }) {
			pn.bad[i] = true
			continue
		}
		pn.names[i] = append(pn.names[i], lits...)
	}
}

// dynamicAlone reports whether a call with a computed command name was
// found in a function walked on its own.
func (t *tracker) dynamicAlone() bool {
	return slices.ContainsFunc(t.f.Calls, func(c *Call) bool { return c.Name == "" && c.names == "" && len(c.within) > 0 })
}

// commandSeeds are, per local function whose every read is a call, the
// parameters that receive a command name (a literal, or one of several) at
// every call site, with the names they receive.
func (t *tracker) commandSeeds() map[*ast.FunctionExpr]map[int]Value {
	out := map[*ast.FunctionExpr]map[int]Value{}
	for fn, pn := range t.params {
		u := t.uses[fn]
		if u == nil || !u.named || u.reads != u.calls {
			continue
		}
		for i, names := range pn.names {
			if pn.bad[i] {
				continue
			}
			names = slices.Compact(slices.Sorted(slices.Values(names)))
			if len(names) > maxAlts {
				continue
			}
			v := Value{O: FromLiteral, How: "a command name its callers pass", litNotNil: true, clean: true}
			if len(names) == 1 {
				v.IsLit, v.Lit = true, names[0]
			} else {
				v.alts = names
			}
			if out[fn] == nil {
				out[fn] = map[int]Value{}
			}
			out[fn][i] = v
		}
	}
	return out
}

func seedsEqual(a, b map[*ast.FunctionExpr]map[int]Value) bool {
	if len(a) != len(b) {
		return false
	}
	for fn, pa := range a {
		pb, ok := b[fn]
		if !ok || len(pa) != len(pb) {
			return false
		}
		for i, v := range pa {
			w, ok := pb[i]
			if !ok || !slices.Equal(litSet(v), litSet(w)) {
				return false
			}
		}
	}
	return true
}

// dropClosed forgets the calls found by walking a local function on its
// own when all its call sites are known: those calls were followed from
// each site with the real arguments, and a helper never called reports
// nothing.
func (t *tracker) dropClosed() {
	t.f.Replies = slices.DeleteFunc(t.f.Replies, func(r ReplyText) bool { return slices.ContainsFunc(r.within, t.closed) })
	randoms := t.f.Randoms[:0]
	for i, r := range t.f.Randoms {
		if !slices.ContainsFunc(t.randWithin[i], t.closed) {
			randoms = append(randoms, r)
		}
	}
	t.f.Randoms = randoms
	gone := map[*Call]bool{}
	t.f.Calls = slices.DeleteFunc(t.f.Calls, func(c *Call) bool {
		if slices.ContainsFunc(c.within, t.closed) {
			gone[c] = true
		}
		return gone[c]
	})
	if len(gone) == 0 {
		return
	}
	t.f.WriteChecks = slices.DeleteFunc(t.f.WriteChecks, func(w WriteCheck) bool { return gone[w.Write] })
}

// dropNeverCalled forgets what the own walks of the helpers that never run
// (findDead) found (their calls went with dropClosed): global reads and writes, unknown
// library fields, KEYS/ARGV indexes, unordered replies. Code that never
// runs raises nothing, and a key or argument read only there is unused.
// What the walks found in the functions nested in one goes too.
func (t *tracker) dropNeverCalled() {
	var dead []factSpan
	for fn, spans := range t.walks {
		if t.dead[fn] {
			dead = append(dead, spans...)
		}
	}
	if len(dead) == 0 {
		t.f.AllKeys, t.f.AllArgs = t.allKeys > 0, t.allArgs > 0
		return
	}
	// deadAt marks, for one list of length n, the indexes some dead walk
	// added (spans nest: a sum of +1 at each start and -1 at each end).
	deadAt := func(n int, pick func(factLens) int) func(int) bool {
		depth := make([]int, n+1)
		for _, d := range dead {
			depth[pick(d.from)]++
			depth[pick(d.to)]--
		}
		for i := 1; i <= n; i++ {
			depth[i] += depth[i-1]
		}
		return func(i int) bool { return depth[i] > 0 }
	}
	f := t.f
	f.GlobalReads = keep(f.GlobalReads, deadAt(len(f.GlobalReads), func(l factLens) int { return l.globalReads }))
	f.GlobalWrites = keep(f.GlobalWrites, deadAt(len(f.GlobalWrites), func(l factLens) int { return l.globalWrites }))
	f.BadFields = keep(f.BadFields, deadAt(len(f.BadFields), func(l factLens) int { return l.badFields }))
	f.KeyRefs = keep(f.KeyRefs, deadAt(len(f.KeyRefs), func(l factLens) int { return l.keyRefs }))
	f.ArgRefs = keep(f.ArgRefs, deadAt(len(f.ArgRefs), func(l factLens) int { return l.argRefs }))
	f.Unordered = keep(f.Unordered, deadAt(len(f.Unordered), func(l factLens) int { return l.unordered }))
	deadKeys, deadArgs := deadAt(t.allKeys, func(l factLens) int { return l.allKeys }), deadAt(t.allArgs, func(l factLens) int { return l.allArgs })
	for i := 0; i < t.allKeys && !f.AllKeys; i++ {
		f.AllKeys = !deadKeys(i)
	}
	for i := 0; i < t.allArgs && !f.AllArgs; i++ {
		f.AllArgs = !deadArgs(i)
	}
}

// keep returns the elements of xs whose index dead does not hold.
func keep[T any](xs []T, dead func(int) bool) []T {
	out := xs[:0]
	for i, x := range xs {
		if !dead(i) {
			out = append(out, x)
		}
	}
	return out
}

func (t *tracker) block(stmts []ast.Stmt, sc *scope, st *state) {
	for _, s := range stmts {
		t.stmt(s, sc, st)
	}
}

func (t *tracker) stmt(s ast.Stmt, sc *scope, st *state) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		t.assign(s, sc, st)
	case *ast.LocalAssignStmt:
		for _, n := range s.Names {
			t.loc(s, s.Line(), parse.TIdent, n)
		}
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if fn, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
				// local function f: f is visible in its own body.
				b := sc.declare(s.Names[0])
				st.set(b, Value{O: FromUnknown, fn: &funcVal{fn, sc}})
				t.use(fn).named = true
				t.function(fn, sc, st, false)
				return
			}
		}
		vals := t.exprList(s.Exprs, len(s.Names), sc, st)
		for i, n := range s.Names {
			st.set(sc.declare(n), vals[i])
		}
	case *ast.FuncCallStmt:
		t.expr(s.Expr, sc, st)
		if call, ok := s.Expr.(*ast.FuncCallExpr); ok && call.Receiver == nil {
			if b := t.calleeBuiltin(call, sc); b == "error" {
				st.dead, st.errExit = true, true
			}
		}
	case *ast.DoBlockStmt:
		t.block(s.Stmts, sc.child(), st)
	case *ast.WhileStmt:
		t.loc(s, s.Line(), parse.TWhile, "")
		t.expr(s.Condition, sc, st)
		body := st.branch()
		t.loop++
		t.block(s.Stmts, sc.child(), body)
		t.loop--
		body.dead = false
		st.merge(st.branch(), body)
	case *ast.RepeatStmt:
		t.loc(s, s.Line(), parse.TRepeat, "")
		t.loop++
		inner := sc.child()
		t.block(s.Stmts, inner, st)
		wasDead := st.dead
		st.dead = false
		if !wasDead {
			t.expr(s.Condition, inner, st)
		}
		t.loop--
	case *ast.IfStmt:
		t.ifStmt(s, sc, st)
	case *ast.NumberForStmt:
		t.loc(s, s.Line(), parse.TFor, "")
		t.loc(s, s.Line(), parse.TIdent, s.Name)
		init, limit := t.expr(s.Init, sc, st), t.expr(s.Limit, sc, st)
		v := join(init, limit)
		if s.Step != nil {
			v = join(v, t.expr(s.Step, sc, st))
		}
		v = Value{O: FromBuilt, Args: v.Args, Keys: v.Keys, How: "a loop counter"}
		inner := sc.child()
		body := st.branch()
		body.set(inner.declare(s.Name), v)
		t.loop++
		t.block(s.Stmts, inner, body)
		t.loop--
		all := t.checksEveryArg(st, body) && init.IsLit && init.Lit == "1" && limit.lenOf == "ARGV" && (s.Step == nil || isNumber(s.Step, "1"))
		body.dead = false
		st.merge(st.branch(), body)
		if all {
			st.checked = ^uint64(0)
		}
	case *ast.GenericForStmt:
		t.loc(s, s.Line(), parse.TFor, "")
		for _, n := range s.Names {
			t.loc(s, s.Line(), parse.TIdent, n)
		}
		vals := t.exprList(s.Exprs, 1, sc, st)
		elem := Value{O: FromUnknown}
		switch src := vals[0]; src.builtin {
		case "KEYS":
			elem = Value{O: FromKeys, Keys: 1}
		case "ARGV":
			elem = Value{O: FromArgv, Args: 1}
		default:
			if src.O != 0 && src.builtin == "" {
				elem = src
				elem.IsLit, elem.Lit, elem.fn, elem.fields = false, "", nil, nil
			}
		}
		index := Value{O: FromBuilt, How: "a loop index"}
		iter := ""
		if len(s.Exprs) == 1 && isIterCall(s.Exprs[0], sc) {
			iter = s.Exprs[0].(*ast.FuncCallExpr).Func.(*ast.IdentExpr).Value
			if iter == "pairs" && vals[0].builtin == "" && vals[0].O&(FromReply|FromArgv) == 0 {
				// The keys of a table the script fills are not tracked
				// (seen[k] = true); those of a reply or of data decoded
				// from ARGV are not keys.
				index = Value{O: FromUnknown}
			}
		}
		inner := sc.child()
		body := st.branch()
		for i, n := range s.Names {
			v := elem
			if i == 0 && (len(s.Names) > 1 || iter != "") {
				v = index // pairs and ipairs give the key first
			}
			body.set(inner.declare(n), v)
		}
		t.loop++
		t.block(s.Stmts, inner, body)
		t.loop--
		all := t.checksEveryArg(st, body) && vals[0].builtin == "ARGV" && iter != ""
		body.dead = false
		st.merge(st.branch(), body)
		if all {
			st.checked = ^uint64(0)
		}
	case *ast.FuncDefStmt:
		t.funcDef(s, sc, st)
	case *ast.ReturnStmt:
		t.loc(s, s.Line(), parse.TReturn, "")
		first := Value{O: FromLiteral, How: "nil"}
		for i, e := range s.Exprs {
			v := t.expr(e, sc, st)
			if v.errReply {
				st.errExit = true
			}
			if i == 0 {
				first = v
			}
			if v.leak && t.ret == nil && len(t.alone) == 0 && !st.dead {
				t.f.Unordered = append(t.f.Unordered, Unordered{Pos: t.posOf(e), From: v.unord, Sink: "returned"})
			}
		}
		if t.ret != nil {
			t.ret.add(first, st)
		}
		st.dead = true
	case *ast.BreakStmt:
		st.dead = true
	case *ast.LabelStmt:
		pos := t.loc(s, s.Line(), parse.T2Colon, "")
		t.f.Lua52 = append(t.f.Lua52, Ref{Name: "label ::" + s.Name + "::", Pos: pos})
	case *ast.GotoStmt:
		pos := t.loc(s, s.Line(), parse.TGoto, "")
		t.f.Lua52 = append(t.f.Lua52, Ref{Name: "goto", Pos: pos})
	}
}

// checksEveryArg reports whether a loop body that started from st checks
// ARGV at a loop-dependent index (ARGV[i], an ipairs element) on every path
// through it that does not leave: with a loop over all of ARGV, every
// argument is then checked after the loop.
func (t *tracker) checksEveryArg(st, body *state) bool {
	return st.checked&1 == 0 && body.checked&1 != 0 && !body.dead
}

// isNumber reports whether e is the number literal n.
func isNumber(e ast.Expr, n string) bool {
	x, ok := e.(*ast.NumberExpr)
	return ok && x.Value == n
}

// isIterCall reports whether e is ipairs(...) or pairs(...) of the globals.
func isIterCall(e ast.Expr, sc *scope) bool {
	c, ok := e.(*ast.FuncCallExpr)
	if !ok || c.Receiver != nil || len(c.Args) != 1 {
		return false
	}
	id, ok := c.Func.(*ast.IdentExpr)
	return ok && (id.Value == "ipairs" || id.Value == "pairs") && sc.lookup(id.Value) == nil
}

func (t *tracker) assign(s *ast.AssignStmt, sc *scope, st *state) {
	type target struct {
		b *binding
		// tbl is the local table a field store t[k] = v changes; field
		// and known are k's literal text.
		tbl   *binding
		field string
		known bool
	}
	targets := make([]target, len(s.Lhs))
	for i, l := range s.Lhs {
		switch l := l.(type) {
		case *ast.IdentExpr:
			pos := t.loc(l, l.Line(), parse.TIdent, l.Value)
			t.pos[l] = pos
			if b := sc.lookup(l.Value); b != nil {
				targets[i].b = b
			} else {
				t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: l.Value, Pos: pos})
			}
		case *ast.AttrGetExpr:
			obj := t.expr(l.Object, sc, st)
			key := t.expr(l.Key, sc, st)
			if libTables[obj.builtin] && !strings.Contains(obj.builtin, ".") {
				name := obj.builtin + "[...]"
				if key.IsLit {
					name = obj.builtin + "." + key.Lit
				}
				t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: name, Pos: t.posOf(l)})
			}
			if id, ok := l.Object.(*ast.IdentExpr); ok {
				targets[i].tbl = sc.lookup(id.Value)
				targets[i].field, targets[i].known = key.Lit, key.IsLit && key.O == FromLiteral
			}
		default:
			t.expr(l, sc, st)
		}
	}
	vals := t.exprList(s.Rhs, len(s.Lhs), sc, st)
	for i, tg := range targets {
		switch {
		case tg.b != nil:
			st.set(tg.b, vals[i])
		case tg.tbl != nil:
			t.storeIn(tg.tbl, tg.field, tg.known, vals[i], st)
		}
	}
}

// storeIn records t[k] = v for the local table bound to b.
func (t *tracker) storeIn(b *binding, field string, known bool, v Value, st *state) {
	if old, ok := st.get(b); ok && old.builtin == "" && old.fn == nil {
		st.set(b, store(old, field, known, v))
	}
}

func (t *tracker) funcDef(s *ast.FuncDefStmt, sc *scope, st *state) {
	t.loc(s, s.Line(), parse.TFunction, "")
	method := s.Name.Func == nil
	target := s.Name.Func
	if method {
		target = s.Name.Receiver
	}
	switch f := target.(type) {
	case *ast.IdentExpr:
		pos := t.loc(f, f.Line(), parse.TIdent, f.Value)
		t.pos[f] = pos
		b := sc.lookup(f.Value)
		switch {
		case method && b == nil && libTables[f.Value]:
			t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: f.Value + "." + s.Name.Method, Pos: pos})
		case method && b == nil:
			t.globalRead(f.Value, pos, sc)
		case method:
			// function M:m() assigns a field of the local M.
		case b != nil:
			st.set(b, Value{O: FromUnknown, fn: &funcVal{s.Func, sc}})
			t.use(s.Func).named = true
		default:
			t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: f.Value, Pos: pos})
		}
	case *ast.AttrGetExpr:
		obj := t.expr(f.Object, sc, st)
		key := t.expr(f.Key, sc, st)
		if libTables[obj.builtin] && !strings.Contains(obj.builtin, ".") {
			t.f.GlobalWrites = append(t.f.GlobalWrites, Ref{Name: obj.builtin + "." + key.Lit, Pos: t.posOf(f)})
		}
	}
	t.function(s.Func, sc, st, method)
}

func (t *tracker) ifStmt(s *ast.IfStmt, sc *scope, st *state) {
	ifPos := t.loc(s, s.Line(), parse.TIf, "")
	m := &mentions{}
	saved, savedGuard := t.collect, t.guard
	t.collect, t.guard = m, map[ast.Expr]uint64{}
	t.expr(s.Condition, sc, st)
	guard := t.guard
	t.collect, t.guard = saved, savedGuard
	if saved != nil {
		saved.args |= m.args
		saved.argc = saved.argc || m.argc
		saved.reply = saved.reply || m.reply
	}
	pure := (m.args != 0 || m.argc) && !m.reply
	thenSt, elseSt := st.branch(), st.branch()
	if pure {
		thenSt.checked |= m.args
		elseSt.checked |= m.args
	}
	// A comparison that passed constrains what it compares on the branch
	// it guards, whatever else the condition reads.
	thenSt.checked |= guarded(s.Condition, true, guard)
	elseSt.checked |= guarded(s.Condition, false, guard)
	t.narrow(s.Condition, true, sc, thenSt)
	t.narrow(s.Condition, false, sc, elseSt)
	t.block(s.Then, sc.child(), thenSt)
	t.block(s.Else, sc.child(), elseSt)
	if pure && (thenSt.dead && thenSt.errExit || elseSt.dead && elseSt.errExit) {
		t.check(ifPos, st)
	}
	st.merge(thenSt, elseSt)
}

// isConst reports whether v is a string or number literal.
func isConst(v Value) bool {
	return v.IsLit && v.O == FromLiteral
}

// isNumConst reports whether v is a number literal or a string literal
// Redis reads as a number ('60').
func isNumConst(v Value) bool {
	if !isConst(v) {
		return false
	}
	_, err := strconv.ParseFloat(v.Lit, 64)
	return err == nil
}

// guarded returns the arguments that the comparisons of cond constrain
// when cond is truth: `ttl > 0 and ret == 1` passed means ttl is a number
// above 0; `ttl == '60'` passed, or `ttl ~= '60'` failed, means ttl is
// that number.
func guarded(cond ast.Expr, truth bool, guard map[ast.Expr]uint64) uint64 {
	switch e := cond.(type) {
	case *ast.RelationalOpExpr:
		if truth == (e.Operator != "~=") {
			return guard[e]
		}
	case *ast.UnaryNotOpExpr:
		return guarded(e.Expr, !truth, guard)
	case *ast.LogicalOpExpr:
		l, r := guarded(e.Lhs, truth, guard), guarded(e.Rhs, truth, guard)
		if (e.Operator == "and") == truth {
			return l | r // both held (and passed), or both failed (or failed)
		}
		return l & r
	}
	return 0
}

// narrow drops nil from the locals that cond, being truth, proves are not
// nil: `x`, `x ~= nil`, `type(x) == 'string'`, and conjunctions of them.
func (t *tracker) narrow(cond ast.Expr, truth bool, sc *scope, st *state) {
	switch e := cond.(type) {
	case *ast.IdentExpr, *ast.AttrGetExpr:
		if truth {
			t.update(e, sc, st, narrow)
		}
	case *ast.UnaryNotOpExpr:
		t.narrow(e.Expr, !truth, sc, st)
	case *ast.LogicalOpExpr:
		if (e.Operator == "and") == truth {
			// a and b and c is (a and b) and c: each operand narrows, in
			// source order. Only the last maxNarrow operands of a chain
			// do (no script writes a longer one), so that a chain of n
			// operators costs n*maxNarrow steps, not n*n/2.
			ops := []ast.Expr{e.Rhs}
			for x := e; ; {
				l, ok := x.Lhs.(*ast.LogicalOpExpr)
				if !ok || l.Operator != x.Operator {
					ops = append(ops, x.Lhs)
					break
				}
				if len(ops) == maxNarrow {
					break
				}
				ops = append(ops, l.Rhs)
				x = l
			}
			for i := len(ops) - 1; i >= 0; i-- {
				t.narrow(ops[i], truth, sc, st)
			}
		}
	case *ast.RelationalOpExpr:
		if e.Operator != "~=" && e.Operator != "==" {
			return
		}
		// x ~= nil passed, or x == nil failed; type(x) == 'string' passed,
		// or type(x) ~= 'string' failed.
		same := (e.Operator == "==") == truth
		l, r := e.Lhs, e.Rhs
		switch l.(type) {
		case *ast.NilExpr, *ast.StringExpr, *ast.NumberExpr:
			l, r = r, l // the constant on the right
		}
		if _, isNil := r.(*ast.NilExpr); isNil {
			if !same {
				t.narrow(l, true, sc, st)
			}
			return
		}
		switch r.(type) {
		case *ast.StringExpr, *ast.NumberExpr:
			if same {
				// x == 'lifo' or ttl == 60 passed: x is that literal. A
				// key (KEYS[1] == 'x') or an unknown value keeps what it
				// is, not nil: after the branch it is no literal.
				lit := t.expr(r, sc, st)
				t.update(l, sc, st, func(v Value) Value {
					if v.O&(FromKeys|FromUnknown) != 0 {
						return narrow(v)
					}
					return lit
				})
			}
		}
		if str, ok := r.(*ast.StringExpr); ok && str.Value != "nil" && same {
			if c, ok := l.(*ast.FuncCallExpr); ok && len(c.Args) == 1 {
				if id, ok := c.Func.(*ast.IdentExpr); ok && id.Value == "type" && sc.lookup("type") == nil {
					t.narrow(c.Args[0], true, sc, st)
				}
			}
		}
	}
}

// update replaces, on st, the value of what e names, a local or a field
// with a literal name of a local table (opts.parent), with f of it.
func (t *tracker) update(e ast.Expr, sc *scope, st *state, f func(Value) Value) {
	switch e := e.(type) {
	case *ast.IdentExpr:
		if b := sc.lookup(e.Value); b != nil {
			if v, ok := st.get(b); ok {
				st.set(b, f(v))
			}
		}
	case *ast.AttrGetExpr:
		id, ok := e.Object.(*ast.IdentExpr)
		key, isStr := e.Key.(*ast.StringExpr)
		if !ok || !isStr {
			return
		}
		if b := sc.lookup(id.Value); b != nil {
			if v, ok := st.get(b); ok {
				if fv, ok := v.fields[key.Value]; ok {
					st.set(b, store(v, key.Value, true, f(fv)))
				}
			}
		}
	}
}

// raise records that an operation at pos, which raises an error for a bad
// argument in mask, follows the writes made so far on this path: the
// script can stop half done. The finding is one, at the first write not
// yet reported; the later writes are part of the same cause.
func (t *tracker) raise(pos Pos, what string, mask uint64, st *state) {
	first := true
	for _, w := range st.writes {
		// The same statement reached again (a helper called twice) is
		// not an earlier write.
		if t.reported[w] || w.Pos == pos {
			continue
		}
		t.reported[w] = true
		if first {
			t.f.WriteChecks = append(t.f.WriteChecks, WriteCheck{Write: w, Check: pos, Raise: what, Args: mask})
			first = false
		}
	}
}

// cmpRaise returns the unchecked arguments v is computed from when an
// ordering comparison of v with other may raise: v may be nil
// (tonumber(ARGV[1])), or a string compared with a number. Two strings
// compare without error.
func cmpRaise(v, other Value, st *state) uint64 {
	if v.numOrNil || other.num || other.numOrNil {
		return mayRaise(v, st)
	}
	return 0
}

// mayRaise returns the arguments v is computed from that no check has
// made safe for arithmetic or an ordering comparison.
func mayRaise(v Value, st *state) uint64 {
	if v.num {
		return 0
	}
	return v.Args &^ st.checked
}

// check records that an ARGV check at pos follows the writes made so far.
func (t *tracker) check(pos Pos, st *state) {
	for _, w := range st.writes {
		if !t.reported[w] {
			t.reported[w] = true
			t.f.WriteChecks = append(t.f.WriteChecks, WriteCheck{Write: w, Check: pos})
		}
	}
	st.writes = nil
}

// function walks a function body: parameters are unknown, upvalues keep
// what is known of them. ARGV checks made by callers cannot be seen, so
// every ARGV value counts as checked inside a function.
func (t *tracker) function(fn *ast.FunctionExpr, sc *scope, st *state, method bool) {
	inner := sc.child()
	body := &state{parent: st, vals: map[*binding]Value{}, checked: ^uint64(0)}
	if method {
		body.set(inner.declare("self"), Value{O: FromUnknown})
	}
	if fn.ParList != nil {
		for i, n := range fn.ParList.Names {
			t.loc(fn, fn.Line(), parse.TIdent, n)
			v, ok := t.seeds[fn][i]
			if !ok {
				v = Value{O: FromUnknown}
			}
			body.set(inner.declare(n), v)
		}
	}
	savedLoop, savedCollect, savedRet, savedGuard := t.loop, t.collect, t.ret, t.guard
	t.loop, t.collect, t.ret, t.guard = 0, nil, nil, nil
	t.alone = append(t.alone, fn)
	from := t.lens()
	t.block(fn.Stmts, inner, body)
	t.walks[fn] = append(t.walks[fn], factSpan{from, t.lens()})
	t.alone = t.alone[:len(t.alone)-1]
	t.loop, t.collect, t.ret, t.guard = savedLoop, savedCollect, savedRet, savedGuard
}

// maxInline bounds how deep calls of local functions are followed, and
// maxInlines how many are followed in one script.
const (
	maxInline  = 3
	maxInlines = 2000
)

// inline walks the body of a called local function with its parameters
// bound to the call's arguments and the caller's flow state, so that keys,
// TTLs and checks are followed into helpers. It returns what the function
// returns; the caller continues with the ARGV checks and writes the
// function's returns left.
func (t *tracker) inline(at Pos, fv *funcVal, args []Arg, open bool, st *state) Value {
	inner := fv.sc.child()
	body := st.branch()
	if fv.expr.ParList != nil {
		for i, n := range fv.expr.ParList.Names {
			v := Value{O: FromLiteral, How: "nil"}
			switch {
			case i < len(args):
				v = args[i].V
			case open && len(args) > 0:
				v = args[len(args)-1].V
				v.IsLit, v.Lit = false, ""
			}
			body.set(inner.declare(n), v)
		}
	}
	savedRet, savedCollect, savedGuard := t.ret, t.collect, t.guard
	t.ret, t.collect, t.guard = &exits{base: len(st.writes)}, nil, nil
	t.stack, t.via = append(t.stack, fv.expr), append(t.via, at)
	t.use(fv.expr).follows++
	t.block(fv.expr.Stmts, inner, body)
	t.stack, t.via = t.stack[:len(t.stack)-1], t.via[:len(t.via)-1]
	x := t.ret
	t.ret, t.collect, t.guard = savedRet, savedCollect, savedGuard
	if !body.dead {
		x.add(Value{O: FromLiteral, How: "nil"}, body)
	}
	if x.n == 0 {
		return Value{O: FromUnknown} // it always raises
	}
	st.checked |= x.checked
	st.writes = x.writes
	v := x.v
	v.errReply = false
	return v
}

// exprList evaluates exprs and adjusts the values to n, expanding a final
// multi-value expression like Lua does.
func (t *tracker) exprList(exprs []ast.Expr, n int, sc *scope, st *state) []Value {
	out := make([]Value, 0, max(n, len(exprs)))
	for _, e := range exprs {
		out = append(out, t.expr(e, sc, st))
	}
	for len(out) < n {
		if len(exprs) > 0 && isMulti(exprs[len(exprs)-1]) {
			v := out[len(exprs)-1]
			v.IsLit, v.Lit = false, ""
			out = append(out, v)
		} else {
			out = append(out, Value{O: FromLiteral, How: "nil"})
		}
	}
	return out
}

func isMulti(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.FuncCallExpr:
		return !e.AdjustRet
	case *ast.Comma3Expr:
		return !e.AdjustRet
	}
	return false
}

// maxExprDepth bounds the nesting of expressions the tracker follows.
// Redis's Lua refuses more than 200 syntax levels, and operator chains
// (1+1+...+1, a..a..a) are walked as loops, so only a script the server
// refuses gets here; past the bound a value is unknown, and the walk's
// stack stays small whatever the input.
const maxExprDepth = 5000

// maxNarrow bounds the operands of one and/or chain a condition narrows
// by (narrow).
const maxNarrow = 64

// maxFoldLen bounds the literal a concatenation of literals folds to:
// longer, it is a built string, so a long chain of literal concatenations
// costs its length, not its length squared.
const maxFoldLen = 1024

func (t *tracker) expr(e ast.Expr, sc *scope, st *state) Value {
	if t.depth >= maxExprDepth {
		return t.finish(e, Value{O: FromUnknown})
	}
	t.depth++
	v := t.expr0(e, sc, st)
	t.depth--
	return t.finish(e, v)
}

// finish is what expr adds to the value of e: its position when it has
// none, and the mentions being collected.
func (t *tracker) finish(e ast.Expr, v Value) Value {
	if v.at.Line == 0 {
		v.at = t.posOf(e)
	}
	if t.collect != nil {
		t.collect.args |= v.Args
		if v.O&FromReply != 0 {
			t.collect.reply = true
		}
	}
	return v
}

func (t *tracker) leaf(e ast.Expr, typ int, str string) Pos {
	if p, ok := t.pos[e]; ok {
		return p
	}
	pos := t.p.locate(e.Line(), typ, str)
	t.pos[e] = pos
	return pos
}

func (t *tracker) expr0(e ast.Expr, sc *scope, st *state) Value {
	switch e := e.(type) {
	case *ast.TrueExpr:
		t.leaf(e, parse.TTrue, "")
		return Value{O: FromLiteral, How: "true", litNotNil: true}
	case *ast.FalseExpr:
		t.leaf(e, parse.TFalse, "")
		return Value{O: FromLiteral, How: "false"}
	case *ast.NilExpr:
		t.leaf(e, parse.TNil, "")
		return Value{O: FromLiteral, How: "nil"}
	case *ast.NumberExpr:
		t.leaf(e, parse.TNumber, e.Value)
		return Value{O: FromLiteral, Lit: e.Value, IsLit: true, How: "the number " + e.Value, litNotNil: true, num: true, clean: true}
	case *ast.StringExpr:
		if _, ok := t.pos[e]; !ok {
			t.pos[e] = t.locateString(e)
		}
		return Value{O: FromLiteral, Lit: e.Value, IsLit: true, How: quote(e.Value), litNotNil: true, clean: !strings.ContainsAny(e.Value, "\r\n")}
	case *ast.Comma3Expr:
		t.leaf(e, parse.T3Comma, "")
		return Value{O: FromUnknown}
	case *ast.IdentExpr:
		pos := t.leaf(e, parse.TIdent, e.Value)
		if b := sc.lookup(e.Value); b != nil {
			if v, ok := st.get(b); ok {
				if v.fn != nil {
					u := t.use(v.fn.expr)
					u.reads++
					u.readIn = append(u.readIn, slices.Clone(t.alone))
				}
				return v
			}
			return Value{O: FromUnknown}
		}
		return t.globalRead(e.Value, pos, sc)
	case *ast.AttrGetExpr:
		return t.index(e, sc, st)
	case *ast.TableExpr:
		t.leaf(e, '{', "")
		v := Value{}
		isErr := false
		fields := map[string]Value{}
		n := 0
		var lits []string
		allLit := len(e.Fields) > 0
		for _, f := range e.Fields {
			name, named := "", false
			reply := ""
			if f.Key != nil {
				k := t.expr(f.Key, sc, st)
				if k.IsLit && k.Lit == "err" {
					isErr = true
				}
				if k.IsLit && (k.Lit == "err" || k.Lit == "ok") {
					reply = "{" + k.Lit + " = ...}"
				}
				name, named = k.Lit, k.IsLit && k.O == FromLiteral
			} else {
				n++
				name, named = strconv.Itoa(n), !isMulti(f.Value)
			}
			fv := t.expr(f.Value, sc, st)
			if reply != "" {
				t.replyText(reply, f.Value, fv)
			}
			if ls := litSet(fv); ls != nil && allLit {
				lits = append(lits, ls...)
			} else {
				allLit = false
			}
			if named {
				fields[name] = fv
			}
			if fv.builtin == "KEYS" {
				t.allKeys++
			}
			if fv.builtin == "ARGV" {
				t.allArgs++
			}
			if v.O == 0 {
				v = fv
			} else {
				v = join(v, fv)
			}
		}
		// An empty table keeps O == 0: it holds nothing yet, and what is
		// stored in it later (t[#t+1] = KEYS[i], table.insert) is its value.
		v.IsLit, v.Lit, v.builtin, v.lenOf, v.fn, v.errReply = false, "", "", "", nil, isErr
		v.fields, v.alts = fields, nil
		if allLit && len(lits) <= maxAlts {
			v.alts = slices.Compact(slices.Sorted(slices.Values(lits)))
		}
		return v
	case *ast.FuncCallExpr:
		return t.call(e, sc, st)
	case *ast.LogicalOpExpr:
		if and, ok := e.Lhs.(*ast.LogicalOpExpr); ok && e.Operator == "or" && and.Operator == "and" {
			// cond and X or Y is X or Y when X cannot be nil or false.
			cond := t.expr(and.Lhs, sc, st)
			x, y := t.expr(and.Rhs, sc, st), t.expr(e.Rhs, sc, st)
			if x.O&FromLiteral == 0 || x.litNotNil && !slices.Contains(litSet(x), "false") {
				return join(x, y)
			}
			return join(join(cond, x), y)
		}
		l := t.expr(e.Lhs, sc, st)
		// The right side runs only when the left is true (and) or false
		// (or): `ttl and ttl > 0`, `not ttl or ttl <= 0`.
		rs := st.branch()
		t.narrow(e.Lhs, e.Operator == "and", sc, rs)
		r := t.expr(e.Rhs, sc, rs)
		if len(rs.writes) > len(st.writes) {
			st.writes = rs.writes
		}
		v := join(l, r)
		if e.Operator == "or" && (l.num || l.numOrNil) && r.num {
			v.num = true // tonumber(ARGV[1]) or 0
		}
		return v
	case *ast.RelationalOpExpr:
		l, r := t.expr(e.Lhs, sc, st), t.expr(e.Rhs, sc, st)
		if e.Operator == "==" || e.Operator == "~=" {
			// ttl == 60 or ttl == '60' constrains ttl to a number; x ==
			// 'a' makes x a literal (narrow) but no number: checked is
			// about numbers (TTLs, arithmetic).
			if t.guard != nil && (isNumConst(l) && !isConst(r) || isNumConst(r) && !isConst(l)) {
				t.guard[e] = l.Args | r.Args
			}
		} else {
			if t.guard != nil {
				t.guard[e] = l.Args | r.Args
			}
			if m := cmpRaise(l, r, st) | cmpRaise(r, l, st); m != 0 && len(st.writes) > 0 {
				t.raise(t.posOf(e), "a comparison", m, st)
			}
		}
		return boolOf(join(l, r), "a comparison")
	case *ast.StringConcatOpExpr:
		// a..b..c is a..(b..c): the chain is walked as a loop, its left
		// operands in source order, then joined from the right.
		chain := []*ast.StringConcatOpExpr{e}
		for next, ok := e.Rhs.(*ast.StringConcatOpExpr); ok; next, ok = next.Rhs.(*ast.StringConcatOpExpr) {
			chain = append(chain, next)
		}
		ls := make([]Value, len(chain))
		for i, c := range chain {
			ls[i] = t.expr(c.Lhs, sc, st)
		}
		r := t.expr(chain[len(chain)-1].Rhs, sc, st)
		for i := len(chain) - 1; i > 0; i-- {
			r = t.finish(chain[i], concatValue(ls[i], r))
		}
		return concatValue(ls[0], r)
	case *ast.ArithmeticOpExpr:
		// 1+1+1 is (1+1)+1: the chain is walked as a loop from its
		// leftmost operand.
		chain := []*ast.ArithmeticOpExpr{e}
		for next, ok := e.Lhs.(*ast.ArithmeticOpExpr); ok; next, ok = next.Lhs.(*ast.ArithmeticOpExpr) {
			chain = append(chain, next)
		}
		l := t.expr(chain[len(chain)-1].Lhs, sc, st)
		for i := len(chain) - 1; ; i-- {
			v := t.arith(chain[i], l, t.expr(chain[i].Rhs, sc, st), st)
			if i == 0 {
				return v
			}
			l = t.finish(chain[i], v)
		}
	case *ast.UnaryMinusOpExpr:
		v := t.expr(e.Expr, sc, st)
		if v.IsLit && v.O == FromLiteral {
			return Value{O: FromLiteral, Lit: "-" + v.Lit, IsLit: true, How: "the number -" + v.Lit}
		}
		v.O |= FromBuilt
		v.How, v.builtin, v.num, v.clean = "arithmetic", "", true, true
		return v
	case *ast.UnaryNotOpExpr:
		return boolOf(t.expr(e.Expr, sc, st), "a boolean")
	case *ast.UnaryLenOpExpr:
		v := t.expr(e.Expr, sc, st)
		if v.builtin == "KEYS" || v.builtin == "ARGV" {
			if v.builtin == "ARGV" && t.collect != nil {
				t.collect.argc = true
			}
			return Value{O: FromLiteral, lenOf: v.builtin, How: "#" + v.builtin, litNotNil: true, num: true, clean: true}
		}
		v.O |= FromBuilt
		v.How, v.IsLit, v.Lit, v.builtin, v.alts, v.num, v.unord, v.clean = "a length", false, "", "", nil, true, "", true
		return v
	case *ast.FunctionExpr:
		t.leaf(e, parse.TFunction, "")
		t.function(e, sc, st, false)
		return Value{O: FromUnknown, How: "a function", fn: &funcVal{e, sc}}
	}
	return Value{O: FromUnknown}
}

// locateString finds a string constant, written as a string token or, in
// a.b and {b = ...}, as a name.
func (t *tracker) locateString(e *ast.StringExpr) Pos {
	line := e.Line()
	toks := t.p.tokens[line]
	for i := t.p.cursor[line]; i < len(toks); i++ {
		if (toks[i].typ == parse.TString || toks[i].typ == parse.TIdent) && toks[i].str == e.Value {
			t.p.cursor[line] = i + 1
			return t.p.pos(line, toks[i].col)
		}
	}
	return t.p.locate(line, parse.TString, e.Value)
}

func (t *tracker) globalRead(name string, pos Pos, sc *scope) Value {
	if !redisGlobals[name] {
		t.f.GlobalReads = append(t.f.GlobalReads, Ref{Name: name, Pos: pos})
		return Value{O: FromUnknown}
	}
	return Value{O: FromUnknown, builtin: name}
}

func (t *tracker) index(e *ast.AttrGetExpr, sc *scope, st *state) Value {
	obj := t.expr(e.Object, sc, st)
	key := t.expr(e.Key, sc, st)
	switch obj.builtin {
	case "KEYS", "ARGV":
		n := -1
		if key.IsLit && key.O == FromLiteral {
			if i, err := strconv.Atoi(key.Lit); err == nil {
				n = i
			}
		} else if key.lenOf == obj.builtin && t.p.Decl != nil {
			if obj.builtin == "KEYS" {
				n = len(t.p.Decl.Keys)
			} else {
				n = len(t.p.Decl.Args)
			}
		}
		ref := IndexRef{N: n, Pos: t.posOf(e)}
		if obj.builtin == "KEYS" {
			t.f.KeyRefs = append(t.f.KeyRefs, ref)
			if n < 0 {
				t.allKeys++
			}
			return Value{O: FromKeys, Keys: bit(n)}
		}
		t.f.ArgRefs = append(t.f.ArgRefs, ref)
		if n < 0 {
			t.allArgs++
		}
		return Value{O: FromArgv, Args: bit(n)}
	case "":
		// A named field that holds more than literals (cfg.key with cfg =
		// {key = KEYS[1], ttl = 30}) is that field's value.
		if key.IsLit && key.O == FromLiteral && obj.fields != nil {
			if fv, ok := obj.fields[key.Lit]; ok && fv.O != 0 {
				fv.fn = nil
				return fv
			}
		}
	default:
		if key.IsLit && key.O == FromLiteral {
			name := obj.builtin + "." + key.Lit
			if fields, ok := libFields[obj.builtin]; ok && !fields[key.Lit] {
				t.f.BadFields = append(t.f.BadFields, Ref{Name: name, Pos: t.pos[e.Key]})
				return Value{O: FromUnknown}
			}
			return Value{O: FromUnknown, builtin: name}
		}
		return Value{O: FromUnknown}
	}
	// An element of a table holds what was put in it; an element of a
	// table of literals is one of them (or nil). An element picked by its
	// place in an unordered reply (members[1]) carries the order.
	v := obj
	v.IsLit, v.Lit, v.lenOf, v.num, v.numOrNil, v.fields = false, "", "", false, false, nil
	if v.unord != "" && !v.paged {
		v.leak = true
	}
	v.paged = false // page[2] is the elements, in server order
	if v.O == FromLiteral && len(v.alts) > 0 {
		return v
	}
	v.alts = nil
	if v.O == 0 || v.O == FromLiteral {
		v.O = FromUnknown
	}
	return v
}

// posOf returns the position of the first token of e.
func (t *tracker) posOf(e ast.Expr) Pos {
	// The position of an operator chain is its leftmost operand's: the
	// nodes walked on the way there remember it, so that a chain of n
	// operators costs n steps in all, not n*n/2.
	walked := t.walked[:0]
	defer func() { t.walked = walked[:0] }()
	for {
		if p, ok := t.pos[e]; ok {
			for _, w := range walked {
				t.pos[w] = p
			}
			return p
		}
		walked = append(walked, e)
		switch x := e.(type) {
		case *ast.AttrGetExpr:
			e = x.Object
		case *ast.FuncCallExpr:
			if x.Receiver != nil {
				e = x.Receiver
			} else {
				e = x.Func
			}
		case *ast.LogicalOpExpr:
			e = x.Lhs
		case *ast.RelationalOpExpr:
			e = x.Lhs
		case *ast.StringConcatOpExpr:
			e = x.Lhs
		case *ast.ArithmeticOpExpr:
			e = x.Lhs
		case *ast.UnaryMinusOpExpr:
			e = x.Expr
		case *ast.UnaryNotOpExpr:
			e = x.Expr
		case *ast.UnaryLenOpExpr:
			e = x.Expr
		default:
			p := t.p.pos(e.Line(), 1)
			if len(walked) > maxSpine {
				// A leftmost operand never walked (past maxExprDepth):
				// the chain above it keeps the line, so that it is not
				// walked again for each of its nodes. A leaf itself is
				// never kept here: walking it finds its column.
				for _, w := range walked[:len(walked)-1] {
					t.pos[w] = p
				}
			}
			return p
		}
	}
}

// maxSpine is the length of a walk of posOf past which a position found
// only by its line is kept for the nodes walked.
const maxSpine = 64

// concatValue is the value of l..r.
func concatValue(l, r Value) Value {
	if l.IsLit && r.IsLit && l.O == FromLiteral && r.O == FromLiteral && len(l.Lit)+len(r.Lit) <= maxFoldLen {
		return Value{O: FromLiteral, Lit: l.Lit + r.Lit, IsLit: true, How: quote(l.Lit + r.Lit)}
	}
	v := join(l, r)
	v.O |= FromBuilt
	v.How, v.IsLit, v.Lit, v.builtin, v.alts, v.num = "concatenation", false, "", "", nil, false
	v.leak, v.at = v.unord != "", Pos{} // made here
	return v
}

// arith is the value of e, an arithmetic operator, whose operands are l
// and r.
func (t *tracker) arith(e *ast.ArithmeticOpExpr, l, r Value, st *state) Value {
	if m := mayRaise(l, st) | mayRaise(r, st); m != 0 && len(st.writes) > 0 {
		t.raise(t.posOf(e), "arithmetic", m, st)
	}
	v := join(l, r)
	v.O |= FromBuilt
	v.How, v.IsLit, v.Lit, v.builtin, v.lenOf, v.alts, v.num, v.unord, v.clean = "arithmetic", false, "", "", "", nil, true, "", true
	v.at = Pos{} // made here
	return v
}

// calleeBuiltin returns the known global a plain call's function is, by
// name (locals shadow globals), without evaluating anything.
func (t *tracker) calleeBuiltin(call *ast.FuncCallExpr, sc *scope) string {
	if id, ok := call.Func.(*ast.IdentExpr); ok && sc.lookup(id.Value) == nil && redisGlobals[id.Value] {
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
				v.leak = v.unord != "" && (a.V.leak || serializers[fn.builtin])
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
		if orderSinks[c.Name] {
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
	if unorderedReplies[c.Name] && (!countedReplies[c.Name] || len(c.Args) >= 2) {
		v.unord = c.Name
		v.paged = strings.HasSuffix(c.Name, "SCAN")
	}
	return v
}

// unorderedReplies are the commands whose reply order the server does not
// define; orderSinks the writes where the order of their arguments is kept.
var (
	unorderedReplies = map[string]bool{"SMEMBERS": true, "HKEYS": true, "HVALS": true, "HGETALL": true,
		"SSCAN": true, "HSCAN": true, "SCAN": true, "SRANDMEMBER": true, "SPOP": true, "KEYS": true,
		"SINTER": true, "SUNION": true, "SDIFF": true, "HRANDFIELD": true}
	// serializers turn a collection into one value in its order.
	serializers = map[string]bool{"table.concat": true, "cjson.encode": true, "cmsgpack.pack": true, "struct.pack": true}
	// countedReplies give one element unless a count follows the key.
	countedReplies = map[string]bool{"SRANDMEMBER": true, "SPOP": true, "HRANDFIELD": true}
	orderSinks     = map[string]bool{"RPUSH": true, "LPUSH": true, "RPUSHX": true, "LPUSHX": true, "LINSERT": true,
		"LSET": true, "XADD": true, "SET": true, "SETEX": true, "PSETEX": true, "SETNX": true, "GETSET": true,
		"APPEND": true, "SETRANGE": true, "MSET": true, "MSETNX": true, "PUBLISH": true, "SPUBLISH": true}
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
