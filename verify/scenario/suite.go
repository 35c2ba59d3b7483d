package scenario

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// Status is the outcome of one scenario in one mode.
type Status string

const (
	StatusPass    Status = "pass"    // every expectation held (and live matched offline)
	StatusFail    Status = "fail"    // an expectation failed, a control missed, or a step could not be judged
	StatusDiffers Status = "differs" // offline passed but the live server did something else
	StatusError   Status = "error"   // a script does not compile or load: exit 2
	StatusSkip    Status = "skip"    // a live_only scenario offline: not judged (SkipReason says why)
)

// Result is one scenario run in one mode: the manifest's scripts, plus the
// control variant for a negative control, offline and (with a live server)
// live.
type Result struct {
	File        string
	Name        string
	Mode        Mode
	Target      string // the server the offline engine imitated
	Status      Status
	Control     bool
	Runs        []*Run // offline: manifest, then control
	Live        []*Run // live, same order; empty offline
	Differences []Difference
	// ClockTolerated are the live values equal to the offline ones only
	// within the clock tolerance: clock-derived numbers (clock.go).
	ClockTolerated []Difference
	Scenario       *Scenario
	// LiveOnly is the scenario's live_only: Runs is empty (or holds the
	// offline run of a script that does not compile), and Live holds the
	// runs whose expectations decide the status.
	LiveOnly bool
	// SkipReason says why a live_only scenario was not judged offline: the
	// step the engine cannot run, or that the scenario is marked so.
	SkipReason string
}

// Judged returns the runs whose expectations decide the result: the
// offline runs, or the live ones of a live_only scenario.
func (r *Result) Judged() []*Run {
	if r.LiveOnly {
		return r.Live
	}
	return r.Runs
}

// Options configures RunAll.
type Options struct {
	Modes []Mode // default: Modes (eval and function)
	// Target is the server the offline engine imitates (verify.Targets);
	// "" is verify.DefaultTarget.
	Target string
	Live   *Server // when set, every run is repeated on the server and compared
	// ClockTolerance is how far (ms) a clock-derived number, and a TTL,
	// of a live run may be from the offline run's (plus the run's drift);
	// 0 is DefaultClockTolerance, a negative value none.
	ClockTolerance int64
	// Parallel bounds concurrent runs; default 4 live (runs mostly wait),
	// min(GOMAXPROCS, 4) offline.
	Parallel int
}

// Report is every result of a verify run, in scenario then mode order.
type Report struct {
	Results []*Result
	Against string // the live server's address, empty offline
}

// Discover returns the bundled scenarios of m: lua_test/*.yaml beside the
// manifest, sorted. It returns nothing (and no error) when there are none.
func Discover(m *manifest.Manifest) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(m.Dir, "lua_test", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	// A file there that links out of the manifest's folder is refused
	// before it is read.
	if refused := manifest.Discovered(m.Dir, paths); len(refused) > 0 {
		var errs Errors
		for _, e := range refused {
			errs = append(errs, &Error{File: e.File, Line: e.Line, Col: e.Col, Msg: e.Msg})
		}
		return nil, errs
	}
	return paths, nil
}

// LoadAll loads and binds every scenario file. The error lists the
// problems of every file (an Errors value: each has file:line).
func LoadAll(m *manifest.Manifest, paths []string) ([]*Scenario, error) {
	var all Errors
	var out []*Scenario
	for _, p := range paths {
		s, err := LoadIn(m.Dir, p)
		if err == nil {
			err = s.Bind(m)
		}
		if err != nil {
			var es Errors
			if errors.As(err, &es) {
				all = append(all, es...)
				// Unknown names too, in the same round.
				var pe *partialError
				if errors.As(err, &pe) {
					all = append(all, bindPartial(pe, m)...)
				}
				continue
			}
			all = append(all, &Error{File: p, Msg: err.Error()})
			continue
		}
		out = append(out, s)
	}
	if len(all) > 0 {
		return nil, all
	}
	return out, nil
}

// Check is the verify step of "scriptctl check": every bundled scenario of
// m, offline, in both modes. A manifest without lua_test/ scenarios yields
// an empty report. The error is an Errors value for malformed scenarios.
func Check(ctx context.Context, m *manifest.Manifest) (*Report, error) {
	if len(m.Targets) == 0 {
		m.Targets = []string{verify.DefaultTarget}
	}
	paths, err := Discover(m)
	if err != nil {
		return nil, err
	}
	scenarios, err := LoadAll(m, paths)
	if err != nil {
		return nil, err
	}
	// Every target the manifest lists, each imitated offline.
	rep := &Report{}
	for _, t := range m.Targets {
		r, err := RunAll(ctx, m, scenarios, Options{Target: t})
		if err != nil {
			return rep, err
		}
		rep.Results = append(rep.Results, r.Results...)
	}
	return rep, nil
}

