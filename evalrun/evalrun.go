// Package evalrun runs one Lua script once, the way `redis-cli --eval`
// does: offline in the verify engine, on a live server, or on both with the
// replies and the stored keys compared. It owns the redis-cli --eval
// argument syntax, the generated one-function library of function mode, the
// keyspace a run starts from and leaves, and the text and JSON reports of
// `scriptctl eval`. It does not parse flags, dial servers (package connect)
// or format replies itself (package rediscli).
package evalrun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// Mode is how the script runs: as EVAL, or as FCALL of a generated library.
type Mode string

const (
	ModeEval     Mode = "eval"
	ModeFunction Mode = "function"
)

// ParseMode checks a --mode value.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeEval, ModeFunction:
		return Mode(s), nil
	}
	return "", fmt.Errorf("invalid mode %q: want eval or function", s)
}

// LibraryName and FunctionName name the library function mode generates:
// the script becomes the only function of library scriptctl_eval, called
// as FCALL scriptctl_eval numkeys key... arg.... A live run loads it with
// FUNCTION LOAD (no REPLACE) and deletes it afterwards.
const (
	LibraryName  = "scriptctl_eval"
	FunctionName = "scriptctl_eval"
)

// SplitArgs splits the words after the script file the way redis-cli
// --eval does: the first word that is exactly "," separates the keys from
// the args; without one every word is a key; later lone commas are args;
// "a,b" is one word.
func SplitArgs(words []string) (keys, args []string) {
	keys, args = []string{}, []string{}
	for i, w := range words {
		if w == "," {
			return append(keys, words[:i]...), append(args, words[i+1:]...)
		}
	}
	return append(keys, words...), args
}

// Library returns the Functions library of function mode for src: the
// script's body (shebang line blanked, line numbers kept) registered as
// FunctionName with the shebang's flags. A shebang that names another engine
// or an unknown option is an error: it has no function equivalent.
//
// The body starts on the library's line libraryHeader+1: the library's
// shebang and the register_function line come first.
func Library(src []byte) ([]byte, error) {
	flags, _, err := manifest.Shebang(src)
	if err != nil {
		return nil, fmt.Errorf("function mode: %w", err)
	}
	lib := "#!lua name=" + LibraryName + "\n" + manifest.FunctionBlock(FunctionName, src, flags)
	return []byte(lib), nil
}

// libraryHeader is how many lines Library writes before the script's body.
const libraryHeader = 2

// Request is one run.
type Request struct {
	Source []byte         // the script's exact bytes
	Keys   []string       // KEYS
	Args   []string       // ARGV
	Mode   Mode           // eval (default) or function
	State  []scenario.Key // initial keyspace (--state)
	Now    int64          // offline clock start, Unix ms; 0 means verify.DefaultNow
	// Target is the server the offline run imitates; "" is
	// verify.DefaultTarget.
	Target string
	// Timeout is a wall-clock limit on the offline run; 0 means none (the
	// engine's step budget still applies).
	Timeout time.Duration
	// Topology is the server the offline run imitates (verify.Topologies;
	// "" is a cluster node); StrictKeys stops it at a key not in KEYS.
	Topology   string
	StrictKeys bool
	// ClearKeys makes a live run delete the declared keys first, so it
	// starts from the same keyspace as the offline run (--diff).
	ClearKeys bool

	// probe moves an offline run's clock (clock probes, see Run): before
	// the script runs, and before every command it runs.
	pre, tick int64
}

// Step names what produced a Side's reply.
const (
	StepEval         = "eval"
	StepFCall        = "fcall"
	StepFunctionLoad = "function_load" // the generated library did not load
)

