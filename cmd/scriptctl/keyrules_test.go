package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/evalrun"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/lint"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// TestDynamicKeyMatchesUndeclaredKey: lint's dynamic-key and the offline
// run's undeclared-key name the same lines, at the same severity (a
// warning; with strict keys an error, where the run stops at the first)
// and with the same advice, for keys built from a prefix, ARGV, a literal
// or a reply. (A call written over several
// lines differs: lint names the key argument's line, the run the line Lua
// gives the call.)
func TestDynamicKeyMatchesUndeclaredKey(t *testing.T) {
	const advice = ": on a cluster node it must hash to the declared keys' slot, and proxies that demand declared keys refuse it; pass it in KEYS"
	for _, tc := range []struct {
		name       string
		src        string
		keys, args []string
		state      []scenario.Key
	}{
		{"prefix", "local id = redis.call('INCR', KEYS[1])\nlocal job = ARGV[1] .. id\nredis.call('HSET', job, 'd', ARGV[2])\nreturn redis.call('HGET', job, 'd')\n",
			[]string{"bull:{q}:id"}, []string{"bull:{q}:", "x"}, nil},
		{"literal", "redis.call('SET', KEYS[1], 1)\nreturn redis.call('GET', 'other')\n", []string{"k"}, nil, nil},
		{"argv", "return redis.call('SET', ARGV[1], 1)\n", nil, []string{"x"}, nil},
		{"mset", "local v = 1\nreturn redis.call('MSET', KEYS[1], 'v', 'x', 'v')\n", []string{"k"}, nil, nil},
		{"reply", "local k = redis.call('GET', KEYS[1])\nreturn redis.call('GET', k)\n", []string{"k"}, nil,
			[]scenario.Key{{Name: "k", Type: "string", Value: "target"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lintLines []int
			for _, d := range lint.Source("s.lua", []byte(tc.src), nil) {
				if d.Code == "dynamic-key" {
					lintLines = append(lintLines, d.Pos.Line)
					if !strings.HasSuffix(d.Message, advice) {
						t.Errorf("lint message %q", d.Message)
					}
					if d.Severity != lint.Warning {
						t.Errorf("lint severity %s, want warning as the run's", d.Severity)
					}
				}
			}
			side, err := evalrun.Offline(context.Background(), evalrun.Request{Source: []byte(tc.src), Keys: tc.keys, Args: tc.args, State: tc.state, Topology: verify.TopologyStandalone})
			if err != nil || side.RunErr != nil {
				t.Fatalf("%v %v", err, side.RunErr)
			}
			res := &evalrun.Result{File: "s.lua", Offline: side}
			var runLines []int
			for _, d := range res.Diagnostics() {
				if d.Code == verify.CodeUndeclaredKey && d.Severity == diag.Warning {
					runLines = append(runLines, d.Line)
					if !strings.HasSuffix(d.Message, advice) {
						t.Errorf("runtime message %q", d.Message)
					}
				}
			}
			runLines = slices.Compact(runLines)
			if len(lintLines) == 0 || !slices.Equal(lintLines, runLines) {
				t.Errorf("lint dynamic-key lines %v, undeclared-key lines %v", lintLines, runLines)
			}

			// Strict keys: both are errors, and the run stops at the
			// first line lint names.
			strict, err := lint.Run(context.Background(), lint.Config{Files: []lint.File{{Path: "s.lua", Source: []byte(tc.src)}}, StrictKeys: true})
			if err != nil {
				t.Fatal(err)
			}
			var strictLines []int
			for _, d := range strict {
				if d.Code == "dynamic-key" {
					strictLines = append(strictLines, d.Pos.Line)
					if d.Severity != lint.Error {
						t.Errorf("strict keys: lint %s", d)
					}
				}
			}
			if !slices.Equal(strictLines, lintLines) {
				t.Errorf("strict keys: lint dynamic-key lines %v, want %v", strictLines, lintLines)
			}
			side, err = evalrun.Offline(context.Background(), evalrun.Request{Source: []byte(tc.src), Keys: tc.keys, Args: tc.args, State: tc.state, Topology: verify.TopologyStandalone, StrictKeys: true})
			if err != nil {
				t.Fatal(err)
			}
			res = &evalrun.Result{File: "s.lua", Offline: side}
			ds := res.Diagnostics()
			if side.RunErr == nil || len(ds) != 1 || ds[0].Code != verify.CodeUndeclaredKey || ds[0].Severity != diag.Error || len(lintLines) == 0 || ds[0].Line != lintLines[0] {
				t.Errorf("strict keys: run %+v, want an undeclared-key error at line %v", ds, lintLines)
			}
		})
	}
}