// RunAll runs every bound scenario in every mode of opts. The error is an
// environment failure (the live server); scenario outcomes are in the
// report.
func RunAll(ctx context.Context, m *manifest.Manifest, scenarios []*Scenario, opts Options) (*Report, error) {
	modes := opts.Modes
	if len(modes) == 0 {
		modes = Modes
	}
	rep := &Report{}
	if opts.Live != nil {
		rep.Against = opts.Live.Addr
	}
	target := opts.Target
	if target == "" {
		target = verify.DefaultTarget
	}
	for _, s := range scenarios {
		for _, mode := range modes {
			rep.Results = append(rep.Results, &Result{File: s.File, Name: s.Name, Mode: mode, Target: target, Control: len(s.Controls) > 0, Scenario: s, LiveOnly: s.LiveOnly})
		}
	}
	par := opts.Parallel
	if par <= 0 {
		// Offline runs are CPU-bound; live runs mostly wait.
		par = min(runtime.GOMAXPROCS(0), 4)
		if opts.Live != nil {
			par = 4
		}
	}
	sem := make(chan struct{}, par)
	errs := make([]error, len(rep.Results))
	var wg sync.WaitGroup
	for i, r := range rep.Results {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = r.run(ctx, m, opts)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return rep, err
	}
	return rep, nil
}

// A live run whose real clock ran ahead of the scenario's by more than
// slowLiveMS at some step, and that differs from offline, is run again, up
// to liveAttempts runs in all: a loaded machine must not turn a lease the
// scenario holds into one the server expired.
const (
	slowLiveMS   = 25
	liveAttempts = 4
)

// maxDrift is the most the real clock ran ahead of the virtual one at any
// step of a live run.
func maxDrift(lv *Run) int64 {
	var d int64
	for _, st := range lv.Steps {
		d = max(d, st.drift)
	}
	return d
}

func (r *Result) run(ctx context.Context, m *manifest.Manifest, opts Options) error {
	srv := opts.Live
	tol := opts.ClockTolerance
	switch {
	case tol == 0:
		tol = DefaultClockTolerance
	case tol < 0:
		tol = 0
	}
	if r.LiveOnly {
		return r.runLiveOnly(ctx, m, srv)
	}
	s := r.Scenario
	variants := []bool{false}
	if r.Control {
		variants = append(variants, true)
	}
	for _, control := range variants {
		var controls map[string][]byte
		if control {
			controls = s.bound.controls
		}
		vm := variant(m, controls)
		off, err := runOffline(ctx, s, vm, r.Mode, r.Target, control, clockProbe{})
		if err != nil {
			return err
		}
		r.Runs = append(r.Runs, off)
		if srv == nil || off.scriptErr {
			continue
		}
		for attempt := 1; ; attempt++ {
			lv, err := runLive(ctx, s, srv, vm, r.Mode, control)
			if err != nil {
				return fmt.Errorf("%s [%s]: %w", s.File, r.Mode, err)
			}
			// Compared with an offline run whose clock starts where the
			// live one did, probed for what depends on the clock.
			base, taint, err := clockRuns(ctx, s, vm, r.Mode, r.Target, control, lv.clockStart)
			if err != nil {
				return err
			}
			diffs, near := s.diffRunsClock(base, lv, &clockCompare{taint: taint, tol: tol})
			if len(diffs) > 0 && attempt < liveAttempts && maxDrift(lv) > slowLiveMS {
				// The machine ran the live run slowly: its real clock got
				// ahead of the scenario's by more than slowLiveMS, which
				// can expire on the server a lease the scenario still
				// holds. Such a run proves nothing either way: run it
				// again (fresh keys) rather than report the machine's
				// load as a difference.
				continue
			}
			r.Live = append(r.Live, lv)
			r.Differences = append(r.Differences, diffs...)
			r.ClockTolerated = append(r.ClockTolerated, near...)
			break
		}
	}
	r.Status = StatusPass
	for _, run := range r.Runs {
		if r.judge(run) {
			return nil
		}
	}
	if r.Status == StatusPass && len(r.Differences) > 0 {
		r.Status = StatusDiffers
	}
	return nil
}

// judge lowers r.Status by what run shows: error when a script does not
// compile or load (then done is true: nothing else counts), fail when an
// expectation failed or the run stopped.
func (r *Result) judge(run *Run) (done bool) {
	switch {
	case run.scriptErr:
		r.Status = StatusError
		return true
	case run.Error != "" || len(run.Failures) > 0:
		r.Status = StatusFail
	}
	return false
}

