package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/manifest"
)

// DefaultParallel is how many nodes a deploy works on at once.
const DefaultParallel = 16

// DefaultReplicaWait bounds how long a deploy waits for a replica to show a
// library its primary loaded.
const DefaultReplicaWait = 10 * time.Second

// DeployOptions tune Deploy.
type DeployOptions struct {
	Options
	DryRun      bool          // plan only: take no lock, change nothing
	LockTimeout time.Duration // wait this long for another deploy's lock (DefaultLockTimeout when 0)
	LockTTL     time.Duration // the lease of the lock (DefaultLockTTL when 0)
	ReplicaWait time.Duration // DefaultReplicaWait when 0
	// Progress, when set, receives one line per finished node.
	Progress func(format string, args ...any)
	// ItemProgress, when set, receives one line per item the node loaded
	// (loaded, replaced or replicated), just before the node's Progress
	// line.
	ItemProgress func(format string, args ...any)
	// Approve, when set, sees the plan made under the lock, after the
	// conflict check and before anything is loaded: an error stops the
	// deploy there, nothing changed, and Deploy returns the report (no
	// nodes) with that error. A saved plan compares itself here; an
	// interactive deploy asks.
	Approve func(*PlanReport) error
}

// Outcome is what a deploy did with one item on one node.
type Outcome string

// Outcomes.
const (
	OutcomeLoaded        Outcome = "loaded"         // loaded by this run
	OutcomeReplaced      Outcome = "replaced"       // a library replaced under --replace
	OutcomeReplicated    Outcome = "replicated"     // a replica now shows the library its primary loaded
	OutcomeAlreadyLoaded Outcome = "already_loaded" // nothing to do
	OutcomeUnsupported   Outcome = "unsupported"    // no Functions before Redis 7.0
	OutcomeFailed        Outcome = "failed"
	OutcomeSkipped       Outcome = "skipped" // not attempted: interrupted, or an earlier item on the node failed
	// OutcomeUnknown: sent, but the node's reply was never read (the
	// connection broke or a reply passed the reply limits): the node may
	// or may not have applied it, and the report does not claim either.
	OutcomeUnknown Outcome = "unknown"
)

// ItemResult is the outcome of one planned item.
type ItemResult struct {
	Item
	Outcome Outcome
	Err     error
}

// NodeResult is what a deploy did on one node.
type NodeResult struct {
	Node  *Node
	Items []ItemResult
	Err   *NodeError // the failure that stopped work on the node, or nil
	// Interrupted is set when the run stopped before the node was done.
	Interrupted bool
}

// Status is "ok", "failed" or "interrupted".
func (r *NodeResult) Status() string {
	switch {
	case r.Err != nil:
		return "failed"
	case r.Interrupted:
		return "interrupted"
	}
	return "ok"
}

// DeployReport is the outcome of a deploy, per node and item.
type DeployReport struct {
	Plan   *PlanReport
	Nodes  []*NodeResult // empty under DryRun, or when the deploy was refused
	DryRun bool
	Lock   string // key@node of the deploy lock held, "" when none
}

// Counts returns how many items were loaded (loaded, replaced or
// replicated) and how many failed.
func (r *DeployReport) Counts() (changed, failed int) {
	for _, nr := range r.Nodes {
		for _, it := range nr.Items {
			switch it.Outcome {
			case OutcomeLoaded, OutcomeReplaced, OutcomeReplicated:
				changed++
			case OutcomeFailed, OutcomeUnknown:
				failed++
			}
		}
	}
	return changed, failed
}

// Deploy loads the manifest's scripts on every node and its library on
// every primary, under the deploy lock, then confirms every replica has the
// library. Work is parallel (Parallel nodes at once); a failing node does
// not stop the others; items already loaded are left alone, so a rerun
// converges. When ctx ends, nodes not yet started are left alone and the
// report says so.
//
// The report is returned whenever the deploy got as far as a plan. The error
// is a *LockError, a *ConflictError (nothing changed), a *NodesError naming
// every failed node, or the cause of an interruption.
func Deploy(ctx context.Context, t *Topology, m *manifest.Manifest, opts DeployOptions) (*DeployReport, error) {
	if opts.DryRun {
		p, err := Plan(ctx, t, m, opts.Options)
		if err != nil {
			return nil, err
		}
		rep := &DeployReport{Plan: p, DryRun: true}
		if err := p.Conflicts(); err != nil {
			return rep, err
		}
		return rep, p.Unreachable()
	}
	if err := CheckPermissions(ctx, t, DeployWork(m, opts.Mode)); err != nil {
		return nil, err
	}
	var rep *DeployReport
	err := withLock(ctx, t, m.Library, opts.LockTimeout, opts.LockTTL, opts.Notice, func(ctx context.Context, lock string) error {
		var err error
		rep, err = deploy(ctx, t, m, opts)
		if rep != nil {
			rep.Lock = lock
		}
		return err
	})
	return rep, err
}

