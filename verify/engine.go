package verify

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/keyspace"
)

func init() {
	// gopher-lua keeps every integer key below MaxArrayIndex in a dense
	// array: t[60000000] = 1 would allocate about a gigabyte. Lua 5.1 puts
	// such a key in the hash part; so does gopher-lua above this bound.
	lua.MaxArrayIndex = maxArrayIndex
}

// maxArrayIndex bounds gopher-lua's dense array part (4M entries, 64 MB).
const maxArrayIndex = 1 << 22

// DefaultNow is the virtual clock's start when Options.Now is 0:
// 2023-11-14T22:13:20Z in Unix milliseconds.
const DefaultNow int64 = 1_700_000_000_000

// Options configure an Engine.
type Options struct {
	Now int64 // virtual clock start, Unix ms; 0 means DefaultNow
	// StepLimit bounds one script or function run in Lua VM instructions
	// (limits.go); 0 means DefaultStepLimit. Past it the run stops with a
	// "step-limit" RunError.
	StepLimit int64
	// Timeout is a wall-clock limit on one script or function run, only
	// when positive: Redis has none. Past it the run stops with a
	// "timeout" RunError.
	Timeout time.Duration
	// Target names the server the engine imitates ("redis-7.0",
	// "valkey-8.1", ...; Targets lists them); "" means DefaultTarget. With
	// an unknown name every run fails with a RunError (check it first with
	// CheckTarget).
	Target string
	// MemoryLimit bounds the keyspace plus the strings scripts build, in
	// bytes (memory.go); past it a run stops with a "memory" RunError. 0
	// means DefaultMemoryLimit.
	MemoryLimit int64
	// Topology is the server the engine imitates: TopologyCluster (""
	// too) or TopologyStandalone (topology.go). Any other name is a
	// TopologyCluster; check it first with CheckTopology.
	Topology string
	// NodeSlots are the slots the cluster node serves besides the
	// declared keys' slot; nil means the documented model (serves).
	NodeSlots []SlotRange
	// StrictKeys stops a run at its first access to a key not in KEYS
	// (a RunError with code undeclared-key), as proxies that demand
	// declared keys do; without it the access is a Finding.
	StrictKeys bool
	// LoadStepLimit is FUNCTION LOAD's budget in Lua VM instructions, the
	// offline stand-in for Redis's 500 ms limit on a library's top-level
	// code (limits.go); 0 means the calibrated default. Past it the load
	// answers Redis's "FUNCTION LOAD timeout" and LoadBudgetSpent says
	// the budget, not the code, refused it.
	LoadStepLimit int64
	// MemoryOutside, when set, is the bytes of live heap the caller holds
	// outside the engine (explore's stored states): when the engine
	// measures its memory (memory.go) it leaves them out, so a caller's
	// own data is never blamed on the script.
	MemoryOutside func() int64
	// Once says the engine serves one run or one FUNCTION LOAD and is
	// then dropped (a pre-flight syntax check): its Lua sandboxes are
	// not recorded for Reset (a walk of every table of a sandbox just
	// built), and Reset and SCRIPT FLUSH build them again on first use
	// instead of restoring them. Replies are the same.
	Once bool
}

// Engine is one offline Redis: a keyspace on a virtual clock, a Functions
// library registry and the Lua sandbox that runs scripts against them. An
// Engine is not safe for concurrent use; run one per goroutine.
type Engine struct {
	opts    Options       // as given to New, for Reset
	timeout time.Duration // 0: no wall-clock limit
	steps   int64         // the step budget of a run
	t       *serverFacts  // the target imitated
	tErr    *RunError     // an unknown Options.Target
	// srv is the offline server's data side: the databases, the virtual
	// clock and the data commands (package keyspace).
	srv     *keyspace.Server
	rand    rand48
	funcs   *functions
	evalRun *scriptRun // the EVAL sandbox, built on first use
	// evalCallInfo is the call depth the EVAL sandbox is built with:
	// callInfoFresh, or callInfoGrown after a stack overflow (overflow.go).
	evalCallInfo int
	sources      map[string][]byte // the script cache EVALSHA reads, by SHA
	// callTick is how far the clock moves before each command a script
	// runs (clockshift.go); 0 normally.
	callTick int64
	// warnings lists the approximations of the last run (Warnings).
	warnings []string
	// findings lists the undeclared key accesses of the last run.
	findings []Finding
	// memory budget (memory.go): the limit, the use measured last, and
	// the bytes charged since.
	memLimit, memBase, memCharged int64
	// loadSteps is FUNCTION LOAD's budget; loadSpent says the last
	// FunctionLoad stopped at it.
	loadSteps int64
	loadSpent bool
}

// New returns an empty engine.
func New(opts Options) *Engine {
	e := &Engine{}
	e.init(opts)
	return e
}

// init makes e the empty engine New returns. The server's warnings go to
// e, so it must be set up in place.
func (e *Engine) init(opts Options) {
	*e = Engine{opts: opts, timeout: opts.Timeout}
	t, err := lookupTarget(opts.Target)
	if err != nil {
		t, e.tErr = targets.Get()[DefaultTarget], &RunError{Code: CodeUnknownTarget, Msg: err.Error()}
	}
	e.t = t
	now := opts.Now
	if now == 0 {
		now = DefaultNow
	}
	if e.timeout < 0 {
		e.timeout = 0
	}
	e.steps = opts.StepLimit
	if e.steps <= 0 {
		e.steps = DefaultStepLimit
	}
	e.loadSteps = opts.LoadStepLimit
	if e.loadSteps <= 0 {
		e.loadSteps = loadStepLimit
	}
	e.memLimit = opts.MemoryLimit
	if e.memLimit <= 0 {
		e.memLimit = DefaultMemoryLimit
	}
	e.srv = keyspace.NewServer(keyspace.Config{Now: now, Target: t.cmds, Cluster: e.cluster(), Warn: e.warn, Grow: e.growKeyspace})
	e.sources = map[string][]byte{}
	e.rand.x = rand48Init
	e.funcs = newFunctions()
}

