package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// parseModel parses body as a model in lua/ (so v1/ resolves to the
// released v1 scripts) against the bundled manifest.
func parseModel(t testing.TB, body string) (*Model, error) {
	t.Helper()
	return Parse(filepath.Join("..", "lua", "bad.yaml"), []byte(body), repoManifest(t))
}

const goodWorkers = `
workers:
  a: [acquire, read, publish]
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string // every problem, in order
	}{
		{"empty", "", []string{"bad.yaml:1:1: the model is empty: want protocol and workers"}},
		{"yaml", "protocol: [\n", []string{"bad.yaml:2:1: invalid YAML: did not find expected node content"}},
		{"yaml scanner", "name: x\nworkers: {a: [\"read]}\n", []string{"bad.yaml:2:1: invalid YAML: found unexpected end of stream"}},
		{"yaml key", "name: x\n  workers: 1\n", []string{"bad.yaml:2:1: invalid YAML: mapping values are not allowed in this context"}},
		{"two documents", v1Protocol + goodWorkers + "---\nx: 1\n", []string{"a model file holds one YAML document"}},
		{"unknown field", v1Protocol + goodWorkers + "workerz: {}\n", []string{`bad.yaml:22:1: workerz: unknown field "workerz": want one of`}},
		{"missing parts", "name: x\nvars: {id: \"1\"}\n", []string{"bad.yaml:1:1: workers: missing"}},
		{"unknown caller", strings.Replace(v1Protocol, "caller: catalog_summary", "caller: nobody", 1) + goodWorkers,
			[]string{`bad.yaml:1:9: caller: the manifest has no caller "nobody"`}},
		{"missing var", strings.Replace(v1Protocol, `vars: {id: "42"}`, `vars: {}`, 1) + goodWorkers,
			[]string{"bad.yaml:1:1: vars.id: missing: caller catalog_summary's key lease uses <id>", "vars.id: missing: caller catalog_summary's key value uses <id>"}},
		{"unknown role", v1Protocol + "  fetch: {script: acquire}\n" + goodWorkers, []string{`bad.yaml:19:3: protocol.fetch: unknown role "fetch"`}},
		{"unknown script", strings.Replace(v1Protocol, "file: v1/release.lua\n    keys: [lease]", "script: relase", 1) + goodWorkers,
			[]string{`bad.yaml:16:13: protocol.release.script: the manifest has no script "relase"`}},
		{"missing file", strings.Replace(v1Protocol, "v1/release.lua", "v1/nope.lua", 1) + goodWorkers,
			[]string{"bad.yaml:16:11: protocol.release.file: cannot read v1/nope.lua: no such file or directory"}},
		{"bad key", strings.Replace(v1Protocol, "keys: [lease]", "keys: [leese]", 1) + goodWorkers,
			[]string{`protocol.release.keys[0]: caller catalog_summary has no key template "leese"`}},
		{"missing owned", strings.Replace(v1Protocol, "    owned: acquired\n", "", 1) + goodWorkers,
			[]string{"bad.yaml:4:3: protocol.acquire.owned: missing: the reply head that means the lease is owned"}},
		{"bad ttl arg", strings.Replace(v1Protocol, "ttl_arg: lease_ttl_ms", "ttl_arg: ttl", 1) + goodWorkers,
			[]string{`bad.yaml:9:14: protocol.acquire.ttl_arg: no arg "ttl"`}},
		{"unknown reference", strings.Replace(v1Protocol, `"${candidate}"`, `"${candidat}"`, 1) + goodWorkers,
			[]string{`bad.yaml:13:42: protocol.publish.args.candidate: ${candidat}: not a var, a worker register`}},
		{"unknown step", v1Protocol + "workers:\n  a: [acquire, fetch]\n", []string{`bad.yaml:20:16: workers.a[1]: unknown step "fetch"`}},
		{"role not declared", v1Protocol + "workers:\n  a: [renew]\n", []string{"bad.yaml:20:7: workers.a[0]: step renew needs protocol.renew"}},
		{"bad goto", v1Protocol + "workers:\n  a:\n    - acquire\n    - branch: {if: busy, goto: nowhere}\n",
			[]string{`bad.yaml:22:32: workers.a[1].branch.goto: no step named "nowhere" in worker a`}},
		{"two actions", v1Protocol + "workers:\n  a:\n    - {read: null, pause: null}\n", []string{"bad.yaml:21:7: workers.a[0]: a step does exactly one of"}},
		{"step arg", v1Protocol + "workers:\n  a:\n    - acquire: {lease_ttl: \"5\"}\n", []string{`bad.yaml:21:17: workers.a[0].acquire.lease_ttl: role acquire has no arg "lease_ttl"`}},
		{"bool arg", strings.Replace(v1Protocol, `lease_ttl_ms: "100"`, `lease_ttl_ms: true`, 1) + goodWorkers,
			[]string{"protocol.acquire.args.lease_ttl_ms: must be a string, not bool true (quote it)"}},
		{"bounds", v1Protocol + goodWorkers + "bounds: {depth: 0, steps: 1000, clock_ms: -1}\n",
			[]string{"bounds.depth: must be a positive integer in decimal, not 0", "bounds.steps: 1000 is too large (at most 64)", "bounds.clock_ms: must be a positive integer in decimal, not -1"}},
		{"environment", v1Protocol + goodWorkers + "environment:\n  - {advance_ms: 5, update_source: true}\n  - {update_source: false}\n",
			[]string{"bad.yaml:23:5: environment[0]: give one of advance_ms, update_source, crash, pause and expire", "bad.yaml:24:21: environment[1].update_source: must be true"}},
		{"predicate", v1Protocol + goodWorkers + "invariants:\n  builtin: [no-regresion]\n  predicates:\n    - {name: p, assert: [a, =~, b]}\n    - {name: q, assert: [\"${key.nope}\", ==, \"${b.owns}\"]}\n",
			[]string{`invariants.builtin[0]: unknown invariant "no-regresion"`, `invariants.predicates[0].assert[1]: unknown operator "=~"`,
				`invariants.predicates[1].assert[0]: ${key.nope}: caller catalog_summary has no key "nope"`, `invariants.predicates[1].assert[2]: ${b.owns}: no worker "b"`}},
		{"expect", v1Protocol + goodWorkers + "expect: {violation: nothing}\n", []string{`expect.violation: unknown invariant "nothing"`}},
		{"duplicate key", v1Protocol + goodWorkers + "workers: {}\n", []string{`bad.yaml:22:1: workers: duplicate key "workers" (first at line 20)`}},
		{"worker name", v1Protocol + "workers:\n  source: [read]\n", []string{"bad.yaml:20:3: workers.source: worker names are [a-z][a-z0-9_]*, and not key, pttl, revision, field, source, now"}},
		{"not text", "name: \x00\n", []string{"bad.yaml:1:1: the model is not UTF-8 text"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md, err := parseModel(t, tc.body)
			var errs manifest.Errors
			if !errors.As(err, &errs) {
				t.Fatalf("want manifest.Errors, got %v (model %v)", err, md)
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(errs), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("problem %d: %q does not contain %q", i, errs[i].Error(), w)
				}
				if errs[i].Line == 0 {
					t.Errorf("problem %d has no line: %v", i, errs[i])
				}
			}
		})
	}
}

// TestParseModel checks what a valid model parses to.
func TestParseModel(t *testing.T) {
	md, err := parseModel(t, v1Protocol+`
