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
)

// modelsDir holds the bundled models.
var modelsDir = filepath.Join("..", "lua_test", "models")

// v1ManifestText is version 1 of the bundled manifest, on its released
// scripts in a v1/ folder beside it, so the tests do not depend on the
// version the repository is at.
const v1ManifestText = `schema: 1
library: catalog_refresh
version: 1
scripts:
  acquire: {file: v1/acquire.lua, keys: [lease, value], args: [token, lease_ttl_ms]}
  publish: {file: v1/publish.lua, keys: [lease, value], args: [token, candidate, cache_ttl_ms]}
  release: {file: v1/release.lua, keys: [lease], args: [token]}
callers:
  catalog_summary:
    scripts: [acquire, publish, release]
    keys:
      lease: "catalog:{product-<id>}:lease"
      value: "catalog:{product-<id>}:value"
`

// repoManifest is version 1 of the bundled manifest (v1ManifestText) at
// the repository's root, on the released v1 scripts (lua/v1/), so the
// models' own paths stay inside its folder as they must.
func repoManifest(t testing.TB) *manifest.Manifest {
	t.Helper()
	text := strings.ReplaceAll(v1ManifestText, "file: v1/", "file: lua/v1/")
	m, err := manifest.Parse(filepath.Join("..", "manifest.yaml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// manifestIn is v1ManifestText as the manifest of dir, which holds the v1
// scripts in v1/.
func manifestIn(t testing.TB, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Parse(filepath.Join(dir, "manifest.yaml"), []byte(v1ManifestText))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// v2Manifest is the bundled manifest, version 2.
func v2Manifest(t testing.TB) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(filepath.Join("..", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != 2 {
		t.Fatalf("the bundled manifest is version %d: the v2 models and mutants need version 2", m.Version)
	}
	return m
}

func loadModel(t testing.TB, m *manifest.Manifest, path string) *Model {
	t.Helper()
	md, err := Load(path, m)
	if err != nil {
		t.Fatal(err)
	}
	if md.Skip != "" {
		t.Fatalf("%s: skipped: %s", path, md.Skip)
	}
	return md
}

func explore(t testing.TB, md *Model, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), md, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// lines renders a timeline as "actor action -> reply | value rev N".
func lines(v *Violation) []string {
	var out []string
	for _, l := range v.Timeline {
		val := "(absent)"
		if l.Present {
			val = l.Value
		}
		out = append(out, fmt.Sprintf("%s %s -> %s | %s rev %d", l.Actor, l.Action, l.Reply, val, l.Revision))
	}
	return out
}

func TestBundledModels(t *testing.T) {
	tests := []struct {
		file      string
		v2        bool
		invariant string   // "" no violation
		timeline  []string // the shortest counterexample
	}{
		{file: "paused_writer_v1.yaml"},
		{file: "paused_writer.yaml", v2: true},
		{file: "invalidation_race.yaml", v2: true},
		{file: "invalidation_race_revisions.yaml", v2: true},
		{file: "paused_writer_control.yaml", invariant: NoRegression, timeline: []string{
			`old acquire -> ["acquired"] | (absent) rev -1`,
			`old read -> revision 1 | (absent) rev -1`,
			`clock advance 150ms ->  | (absent) rev -1`,
			`current acquire -> ["acquired"] | (absent) rev -1`,
			`source update -> revision 2 | (absent) rev -1`,
			`current read -> revision 2 | (absent) rev -1`,
			`current publish -> 1 | current@rev2 rev 2`,
			`old publish -> 1 | old@rev1 rev 1`,
		}},
		{file: "invalidation_race_v1.yaml", invariant: NoRegression, timeline: []string{
			`loader acquire -> ["acquired"] | (absent) rev -1`,
			`loader read -> revision 1 | (absent) rev -1`,
			`writer update -> revision 2 | (absent) rev -1`,
			`writer invalidate -> 0 | (absent) rev -1`,
			`loader publish -> 1 | loader@rev1 rev 1`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := repoManifest(t)
			if tc.v2 {
				m = v2Manifest(t)
			}
			md := loadModel(t, m, filepath.Join(modelsDir, tc.file))
			res := explore(t, md, Options{})
			if !res.OK() {
				t.Errorf("result does not match the model's expectation %q: %+v", md.Expect, res.Violation)
			}
			if res.Truncated {
				t.Errorf("truncated at %d states", res.States)
			}
			if tc.invariant == "" {
				if res.Violation != nil {
					t.Fatalf("violation %s: %s\n%s", res.Violation.Invariant, res.Violation.Message, strings.Join(lines(res.Violation), "\n"))
				}
				if res.States < 100 || res.Interleavings < uint64(res.States) {
					t.Errorf("explored only %d states, %d interleavings", res.States, res.Interleavings)
				}
				return
			}
			if res.Violation == nil || res.Violation.Invariant != tc.invariant {
				t.Fatalf("want a %s violation, got %+v", tc.invariant, res.Violation)
			}
			if got := lines(res.Violation); strings.Join(got, "\n") != strings.Join(tc.timeline, "\n") {
				t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.timeline, "\n"))
			}
		})
	}
}

// TestReplayMatchesSnapshot: restoring a state by replaying its path from
// the root explores exactly what restoring its snapshot does.
func TestReplayMatchesSnapshot(t *testing.T) {
	for _, f := range []string{"paused_writer_v1.yaml", "invalidation_race_v1.yaml", "paused_writer_control.yaml"} {
		md := loadModel(t, repoManifest(t), filepath.Join(modelsDir, f))
		a, b := explore(t, md, Options{}), explore(t, md, Options{Replay: true})
		if a.States != b.States || a.Transitions != b.Transitions || a.Interleavings != b.Interleavings {
			t.Errorf("%s: snapshot %d/%d/%d, replay %d/%d/%d", f, a.States, a.Transitions, a.Interleavings, b.States, b.Transitions, b.Interleavings)
		}
		if (a.Violation == nil) != (b.Violation == nil) || a.Violation != nil && strings.Join(lines(a.Violation), "\n") != strings.Join(lines(b.Violation), "\n") {
			t.Errorf("%s: the violations differ: %+v vs %+v", f, a.Violation, b.Violation)
		}
	}
}

// TestMaxStates: the state limit stops the exploration and says so.
func TestMaxStates(t *testing.T) {
	md := loadModel(t, repoManifest(t), filepath.Join(modelsDir, "paused_writer_v1.yaml"))
	res := explore(t, md, Options{MaxStates: 10})
	if !res.Truncated || res.States != 10 || res.OK() && res.Violation != nil {
		t.Errorf("truncated %t, states %d", res.Truncated, res.States)
	}
	if o := (Outcome{Model: md, Result: res}); o.Status() != "truncated" {
		t.Errorf("status %q", o.Status())
	}
}

// writeModel writes a model beside copies of the v1 scripts and parses it.
func writeModel(t *testing.T, body string) (*Model, error) {
	t.Helper()
	return writeModelFiles(t, body, nil)
}

// writeModelFiles is writeModel with more files beside the model.
func writeModelFiles(t *testing.T, body string, files map[string]string) (*Model, error) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"acquire.lua", "publish.lua", "release.lua"} {
		src, err := os.ReadFile(filepath.Join("..", "lua", "v1", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "v1", f), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "model.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path, manifestIn(t, dir))
}

// v1Protocol is the protocol section of a model on the pinned v1 scripts.
const v1Protocol = `caller: catalog_summary
vars: {id: "42"}
protocol:
  acquire:
    file: v1/acquire.lua
    keys: [lease, value]
    args: {token: "${token}", lease_ttl_ms: "100"}
    owned: acquired
    ttl_arg: lease_ttl_ms
  publish:
    file: v1/publish.lua
    keys: [lease, value]
    args: {token: "${token}", candidate: "${candidate}", cache_ttl_ms: "60000"}
    accepted: "1"
  release:
    file: v1/release.lua
    keys: [lease]
    args: {token: "${token}"}
`

// TestServeRejected: a caller that serves its candidate without looking at
// publish's reply is caught when the publish is rejected.
func TestServeRejected(t *testing.T) {
	md, err := writeModel(t, v1Protocol+`
workers:
  old: [acquire, read, publish, serve]
  current: [acquire, read, publish]
environment:
  - advance_ms: 150
`)
	if err != nil {
		t.Fatal(err)
	}
	res := explore(t, md, Options{})
	if res.Violation == nil || res.Violation.Invariant != NoRejectedServ {
		t.Fatalf("want %s, got %+v", NoRejectedServ, res.Violation)
	}
	got := lines(res.Violation)
	if last := got[len(got)-1]; !strings.HasPrefix(last, "old serve") || len(got) != 5 {
		t.Errorf("timeline:\n%s", strings.Join(got, "\n"))
	}
}

// TestSingleOwner: a worker that keeps believing it owns a lease past its
// TTL is not counted, but two live owners are: a raw SET that takes the
// lease unconditionally (an acquire without NX) is caught.
func TestSingleOwner(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "lua", "v1", "acquire.lua"))
	if err != nil {
		t.Fatal(err)
	}
	mut := strings.Replace(string(src), "'NX', ", "", 1)
	if mut == string(src) {
		t.Fatal("the mutation did not apply")
	}
	body := strings.Replace(v1Protocol, "file: v1/acquire.lua", "file: acquire_no_nx.lua", 1)
	md, err := writeModelFiles(t, body+`
workers:
  a: [acquire]
  b: [acquire]
`, map[string]string{"acquire_no_nx.lua": mut})
	if err != nil {
		t.Fatal(err)
	}
	res := explore(t, md, Options{})
	if res.Violation == nil || res.Violation.Invariant != SingleOwner || len(res.Violation.Timeline) != 2 {
		t.Fatalf("want a 2-step %s violation, got %+v", SingleOwner, res.Violation)
	}
	// the same with the real acquire: no violation, even when a's lease
	// expires and b takes it over
	md, err = writeModel(t, v1Protocol+`
workers:
  a: [acquire]
  b: [acquire]
environment:
  - advance_ms: 100
`)
	if err != nil {
		t.Fatal(err)
	}
	if res := explore(t, md, Options{}); res.Violation != nil {
		t.Fatalf("got %+v", res.Violation)
	}
}

// TestPredicates: a user predicate, with and without a guard.
func TestPredicates(t *testing.T) {
	md, err := writeModel(t, v1Protocol+`
workers:
  a: [acquire, read, publish]
invariants:
  builtin: []
  predicates:
    - name: lease short
      assert: ["${pttl.lease}", "<=", "100"]
    - name: published value is a's
      when: ["${a.accepted}", "==", "true"]
      assert: ["${key.value}", "==", "a@rev${source.revision}"]
    - name: no value before a read
      when: ["${a.revision}", "==", ""]
      assert: ["${revision.value}", "==", "-1"]
`)
	if err != nil {
		t.Fatal(err)
	}
	if res := explore(t, md, Options{}); res.Violation != nil {
		t.Fatalf("unexpected violation: %+v", res.Violation)
	}
	md, err = writeModel(t, v1Protocol+`
workers:
  a: [acquire, read, publish]
invariants:
  predicates:
    - name: nothing cached
      when: ["${now}", ">=", "0"]
      assert: ["${key.value}", "==", ""]
expect:
  violation: nothing cached
`)
	if err != nil {
		t.Fatal(err)
	}
	res := explore(t, md, Options{})
	if !res.OK() || len(res.Violation.Timeline) != 3 || res.Violation.Message != `"a@rev1" == "" does not hold` {
		t.Fatalf("got %+v", res.Violation)
	}
}

// TestBranchLoop: a worker that retries on busy, bounded by bounds.steps.
func TestBranchLoop(t *testing.T) {
	md, err := writeModel(t, v1Protocol+`
workers:
  a: [acquire, read, pause, publish]
  b:
    - name: again
      acquire: null
    - branch: {if: busy, goto: again}
    - branch: {unless: acquired, goto: end}
    - read
    - publish
bounds: {steps: 4, depth: 20}
`)
	if err != nil {
		t.Fatal(err)
	}
	res := explore(t, md, Options{})
	if res.Violation != nil || res.Truncated {
		t.Fatalf("got %+v", res.Violation)
	}
	if res.States < 10 {
		t.Errorf("only %d states", res.States)
	}
}

// mutants are single-defect variants of the v2 publish, acquire, renew
// and invalidate scripts; each must be caught by a bundled v2 model.
var mutants = []struct {
	name, file, from, to, model string
}{
	{"publish compares the token inverted", "publish.lua", "local owned = redis.call('GET', KEYS[1]) == token", "local owned = redis.call('GET', KEYS[1]) ~= token", "paused_writer.yaml"},
	{"renew without the token check", "renew.lua", "if redis.call('GET', KEYS[1]) == token then", "if true then", "paused_writer.yaml"},
	{"publish drops the revision check", "publish.lua", "tonumber(rev) < tonumber(state[2])", "false", "invalidation_race_revisions.yaml"},
	{"invalidate records no tombstone", "invalidate.lua", "redis.call('HSET', KEYS[3], 'rev', rev)", "", "invalidation_race_revisions.yaml"},
	{"invalidate does not bump the generation", "invalidate.lua", "local gen = redis.call('HINCRBY', KEYS[3], 'gen', 1)", "local gen = 0", "invalidation_race.yaml"},
}

// TestGenerationOrLeaseDeletion: in the v2 contract invalidate both deletes
// the outstanding lease and bumps the generation publish checks, so either
// defence alone keeps the invalidation race safe; explore finds the race
// only when both are gone. (The generation check still tells a caller
// "invalidated" from "lease lost"; scenarios check that reply.)
func TestGenerationOrLeaseDeletion(t *testing.T) {
	noGenCheck := mutation{"publish.lua", "~= gen then", "~= gen and false then"}
	keepLeases := mutation{"invalidate.lua", "redis.call('DEL', KEYS[2], KEYS[1])", "redis.call('DEL', KEYS[2])"}
	for _, tc := range []struct {
		name    string
		muts    []mutation
		violate bool
	}{
		{"no generation check", []mutation{noGenCheck}, false},
		{"invalidate keeps leases", []mutation{keepLeases}, false},
		{"both", []mutation{noGenCheck, keepLeases}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mutantManifest(t, tc.muts...)
			res := explore(t, loadModel(t, m, filepath.Join(modelsDir, "invalidation_race.yaml")), Options{})
			if (res.Violation != nil) != tc.violate {
				t.Fatalf("violation %+v, want one: %t", res.Violation, tc.violate)
			}
			if tc.violate && res.Violation.Invariant != NoRegression {
				t.Errorf("got %s", res.Violation.Invariant)
			}
		})
	}
}

