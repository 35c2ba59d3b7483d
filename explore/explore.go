// Package explore is an exhaustive interleaving checker for the scripts of a
// manifest. A model (model.go) declares workers, each a small program that
// calls the scripts by their protocol role, environment actions (the clock
// advancing, the source changing) and bounds; Run explores every
// interleaving within the bounds breadth-first, executing each step with the
// offline engine (package verify), hashing visited states (keyspace, clock,
// source, workers) so equal states are explored once, and checks the
// invariants after every step. A violation comes with the shortest
// counterexample as a timeline. It does not parse manifests (package
// manifest does) and never talks to a server.
package explore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify"
)

// Options configure Run.
type Options struct {
	Target string // the server the engine imitates; "" is verify's default
	// Topology and StrictKeys are verify.Options': the server's topology
	// ("" a cluster node) and whether an undeclared key stops a run.
	Topology   string
	StrictKeys bool
	// Replay restores a state by replaying its path from the root instead
	// of restoring its keyspace snapshot (slower; kept for the benchmark).
	Replay bool
	// MaxStates stops the exploration (Result.Truncated) past this many
	// states; 0 means DefaultMaxStates.
	MaxStates int
	// MaxMemory stops the exploration (Result.Truncated, TruncatedBy
	// "memory") once the states it stores (their keyspace snapshots,
	// workers and visited-state keys, as StoredBytes estimates them) pass
	// this many bytes; 0 means DefaultMaxMemory. The engine's memory limit
	// (verify.Options.MemoryLimit) is the script's alone: these bytes are
	// left out of it.
	MaxMemory int64
	// MaxTime stops the exploration (Result.Truncated, TruncatedBy
	// "time") once it has run this long; 0 means no limit.
	MaxTime time.Duration
	clock   func() time.Time // time.Now; tests replace it
}

// DefaultMaxStates bounds one exploration.
const DefaultMaxStates = 200000

// DefaultMaxMemory bounds the states one exploration stores: 1 GiB of
// estimate, a little more live heap, so a large model stops with a
// truncated result on a machine with a few GB instead of growing until
// the system kills it.
const DefaultMaxMemory int64 = 1 << 30

// Result is what Run found.
type Result struct {
	Model         *Model
	States        int    // distinct states reached
	Transitions   int    // steps executed
	Interleavings uint64 // distinct complete interleavings covered (saturates)
	Depth         int    // the deepest level reached
	Truncated     bool   // a bound was reached: the result is partial
	// TruncatedBy is the bound reached when Truncated: "states"
	// (MaxStates), "memory" (MaxMemory) or "time" (MaxTime, Bound in
	// ms); Bound is its value.
	TruncatedBy string
	Bound       int64
	// StoredBytes is the estimate of what the stored states hold
	// (MaxMemory counts it).
	StoredBytes int64
	Violation   *Violation
}

// Violation is an invariant that failed, with the shortest timeline that
// reaches it.
type Violation struct {
	Invariant string
	Message   string
	Timeline  []Line
	// Errored: the invariant is a Lua predicate that raised an error (a
	// bug in the model, never the expected violation of a control).
	Errored bool
}

// Line is one step of a timeline.
type Line struct {
	N        int    // 1-based
	Actor    string // a worker, or "clock" / "source" for the environment
	Action   string // the step: acquire, publish, read, advance 150ms, ...
	Reply    string // the reply, as redis-cli shows it
	Value    string // the visible value after the step, "" when absent
	Present  bool   // the value key exists
	Revision int    // the visible value's revision; -1 when none
	// Script is the script a call or role step ran (the command of a do
	// step), Args its args by name (a do step's by position, from "1");
	// empty for the environment.
	Script string
	Args   map[string]string
	rep    *verify.Reply // the reply, as the Lua invariants see it
	at     int64         // ms since the start, after the step
}

// OK reports whether the result is what the model expects: no violation
// in a complete exploration, or exactly the expected one for a negative
// control.
func (r *Result) OK() bool {
	if r.Truncated && r.Violation == nil {
		return false
	}
	if r.Model.Expect == "" {
		return r.Violation == nil
	}
	return r.Violation != nil && r.Violation.Invariant == r.Model.Expect && !r.Violation.Errored
}

