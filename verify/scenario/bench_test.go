package scenario

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

type benchCall struct {
	script     string
	keys, args []string
}

// bundledCalls is every script call of the bundled scenarios (manifest
// variant), in order, with each scenario's initial keys.
func bundledCalls(ss []*Scenario) (calls []benchCall, initial []Key) {
	for _, s := range ss {
		initial = append(initial, s.bound.initial...)
		for i, st := range s.Steps {
			if st.Kind == StepCall {
				bs := s.bound.steps[i]
				calls = append(calls, benchCall{st.Script, bs.keys, bs.args})
			}
		}
	}
	return calls, initial
}

// BenchmarkVerifyBundled measures the bundled scenarios offline and, in the
// same run, the same script calls as EVALSHA on a local redis-server:
//
//	scenarios-offline  every bundled scenario, both modes, with expectations
//	                   and per-step keyspace snapshots (what verify does)
//	calls-offline      only the script calls, EVAL in the offline engine
//	calls-offline-reset  the same on one engine Reset each time, as verify
//	                   runs scenarios (the sandbox is built once)
//	calls-floor        the same calls on a bare gopher-lua LState with a
//	                   stub redis.call (luaFloor): the limit of the engine
//	calls-evalsha      the same calls as EVALSHA on redis-server (one
//	                   connection, sequential round trips)
//	check              what "scriptctl check" adds: load the manifest, find,
//	                   parse and bind the scenarios, run them in both modes
//
// calls-offline / calls-evalsha is the engine's cost against a real server
// per call; check is the wall time a pipeline pays.
func BenchmarkVerifyBundled(b *testing.B) {
	ctx := context.Background()
	m := repoManifest(b)
	ss := bundled(b, m)
	calls, initial := bundledCalls(ss)

	b.Run("scenarios-offline", func(b *testing.B) {
		for b.Loop() {
			rep, err := RunAll(ctx, m, ss, Options{})
			if err != nil || len(rep.Results) != 2*len(ss) {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(ss)*2), "scenario-runs/op")
	})

	b.Run("calls-offline", func(b *testing.B) {
		for b.Loop() {
			e := verify.New(verify.Options{})
			for _, k := range initial {
				e.Put(k.Entry())
			}
			for _, c := range calls {
				if _, err := e.Eval(ctx, m.Script(c.script).Source, c.keys, c.args); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(calls)), "calls/op")
	})

	b.Run("calls-offline-reset", func(b *testing.B) {
		e := verify.New(verify.Options{})
		for b.Loop() {
			e.Reset()
			for _, k := range initial {
				e.Put(k.Entry())
			}
			for _, c := range calls {
				if _, err := e.Eval(ctx, m.Script(c.script).Source, c.keys, c.args); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(calls)), "calls/op")
	})

	b.Run("calls-floor", func(b *testing.B) {
		fl := floorOf(b, m, calls)
		for b.Loop() {
			fl.reset()
			for _, k := range initial {
				fl.put(k)
			}
			for _, c := range calls {
				if _, err := fl.run(c.script, c.keys, c.args); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(calls)), "calls/op")
	})

	b.Run("calls-evalsha", func(b *testing.B) {
		srv := redistest.Standalone(b)
		s, err := dialURL(ctx, srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		var universe []string
		for _, sc := range ss {
			universe = append(universe, sc.bound.universe...)
		}
		be, err := s.newLive(ctx, m, ModeEval, universe)
		if err != nil {
			b.Fatal(err)
		}
		defer be.close(ctx)
		for b.Loop() {
			for _, k := range initial {
				if err := be.Put(ctx, k); err != nil {
					b.Fatal(err)
				}
			}
			for _, c := range calls {
				r, err := be.doKeys(ctx, []string{"EVALSHA", be.shas[c.script], strconv.Itoa(len(c.keys))}, c.keys, c.args)
				if err != nil || (r.Kind == verify.Error && r.Str[:8] == "NOSCRIPT") {
					b.Fatal(err, r)
				}
			}
		}
		b.ReportMetric(float64(len(calls)), "calls/op")
	})

	// paired alternates the offline calls and the same calls as EVALSHA
	// on one loop, each side from the same initial keys (written
	// untimed), so the machine's load hits both alike; ratio is the
	// offline calls' time over the EVALSHA calls' (goal: at most 0.05).
	b.Run("paired", func(b *testing.B) {
		srv := redistest.Standalone(b)
		s, err := dialURL(ctx, srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		var universe []string
		for _, sc := range ss {
			universe = append(universe, sc.bound.universe...)
		}
		be, err := s.newLive(ctx, m, ModeEval, universe)
		if err != nil {
			b.Fatal(err)
		}
		defer be.close(ctx)
		e := verify.New(verify.Options{})
		fl := floorOf(b, m, calls)
		var off, live, floor time.Duration
		for b.Loop() {
			e.Reset()
			for _, k := range initial {
				e.Put(k.Entry())
			}
			t0 := time.Now()
			for _, c := range calls {
				if _, err := e.Eval(ctx, m.Script(c.script).Source, c.keys, c.args); err != nil {
					b.Fatal(err)
				}
			}
			off += time.Since(t0)
			for _, k := range initial {
				if err := be.Put(ctx, k); err != nil {
					b.Fatal(err)
				}
			}
			t1 := time.Now()
			for _, c := range calls {
				r, err := be.doKeys(ctx, []string{"EVALSHA", be.shas[c.script], strconv.Itoa(len(c.keys))}, c.keys, c.args)
				if err != nil || (r.Kind == verify.Error && r.Str[:8] == "NOSCRIPT") {
					b.Fatal(err, r)
				}
			}
			live += time.Since(t1)
			fl.reset()
			for _, k := range initial {
				fl.put(k)
			}
			t2 := time.Now()
			for _, c := range calls {
				if _, err := fl.run(c.script, c.keys, c.args); err != nil {
					b.Fatal(err)
				}
			}
			floor += time.Since(t2)
		}
		n := float64(b.N * len(calls))
		b.ReportMetric(float64(off.Nanoseconds())/1e3/n, "offline-us/call")
		b.ReportMetric(float64(live.Nanoseconds())/1e3/n, "evalsha-us/call")
		b.ReportMetric(float64(off)/float64(live), "ratio")
		// The floor (luaFloor): the same calls on one reused LState with a
		// stub redis.call, no engine; floor-ratio is its time over EVALSHA's.
		b.ReportMetric(float64(floor.Nanoseconds())/1e3/n, "floor-us/call")
		b.ReportMetric(float64(floor)/float64(live), "floor-ratio")
	})

	b.Run("check", func(b *testing.B) {
		path := filepath.Join("..", "..", "manifest.yaml")
		for b.Loop() {
			m, err := manifest.Load(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Check(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// floorOf is the luaFloor of m's scripts that calls name.
func floorOf(b *testing.B, m *manifest.Manifest, calls []benchCall) *luaFloor {
	b.Helper()
	src := map[string][]byte{}
	for _, c := range calls {
		src[c.script] = manifest.StripShebang(m.Script(c.script).Source)
	}
	fl, err := newLuaFloor(src)
	if err != nil {
		b.Fatal(err)
	}
	return fl
}