// Side is the outcome of a run on one side.
type Side struct {
	Name  string       // "offline" or "live"
	Addr  string       // live: host:port, never a password
	Step  string       // StepEval, StepFCall or StepFunctionLoad
	Reply verify.Reply // what a RESP2 client received (error replies included)
	// RunErr is set (and Reply is not) when the offline engine could not
	// judge the run: a command it does not implement, an undeclared key, a
	// timeout.
	RunErr *verify.RunError
	// Warnings are the engine's known approximations hit by this run.
	Warnings []string
	// Findings are the offline run's undeclared key accesses (each a
	// warning diagnostic, code undeclared-key).
	Findings []verify.Finding
	// Keys are the run's keys after it: the declared KEYS and the --state
	// keys that exist, sorted by name.
	Keys []scenario.Key
	// Keyspace is the whole keyspace after an offline run (for --save).
	Keyspace []scenario.Key

	clockStart int64 // live: the server's TIME (Unix ms) just before the script ran
}

// outcome is the side's reply and keys, for the clock probes.
func (s *Side) outcome() scenario.Outcome {
	if s == nil || s.RunErr != nil {
		return scenario.Outcome{}
	}
	r := s.Reply
	return scenario.Outcome{Reply: &r, Keys: s.Keys}
}

// HasReply reports whether the side produced a Redis reply.
func (s *Side) HasReply() bool { return s.RunErr == nil }