// wstate is one worker's state.
type wstate struct {
	pc, done   int
	acquired   int    // acquisitions so far: tokens are <worker>-<n>
	token      string // the current token
	revision   int    // the revision the last read saw; -1 before
	reply      string // the last reply's head
	owns       bool
	ownedUntil int64 // virtual ms
	ownedEpoch int   // the invalidation epoch the lease began in
	accepted   bool  // the last publish was accepted
	published  bool  // the worker published at least once
	regs       []string
	crashed    bool         // a crash event: its remaining steps never run
	paused     bool         // a pause event: no step until it resumes
	resumeAt   int64        // paused: the clock it resumes at (virtual ms)
	last       verify.Reply // the last reply (kept when the model has if steps)
}

func (w wstate) candidate(name string) string {
	if w.revision < 0 {
		return ""
	}
	return fmt.Sprintf("%s@rev%d", name, w.revision)
}

// node is one state of the exploration.
type node struct {
	parent  int
	via     Line
	action  int // the action that led here from parent
	depth   int
	now     int64
	keys    []verify.Entry
	source  int
	floor   int // the revision no visible value may go below
	epoch   int // invalidations that ended leases
	env     []int
	workers []wstate
	succ    []int32
	hist    string // the path so far, when Lua invariants read it
}

// Run explores model m.
func Run(ctx context.Context, m *Model, opts Options) (*Result, error) {
	x := &explorer{m: m, opts: opts}
	// The stored states are the explorer's, not the script's: the engine
	// leaves them out when it measures its memory.
	x.eng = verify.New(verify.Options{Target: opts.Target, Topology: opts.Topology, StrictKeys: opts.StrictKeys,
		MemoryOutside: func() int64 { return x.stored.Load() }})
	if x.opts.MaxStates <= 0 {
		x.opts.MaxStates = DefaultMaxStates
	}
	if x.opts.MaxMemory <= 0 {
		x.opts.MaxMemory = DefaultMaxMemory
	}
	if x.opts.clock == nil {
		x.opts.clock = time.Now
	}
	return x.run(ctx)
}

type explorer struct {
	now   int64 // the model clock of the step being applied (${now})
	m     *Model
	opts  Options
	eng   *verify.Engine
	nodes []*node
	cur   *node // the state the engine holds
	// stored estimates the bytes the stored states hold (storedBytes);
	// atomic only because the engine reads it through a func.
	stored atomic.Int64
}

