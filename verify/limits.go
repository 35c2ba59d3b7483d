package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Limits of a run. Redis never stops a script on its own: past
// busy-reply-threshold (5 s) it only answers BUSY to other clients. So the
// offline default is no wall clock at all but a budget of Lua VM
// instructions, set far above what a server executes in 5 s, and a
// wall-clock limit only when the caller asks for one (Options.Timeout).

// DefaultStepLimit is the instruction budget of one run when
// Options.StepLimit is 0. Redis 7.0.15 executes a tight numeric for loop
// (EVAL "local x=0 for i=1,1e9 do x=x+i end return x" 0, two VM
// instructions an iteration) at about 583 million instructions a second
// on the machine the engine was calibrated on (3.43 s for 1e9
// iterations), so 5 s of the fastest Lua a server runs is about 2.9e9
// instructions; the budget is twice that. gopher-lua runs about 58
// million instructions a second (BenchmarkEngineLoop), so an endless loop
// stops after roughly 100 s offline: pass a smaller StepLimit, or a
// Timeout, where that matters.
const DefaultStepLimit int64 = 6_000_000_000

// loadStepLimit is FUNCTION LOAD's budget: Redis stops a library's
// top-level code after 500 ms (LOAD_TIMEOUT_MS), at the calibrated rate
// about 2.9e8 instructions. A variable so that tests can lower it.
var loadStepLimit = DefaultLoadStepLimit

// DefaultLoadStepLimit is loadStepLimit's value (Options.LoadStepLimit 0).
const DefaultLoadStepLimit int64 = 290_000_000

// errStepLimit is the error a step context reports once its budget is
// spent.
var errStepLimit = errors.New("step budget exhausted")

// stepContext counts the instructions of a run. gopher-lua's main loop with
// a context calls Done once per VM instruction (mainLoopWithContext), so
// Done is the counter: past the limit it returns a closed channel and the
// VM raises the context's error. Pattern matching and other long Go loops
// count their steps with step. A stepContext is used by one goroutine at a
// time, as an LState is.
type stepContext struct {
	parent context.Context
	pdone  <-chan struct{}
	n      int64
	limit  int64
	done   chan struct{}
	err    error
	after  map[*func()]struct{}

	// The call depth check (overflow.go): the Lua state, the call infos
	// its main thread has room for (luaD_growCI's size_ci), its
	// coroutines' (callInfoFresh when not listed), and the last overflow.
	g          *lua.Global
	mainFrames int
	coFrames   map[*lua.LState]int
	overflow   overflowInfo
	pendingErr error // the overflow Err reports once, to the VM

	// Line coverage (linecover.go): the run's recording and the Lua
	// state whose running thread it reads; nil when not asked for.
	cover  *runCover
	coverG *lua.Global

	// onThread is called when a coroutine starts or resumes running
	// (errors inside coroutines, see scriptRun.coroutinePanic).
	onThread   func(*lua.LState)
	lastThread *lua.LState

	// Lua 5.1's C calls by frame depth of cThread, known up to cKnown
	// (ccalls.go).
	cThread *lua.LState
	cDepth  []int
	cKnown  int
	cFrames []*gopherFrame
	// errHandling counts the xpcall message handlers running: Lua 5.1
	// calls one where the error happened, past the C-call limit too, and
	// stops only at LUAI_MAXCCALLS + LUAI_MAXCCALLS>>3 (luaD_call).
	errHandling int
}

// closedChan is the Done of an instruction that must raise an error.
var closedChan = lazy.Value[chan struct{}]{New: func() chan struct{} { c := make(chan struct{}); close(c); return c }}

func newStepContext(parent context.Context, limit int64) *stepContext {
	return &stepContext{parent: parent, pdone: parent.Done(), limit: limit, done: make(chan struct{})}
}

