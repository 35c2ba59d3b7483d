// Package mutate measures how well a repository's scenarios and models
// guard its scripts: it plants single-point mutants in every script of a
// manifest (operators flipped, comparisons shifted at their boundary,
// constants moved by one, redis.call statements deleted, EX/PX and NX/XX
// swapped, ...), runs the scenarios and the models offline against each,
// and reports the mutants nothing noticed. A surviving mutant is either a
// missing test or an equivalent change, which a "-- scriptctl:ignore
// mutant-survived <reason>" comment on its line (or the line above) keeps
// from being run.
package mutate

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/scriptctl/scriptctl/explore"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// The outcomes of a mutant.
const (
	Killed    = "killed"    // a scenario or a model failed
	Survived  = "survived"  // everything passed
	Ignored   = "ignored"   // a scriptctl:ignore comment keeps it from running
	Stillborn = "stillborn" // it does not compile: not counted
)

// DefaultStepLimit bounds each run of a mutant (Lua VM instructions): a
// mutant that loops forever stops there and counts as killed, as a server
// would answer BUSY. The unmutated scripts must finish every run within it.
const DefaultStepLimit = 10_000_000

// Options configures Run.
type Options struct {
	// Parallel is how many mutants run at once; 0 is GOMAXPROCS.
	Parallel int
	// StepLimit bounds each Lua run of a mutant; 0 is DefaultStepLimit.
	StepLimit int64
	// Scripts limits the run to these script names; empty is every script.
	Scripts []string
	// Operators limits the run to these operators; empty is every one.
	Operators []string
	// NoModels skips the models (explore), running only the scenarios.
	NoModels bool
	// Progress, when set, is called after each mutant finishes, from the
	// goroutine that ran it.
	Progress func(done, total int)
}

// Result is one mutant's outcome.
type Result struct {
	Mutant
	Status string // Killed, Survived, Ignored or Stillborn
	// By names what killed the mutant: the first failing scenario (with
	// its mode and target) or model, and its message.
	By string
}

// Report is every mutant of a run, in script then source order.
type Report struct {
	Results []Result
	// Scenarios and Models are how many of each the run used.
	Scenarios, Models int
}

// Count returns how many results have status st.
func (r *Report) Count(st string) int {
	n := 0
	for _, x := range r.Results {
		if x.Status == st {
			n++
		}
	}
	return n
}

// Score is the share of run mutants that were killed, in percent (100
// when none ran).
func (r *Report) Score() float64 {
	k, s := r.Count(Killed), r.Count(Survived)
	if k+s == 0 {
		return 100
	}
	return 100 * float64(k) / float64(k+s)
}

// BaselineError is returned when the unmutated scripts already fail their
// scenarios or models: mutants could not be told apart from them.
type BaselineError struct{ Problems []string }

func (e *BaselineError) Error() string {
	return fmt.Sprintf("the unmutated scripts already fail (%s): fix them before measuring their tests", strings.Join(e.Problems, "; "))
}

// suite is what judges a manifest: its scenarios and models, loaded once.
type suite struct {
	scenarios []*scenario.Scenario
	models    []string
	opts      Options
}