type mutation struct{ file, from, to string }

// mutantManifest copies the bundled manifest and its scripts (version 2)
// with the mutations applied and loads it.
func mutantManifest(t *testing.T, muts ...mutation) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	text, err := os.ReadFile(filepath.Join("..", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.yaml"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "lua"), os.DirFS(filepath.Join("..", "lua"))); err != nil {
		t.Fatal(err)
	}
	for _, mu := range muts {
		path := filepath.Join(dir, "lua", mu.file)
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mut := strings.Replace(string(body), mu.from, mu.to, 1)
		if mut == string(body) {
			t.Fatalf("%q not in %s", mu.from, mu.file)
		}
		if err := os.WriteFile(path, []byte(mut), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMutants runs each mutant of the bundled v2 scripts
// through the model that must catch it.
func TestMutants(t *testing.T) {
	for _, mu := range mutants {
		t.Run(mu.name, func(t *testing.T) {
			m := mutantManifest(t, mutation{mu.file, mu.from, mu.to})
			res := explore(t, loadModel(t, m, filepath.Join(modelsDir, mu.model)), Options{})
			if res.Violation == nil {
				t.Fatalf("%s: no violation in %d states", mu.model, res.States)
			}
			t.Logf("%s: %s in %d steps", mu.model, res.Violation.Invariant, len(res.Violation.Timeline))
		})
	}
}

// TestRevisionsNeeded: without revisions, a loader that read before it took
// the lease publishes an older snapshot under the new generation.
func TestRevisionsNeeded(t *testing.T) {
	path := filepath.Join(modelsDir, "invalidation_race_revisions.yaml")
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mut := strings.Replace(string(body), `gen: "${gen}", revision: "${revision}"}`, `gen: "${gen}", revision: ""}`, 1)
	if mut == string(body) {
		t.Fatal("the mutation did not apply")
	}
	md, err := Parse(path, []byte(mut), v2Manifest(t))
	if err != nil {
		t.Fatal(err)
	}
	res := explore(t, md, Options{})
	if res.Violation == nil || res.Violation.Invariant != NoRegression {
		t.Fatalf("want %s, got %+v", NoRegression, res.Violation)
	}
	want := []string{
		`loader_a read -> revision 1 | (absent) rev -1`,
		`writer update -> revision 2 | (absent) rev -1`,
		`writer invalidate -> 1 | (absent) rev -1`,
		`loader_a acquire -> ["acquired", "1"] | (absent) rev -1`,
		`loader_a publish -> 1 | loader_a@rev1 rev 1`,
	}
	if got := lines(res.Violation); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s", strings.Join(got, "\n"))
	}
}

// TestRawCommand: a raw command in a worker's program runs as a client
// would send it, and its reply is the worker's last reply.
func TestRawCommand(t *testing.T) {
	md, err := writeModel(t, v1Protocol+`
workers:
  a: [acquire, read, publish]
  b:
    - do: [SET, "${key.value}", "b@rev0"]
    - branch: {unless: OK, goto: end}
    - do: [GET, "${key.value}"]
`)
	if err != nil {
		t.Fatal(err)
	}
	res := explore(t, md, Options{})
	if res.Violation == nil || res.Violation.Invariant != NoRegression {
		t.Fatalf("want %s, got %+v", NoRegression, res.Violation)
	}
	want := []string{
		`a acquire -> ["acquired"] | (absent) rev -1`,
		`a read -> revision 1 | (absent) rev -1`,
		`a publish -> 1 | a@rev1 rev 1`,
		`b do SET catalog:{product-42}:value b@rev0 -> +OK | b@rev0 rev 0`,
	}
	if got := lines(res.Violation); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s", strings.Join(got, "\n"))
	}
}

// TestCounts: two workers of two independent steps each reach 3x3 states
// by 12 transitions, and cover the C(4,2) = 6 interleavings of their steps;
// an environment action that may happen once is part of every complete
// interleaving (a run ends when nothing can move), in one of 5 places.
func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		env                 string
		states, transitions int
		interleavings       uint64
	}{
		{"", 9, 12, 6},
		{"environment: [{update_source: true}]\n", 18, 33, 6 * 5},
	} {
		md, err := writeModel(t, v1Protocol+"workers:\n  a: [pause, pause]\n  b: [pause, pause]\n"+tc.env)
		if err != nil {
			t.Fatal(err)
		}
		res := explore(t, md, Options{})
		if res.Violation != nil || res.States != tc.states || res.Transitions != tc.transitions || res.Interleavings != tc.interleavings {
			t.Errorf("%q: states %d, transitions %d, interleavings %d; want %d, %d, %d", tc.env, res.States, res.Transitions, res.Interleavings, tc.states, tc.transitions, tc.interleavings)
		}
	}
}