func (x *explorer) run(ctx context.Context) (*Result, error) {
	m := x.m
	root := &node{parent: -1, source: m.Source, env: make([]int, len(m.Env)), now: verify.DefaultNow}
	for range m.Workers {
		root.workers = append(root.workers, wstate{revision: -1, regs: make([]string, len(m.regs))})
	}
	if err := x.setup(); err != nil {
		return nil, err
	}
	root.keys = x.eng.Entries()
	root.now += x.eng.Now() - verify.DefaultNow
	x.cur = root
	for i := range root.workers {
		x.skipBranches(root, i)
	}
	x.nodes = []*node{root}
	rootKey := x.key(root)
	visited := map[string]int32{rootKey: 0}
	x.stored.Store(storedBytes(root, rootKey))
	res := &Result{Model: m, States: 1}
	defer func() { res.StoredBytes = x.stored.Load() }()
	if viol, err := x.finalCheck(root); err != nil || viol != nil {
		res.Violation = viol
		return res, err
	}
	start := x.opts.clock()
	for q := 0; q < len(x.nodes); q++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if x.opts.MaxTime > 0 && x.opts.clock().Sub(start) > x.opts.MaxTime {
			res.Truncated, res.TruncatedBy, res.Bound = true, "time", x.opts.MaxTime.Milliseconds()
			break
		}
		n := x.nodes[q]
		if n.depth >= m.Bounds.Depth {
			continue
		}
		for a := range x.actions(n) {
			if err := x.restore(q); err != nil {
				return nil, err
			}
			nn, viol, err := x.apply(n, a)
			if err != nil {
				return nil, err
			}
			res.Transitions++
			nn.parent, nn.action, nn.depth = q, a, n.depth+1
			if viol == nil {
				if viol, err = x.invariants(nn, false); err != nil {
					return nil, err
				}
			}
			if viol == nil {
				if viol, err = x.finalCheck(nn); err != nil {
					return nil, err
				}
			}
			if viol != nil {
				viol.Timeline = x.timeline(nn)
				res.Violation = viol
				res.States, res.Depth = len(x.nodes), nn.depth
				res.Interleavings = x.count()
				return res, nil
			}
			k := x.key(nn)
			if id, ok := visited[k]; ok {
				n.succ = append(n.succ, id)
				continue
			}
			if len(x.nodes) >= x.opts.MaxStates {
				res.Truncated, res.TruncatedBy, res.Bound = true, "states", int64(x.opts.MaxStates)
				continue
			}
			size := storedBytes(nn, k)
			if x.stored.Load()+size > x.opts.MaxMemory {
				res.Truncated, res.TruncatedBy, res.Bound = true, "memory", x.opts.MaxMemory
				continue
			}
			x.stored.Add(size)
			id := int32(len(x.nodes))
			visited[k] = id
			n.succ = append(n.succ, id)
			x.nodes = append(x.nodes, nn)
			res.Depth = max(res.Depth, nn.depth)
		}
	}
	res.States = len(x.nodes)
	res.Interleavings = x.count()
	return res, nil
}

// count is the number of distinct paths from the root to a state with no
// successor: the complete interleavings the exploration covered. The state
// graph is a DAG whose successors always come later in BFS order (every
// step raises the step count, which is part of the state).
func (x *explorer) count() uint64 {
	paths := make([]uint64, len(x.nodes))
	for i := len(x.nodes) - 1; i >= 0; i-- {
		n := x.nodes[i]
		if len(n.succ) == 0 {
			paths[i] = 1
			continue
		}
		var s uint64
		for _, c := range n.succ {
			if c <= int32(i) {
				continue
			}
			s += paths[c]
			if s < paths[c] {
				s = ^uint64(0)
			}
		}
		paths[i] = s
	}
	return paths[0]
}

// actions yields the enabled actions of n: worker i's next step is action i,
// environment action j is len(workers)+j.
func (x *explorer) actions(n *node) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i, w := range n.workers {
			if x.running(w, i) && !w.paused {
				if !yield(i) {
					return
				}
			}
		}
		// the clock only moves by the environment: scripts do not tick it
		advanced := n.now - verify.DefaultNow
		for j, a := range x.m.Env {
			if n.env[j] >= a.Times {
				continue
			}
			switch a.Kind {
			case "advance":
				if x.m.Bounds.ClockMS > 0 && advanced+a.MS > x.m.Bounds.ClockMS {
					continue
				}
			case "crash":
				if !x.running(n.workers[a.Worker], a.Worker) {
					continue
				}
			case "pause":
				w := n.workers[a.Worker]
				if !x.running(w, a.Worker) || w.paused || x.m.Bounds.ClockMS > 0 && advanced+a.MS > x.m.Bounds.ClockMS {
					continue
				}
			case "expire":
				if !x.expiring(n, a.Key) {
					continue
				}
			}
			if !yield(len(n.workers) + j) {
				return
			}
		}
		// a paused worker resumes: the clock reaches the end of its pause
		for i, w := range n.workers {
			if w.paused && !w.crashed {
				if !yield(len(n.workers) + len(x.m.Env) + i) {
					return
				}
			}
		}
	}
}