func deploy(ctx context.Context, t *Topology, m *manifest.Manifest, opts DeployOptions) (*DeployReport, error) {
	code := m.FunctionsLibrary()
	p, err := plan(ctx, t, m, opts.Options, code)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	rep := &DeployReport{Plan: p}
	if err := p.Conflicts(); err != nil {
		return rep, err
	}
	if opts.Approve != nil {
		if err := opts.Approve(p); err != nil {
			return rep, err
		}
	}
	parallel := opts.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	replicaWait := opts.ReplicaWait
	if replicaWait <= 0 {
		replicaWait = DefaultReplicaWait
	}
	rep.Nodes = make([]*NodeResult, len(p.Nodes))
	for i, np := range p.Nodes {
		rep.Nodes[i] = &NodeResult{Node: np.Node}
		if !np.Node.OK() {
			rep.Nodes[i].Err = nodeErr(np.Node)
		}
	}
	var progressMu sync.Mutex
	progress := func(nr *NodeResult) {
		progressMu.Lock()
		defer progressMu.Unlock()
		if opts.ItemProgress != nil {
			for _, it := range nr.Items {
				switch it.Outcome {
				case OutcomeLoaded, OutcomeReplaced, OutcomeReplicated:
					what := it.Name
					if it.Kind == KindScript {
						what += " " + it.SHA
					}
					opts.ItemProgress("%s %s: %s %s %s", nr.Node.Role, nr.Node.Addr, it.Kind, what, it.Outcome)
				}
			}
		}
		if opts.Progress != nil {
			opts.Progress("%s %s: %s", nr.Node.Role, nr.Node.Addr, nr.Status())
		}
	}

	// Every node's items go in one pipelined round trip, nodes in
	// parallel. A replica's confirmation starts as soon as its primary is
	// done: done[primary] closes then, whatever the outcome.
	done := map[string]chan struct{}{}
	results := map[string]*NodeResult{}
	for _, nr := range rep.Nodes {
		results[nr.Node.Addr] = nr
		if nr.Node.Role == RolePrimary {
			done[nr.Node.Addr] = make(chan struct{})
		}
	}
	finish := func(nr *NodeResult) {
		if ch, ok := done[nr.Node.Addr]; ok {
			close(ch)
		}
	}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, np := range p.Nodes {
		nr := rep.Nodes[i]
		if nr.Err != nil {
			finish(nr)
			continue
		}
		acquired := false
		select {
		case sem <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			if acquired {
				<-sem
			}
			// Stop between nodes: what is not started stays untouched.
			nr.Interrupted = true
			for _, it := range np.Items {
				nr.Items = append(nr.Items, ItemResult{Item: it, Outcome: OutcomeSkipped})
			}
			finish(nr)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A node once started is finished: its commands do not see
			// the cancellation, each is bounded by the node timeout.
			applyNode(context.WithoutCancel(ctx), np, nr, m, code, opts.Replace)
			j := slices.IndexFunc(nr.Items, func(it ItemResult) bool { return it.Kind == KindLibrary && it.Outcome == "" })
			if np.Node.Role != RoleReplica || nr.Err != nil || j < 0 {
				// The slot is freed after the progress report, so a
				// cancellation it causes is seen before the next node
				// starts.
				progress(nr)
				finish(nr)
				<-sem
				return
			}
			// A replica frees its slot before it waits for its primary,
			// which may need the slot to start.
			<-sem
			// The replica must show the library its primary loaded.
			primary := results[nr.Node.Primary]
			if ch, ok := done[nr.Node.Primary]; ok {
				<-ch
			}
			primaryFailed := primary != nil && (primary.Err != nil || primary.Interrupted)
			confirmReplica(ctx, nr, j, code, replicaWait, primaryFailed)
			progress(nr)
		}()
	}
	wg.Wait()

	var ne NodesError
	for _, nr := range rep.Nodes {
		if nr.Err != nil {
			ne.Errs = append(ne.Errs, nr.Err)
		}
	}
	if ctx.Err() != nil {
		done, total := 0, 0
		for _, nr := range rep.Nodes {
			total++
			if !nr.Interrupted {
				done++
			}
		}
		cause := interrupted(ctx, ctx.Err())
		if len(ne.Errs) > 0 {
			return rep, fmt.Errorf("%w after %d of %d nodes; also %v", cause, done, total, &ne)
		}
		return rep, fmt.Errorf("%w after %d of %d nodes: rerun deploy to finish", cause, done, total)
	}
	if len(ne.Errs) > 0 {
		return rep, &ne
	}
	return rep, nil
}

// interrupted returns why ctx ended: ErrLockLost as such, a plain
// cancellation as ErrInterrupted.
func interrupted(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	if cause == nil {
		return err
	}
	if errors.Is(cause, ErrLockLost) {
		return cause
	}
	if errors.Is(cause, context.Canceled) {
		return ErrInterrupted
	}
	return cause
}