// A model's script file must stay inside the manifest's folder, links
// followed: a ".." that climbs out and a link that points out are refused
// at the model's file field, and nothing of the outside file is read.
func TestModelFileStaysInside(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	const marker = "OUTSIDE-SECRET-7f3a"
	outside := filepath.Join(root, "outside.lua")
	if err := os.WriteFile(outside, []byte("-- "+marker+"\nreturn 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "models", "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"acquire.lua", "publish.lua", "release.lua"} {
		src, err := os.ReadFile(filepath.Join("..", "lua", "v1", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "models", "v1", f), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(repo, "models", "link.lua")); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse(filepath.Join(repo, "manifest.yaml"), []byte(strings.ReplaceAll(v1ManifestText, "file: v1/", "file: models/v1/")))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../../outside.lua", "link.lua"} {
		body := strings.Replace(v1Protocol, "file: v1/acquire.lua", "file: "+file, 1) + "workers:\n  w: [acquire]\n"
		path := filepath.Join(repo, "models", "m.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, m)
		var errs manifest.Errors
		if !errors.As(err, &errs) {
			t.Fatalf("%s: want positioned errors, got %v", file, err)
		}
		found := false
		for _, e := range errs {
			if e.Field == "protocol.acquire.file" && e.Line == 5 && strings.Contains(e.Msg, "leads outside the manifest's folder") {
				found = true
			}
		}
		if !found || strings.Contains(err.Error(), marker) {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// Models refuses a model file that links out of the manifest's folder,
// before it is read.
func TestModelsRefusesLinksOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(outside, []byte("name: TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(ModelsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Path: filepath.Join(root, "manifest.yaml"), Dir: root}
	if paths, err := Models(m); err != nil || len(paths) != 1 {
		t.Fatalf("inside: %v, %v", paths, err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := Models(m)
	var errs manifest.Errors
	if !errors.As(err, &errs) || len(errs) != 1 || !strings.Contains(errs[0].Msg, "leads outside the manifest's folder") || strings.Contains(err.Error(), "TOPSECRET") {
		t.Fatalf("a link out: %v", err)
	}
}
