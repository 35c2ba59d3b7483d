package lint

import (
	"slices"
	"strings"

	"github.com/yuin/gopher-lua/ast"
)

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