// restore makes the engine hold state q.
func (x *explorer) restore(q int) error {
	n := x.nodes[q]
	if x.cur == n {
		return nil
	}
	if x.opts.Replay {
		var path []int
		for i := q; i > 0; i = x.nodes[i].parent {
			path = append(path, i)
		}
		x.eng.Reset()
		if err := x.setup(); err != nil {
			return err
		}
		st := x.nodes[0]
		for k := len(path) - 1; k >= 0; k-- {
			next, _, err := x.apply(st, x.nodes[path[k]].action)
			if err != nil {
				return err
			}
			st = next
		}
		x.cur = n
		return nil
	}
	// The engine's clock only runs forward, and nothing a step does depends
	// on its absolute value (expiries are relative): empty the keyspace and
	// put the snapshot back with its remaining TTLs, at whatever the engine's
	// clock says. Model time is kept apart (node.now).
	if _, err := x.eng.Do(context.Background(), "FLUSHALL"); err != nil {
		return err
	}
	for _, e := range n.keys {
		x.eng.Put(e)
	}
	x.cur = n
	return nil
}

// apply runs action a on the engine, which holds state n, and returns the
// new state (with a snapshot of the keyspace).
func (x *explorer) apply(n *node, a int) (*node, *Violation, error) {
	m := x.m
	nn := &node{source: n.source, floor: n.floor, epoch: n.epoch, env: slices.Clone(n.env), workers: slices.Clone(n.workers)}
	base := x.eng.Now()
	var viol *Violation
	if a >= len(n.workers)+len(m.Env) {
		i := a - len(n.workers) - len(m.Env)
		w := &nn.workers[i]
		d := max(w.resumeAt-n.now, 0)
		x.eng.Advance(d)
		w.paused, w.resumeAt = false, 0
		nn.via = Line{Actor: m.Workers[i].Name, Action: fmt.Sprintf("resume (+%dms)", d)}
	} else if a >= len(n.workers) {
		j := a - len(n.workers)
		ea := m.Env[j]
		nn.env[j]++
		switch ea.Kind {
		case "advance":
			x.eng.Advance(ea.MS)
			nn.via = Line{Actor: "clock", Action: fmt.Sprintf("advance %dms", ea.MS)}
		case "update":
			nn.source++
			nn.via = Line{Actor: "source", Action: "update", Reply: fmt.Sprintf("revision %d", nn.source)}
		case "crash":
			nn.workers[ea.Worker].crashed = true
			nn.via = Line{Actor: m.Workers[ea.Worker].Name, Action: "crash"}
		case "pause":
			w := &nn.workers[ea.Worker]
			w.paused, w.resumeAt = true, n.now+ea.MS
			nn.via = Line{Actor: m.Workers[ea.Worker].Name, Action: fmt.Sprintf("pause %dms", ea.MS)}
		case "expire":
			if _, err := x.eng.Do(context.Background(), "DEL", m.Keys[ea.Key]); err != nil {
				return nil, nil, err
			}
			nn.via = Line{Actor: "expiry", Action: "expire " + ea.Key}
		}
	} else {
		w := nn.workers[a]
		w.regs = slices.Clone(w.regs)
		prog := m.Workers[a]
		st := prog.Steps[w.pc]
		w.pc++
		w.done++
		line := Line{Actor: prog.Name, Action: st.Kind}
		x.now = n.now
		switch st.Kind {
		case "call":
			rep, err := x.callStep(st, prog.Name, &w, &line)
			if err != nil {
				return nil, nil, err
			}
			if mm := contractMismatch(st.Reply, rep); mm != nil {
				viol = &Violation{Invariant: ReplyContract, Message: fmt.Sprintf("the reply of %s (by %s) breaks its contract: %s (the reply: %s)", st.Script, prog.Name, mm, rep)}
			}
		case "pause":
			line.Reply = "-"
		case "read":
			w.revision = nn.source
			line.Reply = fmt.Sprintf("revision %d", w.revision)
		case "update":
			nn.source++
			w.revision = nn.source
			line.Reply = fmt.Sprintf("revision %d", nn.source)
		case "serve":
			line.Reply = w.candidate(prog.Name)
			if !w.accepted {
				viol = &Violation{Invariant: NoRejectedServ, Message: fmt.Sprintf("%s serves %q, whose publish was not accepted", prog.Name, w.candidate(prog.Name))}
			}
		case "do":
			args := make([]string, len(st.Do))
			for i, s := range st.Do {
				args[i] = x.expand(s, prog.Name, &w)
			}
			rep, err := x.eng.Do(context.Background(), args...)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s: %w", m.Path, prog.Name, err)
			}
			w.reply = head(rep)
			line.Action = "do " + strings.Join(args, " ")
			line.Reply = rep.String()
			if m.usesIf {
				w.last = rep
			}
			x.saveReply(st, &w, rep)
			line.Script, line.rep = args[0], &rep
			line.Args = map[string]string{}
			for i, a := range args[1:] {
				line.Args[strconv.Itoa(i+1)] = a
			}
		default:
			r := m.Roles[st.Kind]
			rep, err := x.call(r, st, prog.Name, &w)
			if err != nil {
				return nil, nil, err
			}
			line.Reply = rep.String()
			w.reply = head(rep)
			if m.usesIf {
				w.last = rep
			}
			line.Script, line.rep = r.Script, &rep
			if m := contractMismatch(r.Reply, rep); m != nil {
				viol = &Violation{Invariant: ReplyContract, Message: fmt.Sprintf("the reply of %s (%s by %s) breaks its contract: %s (the reply: %s)", r.Script, st.Kind, prog.Name, m, rep)}
			}
			switch st.Kind {
			case "acquire", "renew":
				if w.reply == r.Owned {
					if !w.owns || st.Kind == "acquire" {
						w.ownedEpoch = nn.epoch
					}
					w.owns = true
					w.ownedUntil = n.now + x.eng.Now() - base + x.ttl(r, st, prog.Name, &w)
				} else {
					w.owns = false
				}
			case "publish":
				w.owns = false
				w.published = true
				w.accepted = w.reply == r.Accepted
				if w.accepted && m.hasBuiltin(NoRejectedServ) {
					if v, ok := x.value(); !ok || v != w.candidate(prog.Name) {
						viol = &Violation{Invariant: NoRejectedServ, Message: fmt.Sprintf("publish by %s was accepted (%s) but the cache does not hold its candidate %q", prog.Name, line.Reply, w.candidate(prog.Name))}
					}
				}
			case "release":
				w.owns = false
			case "invalidate":
				nn.floor = max(nn.floor, nn.source)
				if r.EndsLeases {
					nn.epoch++
				}
			}
			for name, i := range r.Save {
				if rep.Kind == verify.Array && i <= len(rep.Elems) {
					w.regs[slices.Index(m.regs, name)] = text(rep.Elems[i-1])
				}
			}
		}
		nn.workers[a] = w
		x.skipBranches(nn, a)
		nn.via = line
	}
	nn.now = n.now + x.eng.Now() - base
	nn.via.at = nn.now - verify.DefaultNow
	if m.usesHist {
		nn.hist = n.hist + histKey(nn.via)
	}
	nn.keys = x.eng.Entries()
	v, ok := x.value()
	if !m.Lease {
		v, ok = "", false // no visible value outside the lease protocol
	}
	nn.via.Value, nn.via.Present, nn.via.Revision = v, ok, -1
	if ok {
		nn.via.Revision = revisionOf(v)
	}
	x.cur = nn
	return nn, viol, nil
}