// applyNode carries out one node's plan: every script load and the library
// load in one pipelined round trip. Each item gets its own outcome; the
// first failure is the node's error.
func applyNode(ctx context.Context, np *NodePlan, nr *NodeResult, m *manifest.Manifest, code []byte, replace bool) {
	n := np.Node
	nr.Items = make([]ItemResult, len(np.Items))
	scripts := make(map[string]*manifest.Script, len(m.Scripts))
	for _, s := range m.Scripts {
		scripts[s.Name] = s
	}
	var cmds []rueidis.Completed
	var sent []int // the item of each command
	for i, it := range np.Items {
		res := &nr.Items[i]
		res.Item = it
		switch {
		case it.Action == ActionAlreadyLoaded:
			res.Outcome = OutcomeAlreadyLoaded
		case it.Action == ActionUnsupported:
			res.Outcome = OutcomeUnsupported
		case it.Kind == KindScript:
			cmds = append(cmds, n.conn.c.B().ScriptLoad().Script(string(scripts[it.Name].Source)).Build())
			sent = append(sent, i)
		case it.Kind == KindLibrary && n.Role == RoleReplica:
			// Left for confirmReplica: replication brings the library.
		case it.Kind == KindLibrary:
			cmds = append(cmds, n.conn.functionLoad(code, replace))
			sent = append(sent, i)
		}
	}
	for k, r := range n.conn.doMulti(ctx, cmds...) {
		res := &nr.Items[sent[k]]
		got, err := r.ToString()
		var op string
		switch res.Kind {
		case KindScript:
			s := scripts[res.Name]
			op = "script load " + s.Name
			switch {
			case err != nil:
				res.Err = err
			case !strings.EqualFold(got, s.SHA):
				res.Err = fmt.Errorf("%s: the node returned SHA %s, the file's bytes hash to %s: node aborted", s.Name, got, s.SHA)
			default:
				res.Outcome = OutcomeLoaded
			}
		default:
			op = "function load " + res.Name
			switch {
			case err != nil:
				res.Err = err
			case !strings.EqualFold(got, res.Name):
				res.Err = fmt.Errorf("the node loaded library %q, want %q", got, res.Name)
			case res.Replace:
				res.Outcome = OutcomeReplaced
			default:
				res.Outcome = OutcomeLoaded
			}
		}
		if res.Err != nil {
			res.Outcome = OutcomeFailed
			if _, isReply := rueidis.IsRedisErr(res.Err); !isReply && err != nil {
				// No reply was read for it: what the node did is unknown.
				res.Outcome = OutcomeUnknown
				res.Err = fmt.Errorf("no reply read, whether the node applied it is unknown: %w", res.Err)
			}
			if nr.Err == nil {
				nr.Err = &NodeError{Node: n.Addr, Op: op, Err: res.Err}
			}
		}
	}
}

// Replica confirmation polls FUNCTION LIST with a backoff from
// confirmFirstPoll doubling up to confirmMaxPoll.
const (
	confirmFirstPoll = 2 * time.Millisecond
	confirmMaxPoll   = 100 * time.Millisecond
)

// confirmReplica polls the replica until it lists the library with the
// manifest's code, or wait passes. Each poll is bounded by the node
// timeout: a replica that does not answer within it fails at once rather
// than holding the run until wait.
func confirmReplica(ctx context.Context, nr *NodeResult, j int, code []byte, wait time.Duration, primaryFailed bool) {
	n := nr.Node
	it := &nr.Items[j]
	deadline := time.Now().Add(wait)
	opCtx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	defer cancel()
	delay := confirmFirstPoll
	var last error
	for {
		lib, err := findLibrary(opCtx, n, it.Name)
		switch {
		case err != nil && errors.Is(err, context.DeadlineExceeded) && time.Now().Before(deadline):
			last = fmt.Errorf("the replica did not answer FUNCTION LIST within --timeout %s", n.conn.timeout)
			it.Outcome, it.Err = OutcomeFailed, last
			nr.Err = &NodeError{Node: n.Addr, Op: "confirm replica", Err: last}
			return
		case err != nil && errors.Is(err, context.DeadlineExceeded):
			last = fmt.Errorf("%s not replicated from %s within --replica-wait %s (the replica stopped answering)", it.Name, n.Primary, wait)
		case err != nil:
			last = err
		case lib != nil && bytes.Equal(lib.Code, code):
			it.Outcome = OutcomeReplicated
			return
		case lib != nil:
			last = fmt.Errorf("the replica lists %s with code that differs from the manifest", it.Name)
		default:
			last = fmt.Errorf("%s not replicated from %s within --replica-wait %s", it.Name, n.Primary, wait)
			if primaryFailed {
				last = fmt.Errorf("%s not replicated: its primary %s failed", it.Name, n.Primary)
			}
		}
		if ctx.Err() != nil {
			it.Outcome = OutcomeSkipped
			nr.Interrupted = true
			return
		}
		left := time.Until(deadline)
		if left <= 0 || primaryFailed {
			break
		}
		time.Sleep(min(delay, left))
		delay = min(2*delay, confirmMaxPoll)
	}
	it.Outcome, it.Err = OutcomeFailed, last
	nr.Err = &NodeError{Node: n.Addr, Op: "confirm replica", Err: last}
}