// Reset makes e the engine New(opts) would return (empty keyspace, clock
// at its start, no libraries, an empty script cache, math.random's start
// state) but keeps its Lua sandboxes, restored to the state they were built
// in: nothing a run did to them (globals it tried to write, metatables it
// changed, cjson settings, loadstring chunks) is visible to the next run.
// A sandbox whose run was stopped (timeout, stack overflow, ...) is dropped
// and built again on first use. Reset lets a caller run many independent
// scenarios on one engine without paying for a new sandbox each time.
func (e *Engine) Reset() {
	evalRun, fs := e.evalRun, e.funcs
	e.init(e.opts)
	if evalRun != nil && evalRun.sealed && !evalRun.broken && (!evalRun.grown || evalRun.freshCallInfos()) {
		evalRun.reset()
		e.evalRun = evalRun
	}
	switch {
	case fs.run == nil:
	case !fs.run.sealed, fs.run.broken, fs.run.grown && !fs.run.freshCallInfos():
		fs.run.L.Close()
	default:
		fs.run.reset()
		e.funcs.run, e.funcs.api = fs.run, fs.api
	}
}

// Target returns the name of the server the engine imitates.
func (e *Engine) Target() string { return e.t.name }

// Now returns the virtual clock in Unix milliseconds.
func (e *Engine) Now() int64 { return e.srv.Now() }

// Advance moves the virtual clock forward by ms milliseconds. A key whose
// expiry is before the new time is gone, exactly like Redis (keyIsExpired:
// now > when): a key with PTTL 100 still exists after Advance(100), with
// PTTL 0, and is gone after Advance(101).
// A negative ms is ignored: the clock never runs backwards.
func (e *Engine) Advance(ms int64) { e.srv.Advance(ms) }

// Entries returns the live (not expired) keys of the selected database,
// sorted by key.
func (e *Engine) Entries() []Entry { return e.srv.Entries() }

// Entry returns one live key: a copy, which the caller may change.
func (e *Engine) Entry(key string) (Entry, bool) { return e.srv.Entry(key) }

// Put creates or replaces a key (initial state), writing its contents in the
// order given, as HSET, RPUSH, SADD and ZADD with the same arguments would:
// a hash keeps its fields in that order (a field given twice keeps its
// first place and its last value), a list its elements; a stream is built
// as XADDs of its entries in order, then its counters and groups are set
// (CheckStream tells whether a StreamState is one Redis could hold; Put
// deletes the key for one it could not, or a nil Stream; a negative
// delivery or seen time is the virtual clock's now). Type "string" (or
// empty) is a string. A collection with nothing in it deletes the key
// instead, since Redis has no empty collections (a stream may be empty). A
// positive PTTL expires the key that many ms from now; any other PTTL means
// no expiry; a hash's FieldTTL expires its fields alike, given in field
// order as HPEXPIRE would. A NaN score is left out, as ZADD refuses it. The
// contents are charged to the memory budget (memory.go).
func (e *Engine) Put(en Entry) {
	if e.srv.Put(en) {
		e.charge(len(en.Key) + entryBytes(en))
	}
}

// SHA1 returns the hex SHA1 of src: the name EVALSHA and SCRIPT LOAD use.
func SHA1(src []byte) string {
	sum := sha1.Sum(src)
	return hex.EncodeToString(sum[:])
}

// Eval runs src exactly like EVAL src numkeys key... arg.... The Reply is
// what a RESP2 client receives, error replies included. err is non-nil only
// when the run cannot be judged offline; it is then a *RunError.
func (e *Engine) Eval(ctx context.Context, src []byte, keys, args []string) (Reply, error) {
	if e.tErr != nil {
		return Reply{}, e.tErr
	}
	e.warnings, e.findings = nil, nil
	return e.eval(ctx, src, keys, args, false)
}

// EvalRO is Eval as EVAL_RO: a write command fails the script.
func (e *Engine) EvalRO(ctx context.Context, src []byte, keys, args []string) (Reply, error) {
	if e.tErr != nil {
		return Reply{}, e.tErr
	}
	e.warnings, e.findings = nil, nil
	return e.eval(ctx, src, keys, args, true)
}

// Warnings returns the approximations detected during the last Eval,
// EvalRO, FCall, FCallRO or FunctionLoad: a reply whose text the engine
// could not make certain to match Redis (for example an error whose wording
// comes from gopher-lua rather than Lua 5.1). An empty list means no known
// divergence was hit.
func (e *Engine) Warnings() []string { return append([]string(nil), e.warnings...) }

// Do runs one command as a client sends it (outside any script), for
// example Do(ctx, "SET", "k", "v"). EVAL, EVAL_RO, EVALSHA, EVALSHA_RO,
// SCRIPT LOAD/EXISTS/FLUSH/KILL, FCALL, FCALL_RO and FUNCTION
// LOAD/FLUSH/DELETE/LIST/STATS/KILL are accepted too.
func (e *Engine) Do(ctx context.Context, args ...string) (Reply, error) {
	if e.tErr != nil {
		return Reply{}, e.tErr
	}
	if len(args) == 0 {
		return ErrorReply("ERR empty command"), nil
	}
	switch strings.ToLower(args[0]) {
	case "eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro":
		return e.doScript(ctx, args)
	case "function":
		return e.doFunction(args)
	case "script":
		return e.doScriptCmd(args)
	}
	return e.exec(nil, args)
}