// skipBranches resolves worker i's branch steps on its last reply.
func (x *explorer) skipBranches(n *node, i int) {
	w := &n.workers[i]
	steps := x.m.Workers[i].Steps
	for guard := 0; w.pc < len(steps) && jumpKind(steps[w.pc].Kind) && guard <= len(steps); guard++ {
		st := steps[w.pc]
		switch st.Kind {
		case "branch":
			if (w.reply == st.When) != st.Not {
				w.pc = st.Goto
			} else {
				w.pc++
			}
		case "if":
			if x.test(st.Cond, w) {
				w.pc++
			} else {
				w.pc = st.Goto
			}
		case "goto":
			w.pc = st.Goto
		}
	}
	if w.pc < len(steps) && jumpKind(steps[w.pc].Kind) {
		w.pc = len(steps) // a jump loop without steps ends the worker
	}
}

func (x *explorer) call(r *Role, st *Step, worker string, w *wstate) (verify.Reply, error) {
	ctx := context.Background()
	if st.Kind == "acquire" {
		w.acquired++
		w.token = fmt.Sprintf("%s-%d", worker, w.acquired)
	}
	if r.Do != nil {
		args := make([]string, len(r.Do))
		for i, s := range r.Do {
			args[i] = x.expand(s, worker, w)
		}
		rep, err := x.eng.Do(ctx, args...)
		if err != nil {
			return rep, fmt.Errorf("%s: %s: %w", x.m.Path, worker, err)
		}
		return rep, nil
	}
	keys := make([]string, len(r.Keys))
	for i, k := range r.Keys {
		keys[i] = x.m.Keys[k]
	}
	args := make([]string, len(r.Args))
	for i, a := range r.Args {
		v := a.Value
		if o, ok := st.Args[a.Name]; ok {
			v = o
		}
		args[i] = x.expand(v, worker, w)
	}
	rep, err := x.eng.Eval(ctx, r.Src, keys, args)
	if err != nil {
		return rep, fmt.Errorf("%s: %s: %s %s: %w", x.m.Path, worker, st.Kind, r.Script, err)
	}
	return rep, nil
}

