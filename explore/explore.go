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
	// Put reads a PTTL of 0 as no expiry, but a snapshot taken when a key's
	// expiry time was reached holds one (the key lives for that
	// millisecond, as in Redis): every TTL goes in 1 ms longer and the
	// clock moves 1 ms, so each key and field has its own TTL again.
	for _, e := range n.keys {
		if e.PTTL >= 0 {
			e.PTTL++
		}
		if len(e.FieldTTL) > 0 {
			ttl := make(map[string]int64, len(e.FieldTTL))
			for f, ms := range e.FieldTTL {
				ttl[f] = ms + 1
			}
			e.FieldTTL = ttl
		}
		x.eng.Put(e)
	}
	x.eng.Advance(1)
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