// touched returns the keys a run is inspected on: the declared keys and
// the state's, sorted, without duplicates.
func (r *Request) touched() []string {
	names := append([]string(nil), r.Keys...)
	for _, k := range r.State {
		names = append(names, k.Name)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// Offline runs req in a fresh verify engine seeded with req.State. The
// error is non-nil only when ctx ends or the library cannot be generated;
// a run the engine cannot judge is reported in Side.RunErr.
func Offline(ctx context.Context, req Request) (*Side, error) {
	e := verify.New(verify.Options{Now: req.Now, Timeout: req.Timeout, Target: req.Target, Topology: req.Topology, StrictKeys: req.StrictKeys})
	for _, k := range req.State {
		e.Put(k.Entry())
	}
	e.Advance(req.pre)
	e.SetCallTick(req.tick)
	side := &Side{Name: "offline", Step: StepEval}
	var r verify.Reply
	var err error
	if req.Mode == ModeFunction {
		lib, lerr := Library(req.Source)
		if lerr != nil {
			return nil, lerr
		}
		side.Step = StepFunctionLoad
		r, err = e.FunctionLoad(lib, false)
		if err == nil && r.Kind != verify.Error {
			side.Step = StepFCall
			r, err = e.FCall(ctx, FunctionName, req.Keys, req.Args)
		}
	} else {
		r, err = e.Eval(ctx, req.Source, req.Keys, req.Args)
	}
	side.Warnings = e.Warnings()
	side.Findings = e.Findings()
	if err != nil {
		var re *verify.RunError
		if !errors.As(err, &re) {
			return nil, err
		}
		side.RunErr = re
	} else {
		side.Reply = r
	}
	for _, name := range req.touched() {
		if en, ok := e.Entry(name); ok {
			side.Keys = append(side.Keys, scenario.KeyOf(en))
		}
	}
	for _, en := range e.Entries() {
		side.Keyspace = append(side.Keyspace, scenario.KeyOf(en))
	}
	return side, nil
}

// Conn is a live server as a run needs it: one command in, its exact
// RESP2 reply out. err is a connection or protocol failure, never an error
// reply.
type Conn interface {
	Do(ctx context.Context, args ...string) (verify.Reply, error)
}

// allPrimaries is a Conn to a cluster (package liveconn): FUNCTION LOAD
// and FUNCTION DELETE go to every primary, so FCALL finds the library on
// whichever primary serves its keys.
type allPrimaries interface {
	DoAll(ctx context.Context, args ...string) (verify.Reply, error)
}

// doAll sends args to every primary when conn reaches several, else to
// the one server.
func doAll(ctx context.Context, conn Conn, args ...string) (verify.Reply, error) {
	if a, ok := conn.(allPrimaries); ok {
		return a.DoAll(ctx, args...)
	}
	return conn.Do(ctx, args...)
}

// RueidisConn adapts a rueidis client, which must speak RESP2
// (ClientOption.AlwaysRESP2) for the replies redis-cli shows. timeout
// bounds each command; 0 means none.
func RueidisConn(c rueidis.Client, timeout time.Duration) Conn {
	return rueidisConn{c: c, timeout: timeout}
}

type rueidisConn struct {
	c       rueidis.Client
	timeout time.Duration
}

func (c rueidisConn) Do(ctx context.Context, args ...string) (verify.Reply, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	res := c.c.Do(ctx, c.c.B().Arbitrary(args...).Build())
	if err := res.NonRedisError(); err != nil {
		return verify.Reply{}, err
	}
	msg, _ := res.ToMessage()
	return verify.FromMessage(msg)
}

// LiveError is a live run that failed outside the script: the connection
// dropped, or the --state keys could not be written.
type LiveError struct {
	Op   string // what was being done, e.g. "write --state key \"lease\""
	Addr string
	Err  error
}

func (e *LiveError) Error() string { return fmt.Sprintf("%s on %s: %v", e.Op, e.Addr, e.Err) }
func (e *LiveError) Unwrap() error { return e.Err }

// Live runs req on the server behind conn (addr names it in messages):
// the --state keys are written first (each replaced), then the script runs
// as EVAL, or its generated library is loaded, called with FCALL and
// deleted again. The declared and state keys are read back afterwards.
func Live(ctx context.Context, conn Conn, addr string, req Request) (*Side, error) {
	side := &Side{Name: "live", Addr: addr, Step: StepEval}
	do := func(op string, args ...string) (verify.Reply, error) {
		r, err := conn.Do(ctx, args...)
		if err != nil {
			return r, &LiveError{Op: op, Addr: addr, Err: err}
		}
		return r, nil
	}
	if req.ClearKeys {
		for _, k := range req.Keys {
			if _, err := do(fmt.Sprintf("delete key %q", k), "DEL", k); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range req.State {
		if err := putLive(do, k); err != nil {
			var le *LiveError
			if errors.As(err, &le) && le.Addr == "" {
				le.Addr = addr
			}
			return nil, err
		}
	}
	var lib []byte
	if req.Mode == ModeFunction {
		var err error
		if lib, err = Library(req.Source); err != nil {
			return nil, err
		}
	}
	// The offline run compared with this one starts its clock here.
	if t, err := do("TIME", "TIME"); err != nil {
		return nil, err
	} else if t.Kind == verify.Array && len(t.Elems) == 2 {
		sec, _ := strconv.ParseInt(t.Elems[0].Str, 10, 64)
		usec, _ := strconv.ParseInt(t.Elems[1].Str, 10, 64)
		side.clockStart = sec*1000 + usec/1000
	}
	call := func(cmd, name string) []string {
		a := []string{cmd, name, strconv.Itoa(len(req.Keys))}
		return append(append(a, req.Keys...), req.Args...)
	}
	if req.Mode == ModeFunction {
		side.Step = StepFunctionLoad
		r, err := doAll(ctx, conn, "FUNCTION", "LOAD", string(lib))
		if err != nil {
			return nil, &LiveError{Op: "FUNCTION LOAD", Addr: addr, Err: err}
		}
		side.Reply = r
		if r.Kind != verify.Error {
			side.Step = StepFCall
			side.Reply, err = do("FCALL", call("FCALL", FunctionName)...)
			// Leave the server as it was, even when FCALL failed or the
			// run was interrupted.
			if _, derr := doAll(context.WithoutCancel(ctx), conn, "FUNCTION", "DELETE", LibraryName); err == nil && derr != nil {
				err = &LiveError{Op: "FUNCTION DELETE", Addr: addr, Err: derr}
			}
			if err != nil {
				return nil, err
			}
		}
	} else {
		var err error
		if side.Reply, err = do("EVAL", call("EVAL", string(req.Source))...); err != nil {
			return nil, err
		}
	}
	for _, name := range req.touched() {
		k, ok, err := getLive(ctx, do, name)
		if err != nil {
			return nil, err
		}
		if ok {
			side.Keys = append(side.Keys, k)
		}
	}
	return side, nil
}

type doFunc func(op string, args ...string) (verify.Reply, error)

// putLive replaces one key on the server with its --state contents and
// TTL, written in the file's order (scenario.PutCommands): a hash's fields
// land where the offline engine has them.
func putLive(do doFunc, k scenario.Key) error {
	op := fmt.Sprintf("write --state key %q", k.Name)
	for _, c := range scenario.PutCommands(k, k.Name) {
		r, err := do(op, c...)
		if err != nil {
			return err
		}
		if r.Kind == verify.Error {
			return &LiveError{Op: op, Err: errors.New(r.Str)}
		}
	}
	return nil
}

// getLive reads one key back: its type, contents and PTTL
// (scenario.ReadKey).
func getLive(ctx context.Context, do doFunc, name string) (scenario.Key, bool, error) {
	op := fmt.Sprintf("read key %q", name)
	return scenario.ReadKey(ctx, func(_ context.Context, args ...string) (verify.Reply, error) { return do(op, args...) }, name, name)
}

// InputError is a request that cannot run at all (a shebang function mode
// cannot turn into flags); the CLI maps it to exit 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Options is one eval: the request, and where to run it.
type Options struct {
	Request
	File    string // the script file as given, for the report
	Offline bool   // run in the offline engine
	Live    Conn   // run on this server too (nil: not)
	Addr    string // the live server's host:port, for messages
	// ClockTolerance is how far (ms) a clock-derived number, and a TTL,
	// may be from the offline run's when both sides run (plus the time the
	// live run took); 0 is scenario.DefaultClockTolerance, negative none.
	ClockTolerance int64
}

// Run runs the request offline, live, or both (then compares the replies
// and keys). Errors: *InputError (exit 2), *LiveError or a context error
// (the environment failed, exit 3).
//
// Both sides without a Now: the live run goes first, and the offline run's
// clock starts at the server's TIME just before the script ran there. The
// offline run is then repeated with its clock probed (started a day
// later, and ticking before every command), and the numbers that move
// with the clock are compared within the clock tolerance
// (scenario.ClockUnits); everything else exactly.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Mode == "" {
		opts.Mode = ModeEval
	}
	if opts.Mode == ModeFunction {
		if _, err := Library(opts.Source); err != nil {
			return nil, &InputError{Err: err}
		}
	}
	res := &Result{File: opts.File, SHA1: verify.SHA1(opts.Source), Mode: opts.Mode, Keys: opts.Keys, Args: opts.Args}
	var err error
	var start time.Time
	if opts.Live != nil {
		start = time.Now()
		if res.Live, err = Live(ctx, opts.Live, opts.Addr, opts.Request); err != nil {
			return nil, err
		}
	}
	if !opts.Offline {
		return res, nil
	}
	req := opts.Request
	if res.Live != nil && req.Now == 0 {
		req.Now = res.Live.clockStart
	}
	if res.Offline, err = Offline(ctx, req); err != nil {
		return nil, err
	}
	if res.Live == nil {
		return res, nil
	}
	var units scenario.ClockUnits
	base := res.Offline.outcome()
	for _, p := range []struct{ now, pre, tick int64 }{
		{scenario.Shift, 0, 0}, {0, scenario.Tick, 0}, {0, 0, scenario.Tick},
	} {
		var probes [2]scenario.Outcome
		for i := range probes {
			r := req
			r.Now, r.pre, r.tick = req.Now+int64(i+1)*p.now, int64(i+1)*p.pre, int64(i+1)*p.tick
			side, err := Offline(ctx, r)
			if err != nil {
				return nil, err
			}
			probes[i] = side.outcome()
		}
		units.MarkProbe(base, probes[0], probes[1], max(p.now, p.pre, p.tick))
	}
	tol := opts.ClockTolerance
	switch {
	case tol == 0:
		tol = scenario.DefaultClockTolerance
	case tol < 0:
		tol = 0
	}
	// A live TTL may trail the offline one by the real time the run took.
	res.compare(time.Since(start).Milliseconds(), tol, units)
	return res, nil
}