func (x *explorer) ttl(r *Role, st *Step, worker string, w *wstate) int64 {
	for _, a := range r.Args {
		if a.Name == r.TTLArg {
			v := a.Value
			if o, ok := st.Args[a.Name]; ok {
				v = o
			}
			n, _ := strconv.ParseInt(x.expand(v, worker, w), 10, 64)
			return n
		}
	}
	return 0
}

// expand replaces ${...} in s for worker's step.
func (x *explorer) expand(s, worker string, w *wstate) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return refPattern().ReplaceAllStringFunc(s, func(r string) string {
		name := r[2 : len(r)-1]
		if v, ok := x.m.Vars[name]; ok {
			return v
		}
		if k, ok := strings.CutPrefix(name, "key."); ok {
			return x.m.Keys[k]
		}
		switch name {
		case "now":
			return strconv.FormatInt(x.now, 10)
		case "worker":
			return worker
		}
		return x.register(name, worker, w)
	})
}

func (x *explorer) register(name, worker string, w *wstate) string {
	switch name {
	case "token":
		return w.token
	case "candidate":
		return w.candidate(worker)
	case "revision":
		if w.revision < 0 {
			return ""
		}
		return strconv.Itoa(w.revision)
	case "reply":
		return w.reply
	case "owns":
		return strconv.FormatBool(w.owns)
	case "accepted":
		return strconv.FormatBool(w.accepted)
	}
	if i := slices.Index(x.m.regs, name); i >= 0 {
		return w.regs[i]
	}
	return ""
}

// value is the visible value: the value key's string, if any.
func (x *explorer) value() (string, bool) {
	e, ok := x.eng.Entry(x.m.Keys[x.m.ValueKey])
	if !ok || e.Type != "string" {
		return "", false
	}
	return e.Value, true
}

var revSuffix = lazy.Regexp(`@rev([0-9]{1,9})$`)

