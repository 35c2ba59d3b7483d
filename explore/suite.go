package explore

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/scriptctl/scriptctl/manifest"
)

// ModelsDir is where the models of a manifest live, relative to its folder.
const ModelsDir = "lua_test/models"

// Models lists the *.yaml models beside manifest m, sorted.
func Models(m *manifest.Manifest) ([]string, error) {
	found, err := filepath.Glob(filepath.Join(m.Dir, filepath.FromSlash(ModelsDir), "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(found)
	// A model there that links out of the manifest's folder is refused
	// before it is read.
	if refused := manifest.Discovered(m.Dir, found); len(refused) > 0 {
		return nil, refused
	}
	return found, nil
}

// Outcome is one model's exploration. Result is nil for a skipped model
// (Model.Skip says why).
type Outcome struct {
	File   string
	Model  *Model
	Result *Result
}

// Status is how an outcome compares with its model's expectation:
// "ok" (no violation, or the expected one), "violation" (one the model
// does not expect), "missing-violation" (a negative control found
// none), "truncated" (the state limit stopped the exploration before it
// was complete) or "skipped".
func (o Outcome) Status() string {
	switch {
	case o.Result == nil:
		return "skipped"
	case o.Result.OK():
		return "ok"
	case o.Result.Violation != nil:
		return "violation"
	case o.Result.Truncated:
		return "truncated"
	}
	return "missing-violation"
}

// RunFiles parses every model file against m, then explores each. When a
// model is invalid nothing is explored and the error is manifest.Errors
// listing the problems of every file.
func RunFiles(ctx context.Context, m *manifest.Manifest, paths []string, opts Options) ([]Outcome, error) {
	var models []*Model
	var all manifest.Errors
	for _, p := range paths {
		md, err := Load(p, m)
		var errs manifest.Errors
		switch {
		case errors.As(err, &errs):
			all = append(all, errs...)
			continue
		case err != nil:
			return nil, err
		}
		models = append(models, md)
	}
	if len(all) > 0 {
		return nil, all
	}
	return runModels(ctx, models, opts)
}

// runModels explores the models on up to GOMAXPROCS workers (each
// exploration has its own engine) and returns the outcomes in the models'
// order, or the error of the first model, in that order, that failed: the
// same report as one after the other.
func runModels(ctx context.Context, models []*Model, opts Options) ([]Outcome, error) {
	out := make([]Outcome, len(models))
	errs := make([]error, len(models))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(models)) {
		wg.Go(func() {
			for i := range next {
				md := models[i]
				out[i] = Outcome{File: md.Path, Model: md}
				if md.Skip == "" {
					out[i].Result, errs[i] = Run(ctx, md, opts)
				}
			}
		})
	}
	for i := range models {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