workers:
  a:
    - acquire: {lease_ttl_ms: "50"}
    - branch: {unless: acquired, goto: end}
    - name: load
      read: null
    - branch: {if: "0", goto: load}
environment:
  - {advance_ms: 60, times: 2}
bounds: {depth: 9, clock_ms: 120}
`)
	if err != nil {
		t.Fatal(err)
	}
	if md.Name != "bad" || md.Keys["lease"] != "catalog:{product-42}:lease" || md.ValueKey != "value" || md.Source != 1 {
		t.Errorf("model %+v", md)
	}
	a := md.Workers[0]
	if len(a.Steps) != 4 || a.Steps[0].Args["lease_ttl_ms"] != "50" || a.Steps[1].Goto != 4 || !a.Steps[1].Not || a.Steps[3].Goto != 2 {
		t.Errorf("steps %+v %+v %+v", a.Steps[0], a.Steps[1], a.Steps[3])
	}
	if md.Bounds != (Bounds{Depth: 9, Steps: DefaultSteps, ClockMS: 120}) || md.Env[0].Times != 2 || len(md.Builtins) != 3 {
		t.Errorf("bounds %+v env %+v", md.Bounds, md.Env[0])
	}
	if r := md.Roles["publish"]; len(r.Args) != 3 || r.Args[1] != (Arg{"candidate", "${candidate}"}) || r.Accepted != "1" {
		t.Errorf("publish %+v", r)
	}
}

// TestRequiresVersion: a model for another version of the scripts is
// skipped before the parts that name its scripts are read.
func TestRequiresVersion(t *testing.T) {
	md, err := parseModel(t, "requires_version: 9\nprotocol: {renew: {script: nope}}\n")
	if err != nil || md.Skip != fmt.Sprintf("written for version 9 of the scripts; the manifest is version %d", repoManifest(t).Version) {
		t.Fatalf("%v %+v", err, md)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{v1Protocol + goodWorkers, "", "workers: {a: [read]}", v1Protocol + "workers:\n  a:\n    - branch: {if: x, goto: end}\n"} {
		f.Add(s)
	}
	bundled, _ := filepath.Glob(filepath.Join(modelsDir, "*.yaml"))
	for _, path := range bundled {
		if body, err := os.ReadFile(path); err == nil {
			f.Add(string(body))
		}
	}
	m := repoManifest(f)
	f.Fuzz(func(t *testing.T, body string) {
		md, err := Parse(filepath.Join(modelsDir, "fuzz.yaml"), []byte(body), m)
		var errs manifest.Errors
		switch {
		case err == nil && md == nil:
			t.Fatal("no model and no error")
		case err != nil && !errors.As(err, &errs):
			t.Fatalf("not manifest.Errors: %v", err)
		}
		for _, e := range errs {
			if e.Line <= 0 || e.File == "" {
				t.Fatalf("problem without a position: %v", e)
			}
		}
		if err == nil && md.Skip == "" {
			// whatever parses explores without panicking
			if _, err := Run(context.Background(), md, Options{MaxStates: 50}); err != nil {
				var re *verify.RunError
				if !errors.As(err, &re) {
					t.Fatalf("run: %v", err)
				}
			}
		}
	})
}