// runLiveOnly runs a live_only scenario: offline only far enough to name
// the step the engine cannot run (the skip reason) and to catch a script
// that does not compile; live, every variant with its expectations.
func (r *Result) runLiveOnly(ctx context.Context, m *manifest.Manifest, srv *Server) error {
	s := r.Scenario
	off, err := runOffline(ctx, s, m, r.Mode, r.Target, false, clockProbe{})
	if err != nil {
		return err
	}
	if off.scriptErr {
		r.Runs, r.LiveOnly, r.Status = []*Run{off}, false, StatusError
		return nil
	}
	r.SkipReason = "live_only: runs only with --against"
	if off.Error != "" {
		r.SkipReason = "live_only: " + off.Error
	}
	r.Status = StatusSkip
	if srv == nil {
		return nil
	}
	variants := []bool{false}
	if r.Control {
		variants = append(variants, true)
	}
	r.Status = StatusPass
	for _, control := range variants {
		var controls map[string][]byte
		if control {
			controls = s.bound.controls
		}
		lv, err := runLive(ctx, s, srv, variant(m, controls), r.Mode, control)
		if err != nil {
			return fmt.Errorf("%s [%s]: %w", s.File, r.Mode, err)
		}
		r.Live = append(r.Live, lv)
		if r.judge(lv) {
			return nil
		}
	}
	return nil
}

// clockProbe sets an offline run's clock: where it starts (0:
// verify.DefaultNow), the ms it gains before every step and before every
// command a script runs (clock.go).
type clockProbe struct {
	start, drift, tick int64
}

// runOffline runs s in the engine on the clock cp describes.
func runOffline(ctx context.Context, s *Scenario, m *manifest.Manifest, mode Mode, target string, control bool, cp clockProbe) (*Run, error) {
	be, err := newOffline(m, mode, target)
	if err != nil {
		return failedRun(err, control)
	}
	defer be.release()
	be.e.SetSubscribers(s.Subscribers)
	if cp.start > 0 {
		be.e.Advance(cp.start - be.e.Now())
	}
	be.e.SetCallTick(cp.tick)
	if cp.drift > 0 {
		return s.execute(ctx, &drifting{offline: be, ms: cp.drift}, control)
	}
	return s.execute(ctx, be, control)
}

// clockRuns runs s offline with the clock starting at start (the live
// run's), and the clock probes, and returns that run and what of it
// depends on the clock.
func clockRuns(ctx context.Context, s *Scenario, m *manifest.Manifest, mode Mode, target string, control bool, start int64) (*Run, *clockTaint, error) {
	probes := []clockProbe{
		{start: start},
		{start: start + shiftMS}, {start: start + 2*shiftMS},
		{start: start, drift: driftMS}, {start: start, drift: 2 * driftMS},
		{start: start, tick: driftMS}, {start: start, tick: 2 * driftMS},
	}
	runs := make([]*Run, len(probes))
	for i, p := range probes {
		run, err := runOffline(ctx, s, m, mode, target, control, p)
		if err != nil {
			return nil, nil, err
		}
		runs[i] = run
	}
	t := taintOf(runs[0], probeRuns{shift1: runs[1], shift2: runs[2], drift1: runs[3], drift2: runs[4], tick1: runs[5], tick2: runs[6]})
	s.markDeclared(t, runs[0])
	return runs[0], t, nil
}

func runLive(ctx context.Context, s *Scenario, srv *Server, m *manifest.Manifest, mode Mode, control bool) (*Run, error) {
	be, err := srv.newLive(ctx, m, mode, s.bound.universe)
	if err != nil {
		return failedRun(err, control)
	}
	run, err := s.execute(ctx, be, control)
	// Clean up even when the run was cancelled.
	cerr := be.close(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	run.clockStart = be.clockStart
	return run, cerr
}

// failedRun turns a script that does not load into a run that stopped
// before its first step; any other error is returned.
func failedRun(err error, control bool) (*Run, error) {
	var se *ScriptError
	if !errors.As(err, &se) {
		return nil, err
	}
	run := &Run{Variant: VariantManifest, Error: se.Error(), scriptErr: true}
	if control {
		run.Variant = VariantControl
	}
	return run, nil
}

// Counts returns how many results have each status.
func (rep *Report) Counts() map[Status]int {
	c := map[Status]int{}
	for _, r := range rep.Results {
		c[r.Status]++
	}
	return c
}

// OK reports whether every result passed or was skipped (a live_only
// scenario offline).
func (rep *Report) OK() bool {
	for _, r := range rep.Results {
		if r.Status != StatusPass && r.Status != StatusSkip {
			return false
		}
	}
	return true
}

// Malformed reports whether a script failed to compile or load (exit 2).
func (rep *Report) Malformed() bool {
	for _, r := range rep.Results {
		if r.Status == StatusError {
			return true
		}
	}
	return false
}