// Run plants every mutant of m's scripts and judges each with m's
// scenarios (lua_test/*.yaml) and models (lua_test/models/*.yaml), offline
// on every target of the manifest. The error is invalid input (scenarios
// or models that do not load), a BaselineError, or ctx's.
func Run(ctx context.Context, m *manifest.Manifest, opts Options) (*Report, error) {
	if opts.StepLimit <= 0 {
		opts.StepLimit = DefaultStepLimit
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	if len(m.Targets) == 0 {
		m.Targets = []string{verify.DefaultTarget}
	}
	paths, err := scenario.Discover(m)
	if err != nil {
		return nil, err
	}
	scs, err := scenario.LoadAll(m, paths)
	if err != nil {
		return nil, err
	}
	su := &suite{scenarios: scs, opts: opts}
	if !opts.NoModels {
		if su.models, err = explore.Models(m); err != nil {
			return nil, err
		}
	}
	rep := &Report{Scenarios: len(scs), Models: len(su.models)}
	if by, err := su.judge(ctx, m); err != nil {
		return nil, err
	} else if by != "" {
		return nil, &BaselineError{Problems: []string{by}}
	}

	// Every mutant first, so that the equivalents file is checked whole
	// whatever --script and --operator pick.
	var every []Result
	for _, s := range m.Scripts {
		ms, err := Generate(s.Name, s.Path, s.Source)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		for _, mu := range ms {
			every = append(every, Result{Mutant: mu})
		}
	}
	qs, err := LoadEquivalents(m)
	if err != nil {
		return nil, err
	}
	if err := applyEquivalents(filepath.Join(m.Dir, EquivalentFile), qs, every); err != nil {
		return nil, err
	}
	var all []Result
	for _, r := range every {
		if len(opts.Scripts) > 0 && !slices.Contains(opts.Scripts, r.Script) || len(opts.Operators) > 0 && !slices.Contains(opts.Operators, r.Operator) {
			continue
		}
		all = append(all, r)
	}

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
		next = make(chan int)
	)
	errs := make([]error, len(all))
	for w := 0; w < opts.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = su.run(ctx, m, &all[i])
				if opts.Progress != nil {
					mu.Lock()
					done++
					d := done
					mu.Unlock()
					opts.Progress(d, len(all))
				}
			}
		}()
	}
	for i := range all {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// all is in script then source order already: each worker fills its
	// own index.
	rep.Results = all
	return rep, nil
}

// run judges one mutant, setting its Status and By.
func (su *suite) run(ctx context.Context, m *manifest.Manifest, r *Result) error {
	if r.Ignored != "" {
		r.Status = Ignored
		return nil
	}
	s := m.Script(r.Script)
	src := r.Apply(s.Source)
	if _, err := verify.ParseLua51(src, r.Script); err != nil {
		// Redis's Lua 5.1 would refuse it
		r.Status = Stillborn
		return nil
	}
	mm := withSource(m, r.Script, src)
	by, err := su.judge(ctx, mm)
	if err != nil {
		return err
	}
	r.Status, r.By = Survived, by
	if by != "" {
		r.Status = Killed
	}
	return nil
}

// judge runs the suite on m and names the first thing that fails, or ""
// when everything passes. Scenarios run first, target by target, and stop
// at the first problem; the models only when every scenario passed.
func (su *suite) judge(ctx context.Context, m *manifest.Manifest) (string, error) {
	ctx = verify.WithStepLimit(ctx, su.opts.StepLimit)
	for _, t := range m.Targets {
		rep, err := scenario.RunAll(ctx, m, su.scenarios, scenario.Options{Target: t, Parallel: 1})
		if err != nil {
			return "", err
		}
		if ps := rep.Problems(); len(ps) > 0 {
			return ps[0].Message, nil
		}
	}
	if len(su.models) == 0 {
		return "", nil
	}
	outs, err := explore.RunFiles(ctx, m, su.models, explore.Options{Target: m.Targets[0], Topology: m.Topology, StrictKeys: m.StrictKeys})
	if err != nil {
		return "", err
	}
	for _, o := range outs {
		if st := o.Status(); st != "ok" && st != "skipped" {
			return fmt.Sprintf("model %s: %s", o.File, st), nil
		}
	}
	return "", nil
}

// withSource returns a copy of m whose script name has src as its source.
func withSource(m *manifest.Manifest, name string, src []byte) *manifest.Manifest {
	mm := *m
	mm.Scripts = make([]*manifest.Script, len(m.Scripts))
	for i, s := range m.Scripts {
		if s.Name == name {
			c := *s
			c.Source = src
			sum := sha1.Sum(src)
			c.SHA = hex.EncodeToString(sum[:])
			s = &c
		}
		mm.Scripts[i] = s
	}
	return &mm
}
