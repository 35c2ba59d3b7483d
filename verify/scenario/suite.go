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
	Scenario    *Scenario
}

// Options configures RunAll.
type Options struct {
	Modes []Mode // default: Modes (eval and function)
	// Target is the server the offline engine imitates (verify.Targets);
	// "" is verify.DefaultTarget.
	Target string
	Live   *Server // when set, every run is repeated on the server and compared
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
	return paths, nil
}

// LoadAll loads and binds every scenario file. The error lists the
// problems of every file (an Errors value: each has file:line).
func LoadAll(m *manifest.Manifest, paths []string) ([]*Scenario, error) {
	var all Errors
	var out []*Scenario
	for _, p := range paths {
		s, err := Load(p)
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
			rep.Results = append(rep.Results, &Result{File: s.File, Name: s.Name, Mode: mode, Target: target, Control: len(s.Controls) > 0, Scenario: s})
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
			errs[i] = r.run(ctx, m, opts.Live)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return rep, err
	}
	return rep, nil
}

func (r *Result) run(ctx context.Context, m *manifest.Manifest, srv *Server) error {
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
		off, err := runOffline(ctx, s, vm, r.Mode, r.Target, control)
		if err != nil {
			return err
		}
		r.Runs = append(r.Runs, off)
		if srv == nil || off.scriptErr {
			continue
		}
		lv, err := runLive(ctx, s, srv, vm, r.Mode, control)
		if err != nil {
			return fmt.Errorf("%s [%s]: %w", s.File, r.Mode, err)
		}
		r.Live = append(r.Live, lv)
		r.Differences = append(r.Differences, s.diffRuns(off, lv)...)
	}
	r.Status = StatusPass
	for _, run := range r.Runs {
		switch {
		case run.scriptErr:
			r.Status = StatusError
			return nil
		case run.Error != "" || len(run.Failures) > 0:
			r.Status = StatusFail
		}
	}
	if r.Status == StatusPass && len(r.Differences) > 0 {
		r.Status = StatusDiffers
	}
	return nil
}

func runOffline(ctx context.Context, s *Scenario, m *manifest.Manifest, mode Mode, target string, control bool) (*Run, error) {
	be, err := newOffline(m, mode, target)
	if err != nil {
		return failedRun(err, control)
	}
	defer be.release()
	be.e.SetSubscribers(s.Subscribers)
	return s.execute(ctx, be, control)
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

// OK reports whether every result passed.
func (rep *Report) OK() bool {
	for _, r := range rep.Results {
		if r.Status != StatusPass {
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