// revisionOf reads the revision a candidate text carries: its trailing
// @rev<n>; -1 when it has none.
func revisionOf(v string) int {
	m := revSuffix().FindStringSubmatch(v)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// head is a reply's head: an array's first element, else the reply itself,
// as text (an integer in decimal, a string as is, nil as "nil", an error
// as "error").
func head(r verify.Reply) string {
	if r.Kind == verify.Array {
		if len(r.Elems) == 0 {
			return "empty"
		}
		return text(r.Elems[0])
	}
	return text(r)
}

func text(r verify.Reply) string {
	switch r.Kind {
	case verify.Int:
		return strconv.FormatInt(r.Int, 10)
	case verify.Nil:
		return "nil"
	case verify.Error:
		return "error"
	case verify.Array:
		return r.String()
	}
	return r.Str
}

func (m *Model) hasBuiltin(name string) bool { return slices.Contains(m.Builtins, name) }

// invariants checks the state invariants in n (the engine holds n); final
// says n is a state where nothing can move.
func (x *explorer) invariants(n *node, final bool) (*Violation, error) {
	m := x.m
	if m.hasBuiltin(NoRegression) {
		if rev := n.via.Revision; n.via.Present && rev >= 0 {
			if rev < n.floor {
				return &Violation{Invariant: NoRegression, Message: fmt.Sprintf("the cache shows revision %d (%q) after revision %d was visible or invalidated", rev, n.via.Value, n.floor)}, nil
			}
			n.floor = max(n.floor, rev)
		}
	}
	if m.hasBuiltin(SingleOwner) {
		var owners []string
		for i, w := range n.workers {
			if w.owns && n.now < w.ownedUntil && w.ownedEpoch == n.epoch {
				owners = append(owners, m.Workers[i].Name)
			}
		}
		if len(owners) > 1 {
			return &Violation{Invariant: SingleOwner, Message: fmt.Sprintf("%s all believe they own the lease", strings.Join(owners, " and "))}, nil
		}
	}
	for _, p := range m.Preds {
		if p.Lua != "" {
			if v, err := x.luaCheck(p, n, final); err != nil || v != nil {
				return v, err
			}
			continue
		}
		if p.When != nil && !x.holds(*p.When, n) {
			continue
		}
		if !x.holds(p.Assert, n) {
			l, r := x.stateExpand(p.Assert.Left, n), x.stateExpand(p.Assert.Right, n)
			return &Violation{Invariant: p.Name, Message: fmt.Sprintf("%q %s %q does not hold", l, p.Assert.Op, r)}, nil
		}
	}
	return nil, nil
}

// holds evaluates c: integers compare as numbers; otherwise == and != compare
// texts and the order operators are false.
func (x *explorer) holds(c Compare, n *node) bool {
	l, r := x.stateExpand(c.Left, n), x.stateExpand(c.Right, n)
	a, errA := strconv.ParseInt(l, 10, 64)
	b, errB := strconv.ParseInt(r, 10, 64)
	if errA != nil || errB != nil {
		switch c.Op {
		case "==":
			return l == r
		case "!=":
			return l != r
		}
		return false
	}
	switch c.Op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}

func (x *explorer) stateExpand(s string, n *node) string {
	return refPattern().ReplaceAllStringFunc(s, func(r string) string {
		name := r[2 : len(r)-1]
		if v, ok := x.m.Vars[name]; ok {
			return v
		}
		switch name {
		case "source.revision":
			return strconv.Itoa(n.source)
		case "now":
			return strconv.FormatInt(n.now-verify.DefaultNow, 10)
		}
		parts := strings.Split(name, ".")
		if len(parts) >= 2 {
			if k, ok := x.m.Keys[parts[1]]; ok && (parts[0] == "key" || parts[0] == "pttl" || parts[0] == "revision" || parts[0] == "field") {
				e, ok := x.eng.Entry(k)
				switch parts[0] {
				case "key":
					if ok && e.Type == "string" {
						return e.Value
					}
					return ""
				case "pttl":
					if !ok {
						return "-2"
					}
					return strconv.FormatInt(e.PTTL, 10)
				case "revision":
					if ok && e.Type == "string" {
						return strconv.Itoa(revisionOf(e.Value))
					}
					return "-1"
				case "field":
					for _, f := range e.Hash {
						if len(parts) == 3 && f.Name == parts[2] {
							return f.Value
						}
					}
					return ""
				}
			}
			for i, w := range x.m.Workers {
				if w.Name == parts[0] {
					ws := n.workers[i]
					return x.register(parts[1], w.Name, &ws)
				}
			}
		}
		return ""
	})
}

// timeline walks back from n to the root.
func (x *explorer) timeline(n *node) []Line {
	var out []Line
	out = append(out, n.via)
	for i := n.parent; i > 0; i = x.nodes[i].parent {
		out = append(out, x.nodes[i].via)
	}
	slices.Reverse(out)
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

// key is the visited-state key of n: keyspace (with absolute expiries),
// clock, source, floor, epoch, environment counters and every worker's
// state. Equal keys are equal states (texts are quoted, so no two states
// share a key).
func (x *explorer) key(n *node) string {
	b := make([]byte, 0, 256)
	num := func(v int64) {
		b = strconv.AppendInt(b, v, 10)
		b = append(b, ',')
	}
	str := func(s string) {
		b = strconv.AppendQuote(b, s)
		b = append(b, ',')
	}
	num(n.now)
	num(int64(n.source))
	num(int64(n.floor))
	num(int64(n.epoch))
	for _, c := range n.env {
		num(int64(c))
	}
	for _, w := range n.workers {
		b = append(b, '|')
		num(int64(w.pc))
		num(int64(w.done))
		num(int64(w.acquired))
		str(w.token)
		num(int64(w.revision))
		str(w.reply)
		b = strconv.AppendBool(b, w.owns)
		num(w.ownedUntil)
		num(int64(w.ownedEpoch))
		b = strconv.AppendBool(b, w.accepted)
		b = strconv.AppendBool(b, w.published)
		for _, r := range w.regs {
			str(r)
		}
		if w.crashed || w.paused {
			b = strconv.AppendBool(b, w.crashed)
			b = strconv.AppendBool(b, w.paused)
			num(w.resumeAt)
		}
		if x.m.usesIf {
			b = fmt.Appendf(b, "%v,", w.last)
		}
	}
	if x.m.usesHist {
		str(n.hist)
	}
	for _, e := range n.keys {
		b = append(b, '|')
		str(e.Key)
		str(e.Type)
		exp := int64(-1)
		if e.PTTL >= 0 {
			exp = n.now + e.PTTL
		}
		num(exp)
		switch e.Type {
		case "string":
			str(e.Value)
		case "hash":
			for _, f := range e.Hash {
				str(f.Name)
				str(f.Value)
			}
		case "stream":
			b = fmt.Appendf(b, "%+v", *e.Stream) // the contents, not the pointer
		default:
			b = fmt.Appendf(b, "%q%q%+v", e.List, e.Set, e.ZSet)
		}
	}
	return string(b)
}

// storedBytes estimates what storing n, reached under visited-state key
// k, holds: the node and its slices, every keyspace entry's strings, the
// workers' registers and tokens, the key in the visited map and n's place
// in the node list. An estimate from above (Go's headers and map buckets
// at their sizes), so that MaxMemory bounds the live heap the states take.
func storedBytes(n *node, k string) int64 {
	const (
		str   = int64(unsafe.Sizeof(""))
		slice = int64(unsafe.Sizeof([]int(nil)))
		entry = int64(unsafe.Sizeof(verify.Entry{}))
		work  = int64(unsafe.Sizeof(wstate{}))
		mapKV = 64 // a visited entry: key header, id, bucket share
	)
	// succ grows once the node is stored: an edge per enabled action.
	b := int64(unsafe.Sizeof(node{})) + 8 + mapKV + int64(len(k)) + 8*int64(len(n.env)) + 8*int64(len(n.workers)+len(n.env))
	for _, e := range n.keys {
		b += entry + int64(len(e.Key)+len(e.Value))
		for _, f := range e.Hash {
			b += 2*str + int64(len(f.Name)+len(f.Value))
		}
		for _, v := range e.List {
			b += str + int64(len(v))
		}
		for _, v := range e.Set {
			b += str + int64(len(v))
		}
		for _, z := range e.ZSet {
			b += str + 8 + int64(len(z.Member))
		}
		if e.Stream != nil {
			b += 1024 // streams are rare in models: a flat share
		}
		b += int64(len(e.FieldTTL)) * (str + 8 + 16)
	}
	b += int64(len(n.hist))
	for _, w := range n.workers {
		b += work + int64(len(w.token)+len(w.reply)) + slice
		for _, r := range w.regs {
			b += str + int64(len(r))
		}
	}
	return b
}