// Done counts one step, and checks the running thread's call depth.
func (s *stepContext) Done() <-chan struct{} {
	s.n++
	if s.cover != nil && s.coverG != nil {
		s.cover.record(s.coverG)
	}
	if s.n > s.limit || (s.n&0x3ff == 0 && s.pdone != nil) {
		s.check()
	}
	if s.g != nil {
		th := s.g.CurrentThread
		if th != s.lastThread {
			s.lastThread = th
			if th != s.g.MainThread && s.onThread != nil {
				s.onThread(th)
			}
		}
		depth := frameDepthOf(th)
		if depth > s.frameLimit(th) && s.err == nil && s.callInfoOverflow(th) {
			return closedChan.Get()
		}
		if currentFrameOK() && s.err == nil {
			// luaD_call: "C stack overflow" at LUAI_MAXCCALLS, past it
			// only while an xpcall handler runs, and LUA_ERRERR there
			// from LUAI_MAXCCALLS + LUAI_MAXCCALLS>>3.
			switch c := s.cCallsAt(th, depth); {
			case c >= errErrDepth && s.errHandling > 0:
				s.errorInErrorHandling(th)
				return closedChan.Get()
			case c == maxCCalls || c > maxCCalls && s.errHandling == 0:
				s.cStackOverflow(th)
				return closedChan.Get()
			}
		}
	}
	return s.done
}

// step counts n steps taken outside the VM and reports whether the run
// must stop.
func (s *stepContext) step(n int64) bool {
	s.n += n
	s.check()
	return s.err != nil
}

func (s *stepContext) check() {
	if s.err != nil {
		return
	}
	switch {
	case s.n > s.limit:
		s.stop(errStepLimit)
	case s.pdone != nil:
		select {
		case <-s.pdone:
			s.stop(s.parent.Err())
		default:
		}
	}
}

func (s *stepContext) stop(err error) {
	s.err = err
	close(s.done)
	for f := range s.after {
		go (*f)()
	}
	s.after = nil
}

// Err is the reason the run stops: errStepLimit, the parent's deadline or
// cancellation, or nil.
func (s *stepContext) Err() error {
	if e := s.pendingErr; e != nil {
		s.pendingErr = nil
		return e
	}
	if s.err == nil && s.pdone != nil {
		s.check()
	}
	return s.err
}

func (s *stepContext) Deadline() (time.Time, bool) { return s.parent.Deadline() }
func (s *stepContext) Value(key any) any           { return s.parent.Value(key) }

// AfterFunc lets context.WithCancel (gopher-lua gives every coroutine one)
// follow the run without a goroutine per coroutine.
func (s *stepContext) AfterFunc(f func()) func() bool {
	if s.err != nil {
		go f()
		return func() bool { return false }
	}
	if s.after == nil {
		s.after = map[*func()]struct{}{}
	}
	p := &f
	s.after[p] = struct{}{}
	return func() bool {
		if _, ok := s.after[p]; !ok {
			return false
		}
		delete(s.after, p)
		return true
	}
}

type stepLimitKey struct{}

// WithStepLimit returns a context under which every run an engine makes
// stops past n steps when n is below the engine's own budget
// (Options.StepLimit): a caller that runs other callers' scenarios on
// changed scripts (scriptctl mutate) bounds a mutant that loops without
// building engines of its own.
func WithStepLimit(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, stepLimitKey{}, n)
}

// runContext returns the context of one run: the step budget, under the
// caller's context and, when Options.Timeout is set, a wall-clock limit.
func (e *Engine) runContext(ctx context.Context, limit int64) (*stepContext, context.CancelFunc) {
	if n, ok := ctx.Value(stepLimitKey{}).(int64); ok && n > 0 && n < limit {
		limit = n
	}
	cancel := context.CancelFunc(func() {})
	if e.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
	}
	sc := newStepContext(ctx, limit)
	if c := lineCoverageOf(ctx); c != nil {
		rc := &runCover{c: c, hits: map[*lua.FunctionProto]*protoHits{}}
		sc.cover = rc
		stop := cancel
		cancel = func() { rc.flush(); stop() }
	}
	return sc, cancel
}

// stopError is the RunError of a run its context stopped.
func (e *Engine) stopError(err error, steps int64) *RunError {
	switch {
	case errors.Is(err, errStepLimit):
		return &RunError{Code: CodeStepLimit, Msg: fmt.Sprintf("script ran more than %d steps (Lua VM instructions), the offline step budget", steps)}
	case errors.Is(err, context.DeadlineExceeded):
		return &RunError{Code: CodeTimeout, Msg: fmt.Sprintf("script ran longer than the wall-clock timeout of %s", e.timeout)}
	}
	return &RunError{Code: CodeTimeout, Msg: "run canceled: " + err.Error()}
}
