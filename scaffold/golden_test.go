package scaffold

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/scriptctl/scriptctl/manifest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// TestGolden: every file init, new script and new scenario write, for
// inputs that exercise each branch of their text (YAML quoting of the
// library, targets, the release the CI files install, no keys or args,
// ten keys, a scenario with and without a caller, vars and args), is byte
// for byte the one recorded in testdata/golden/NAME.txtar. 'go test
// ./scaffold -run TestGolden -update' records them again.
func TestGolden(t *testing.T) {
	type scriptCase struct {
		name       string
		keys, args []string
	}
	var cases []struct {
		name string
		run  func(t *testing.T, dir string) []string // the paths written
	}
	add := func(name string, run func(t *testing.T, dir string) []string) {
		cases = append(cases, struct {
			name string
			run  func(t *testing.T, dir string) []string
		}{name, run})
	}
	initCase := func(name string, o InitOptions) {
		add(name, func(t *testing.T, dir string) []string {
			o.Dir = filepath.Join(dir, o.Dir)
			files, err := Init(o)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range files {
				files[i] = filepath.Join(o.Dir, f)
			}
			return files
		})
	}
	initCase("init_default", InitOptions{Dir: "my repo"})
	initCase("init_numeric_dir", InitOptions{Dir: "001"})
	initCase("init_release", InitOptions{Dir: "r", Library: "orders", Targets: []string{"redis-7.0", "valkey-8.1", "redis-8.0"}, Version: "v1.2.3"})
	initCase("init_one_target", InitOptions{Dir: "r", Library: "Orders2", Targets: []string{"valkey-8.1"}, Version: "v0.9.0-rc.1"})
	for _, lib := range []string{"true", "yes", "null", "1e3", "0x1F", "0755", "_", "NaN"} {
		initCase("init_library_"+lib, InitOptions{Dir: "r", Library: lib})
	}
	add("init_force", func(t *testing.T, dir string) []string {
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := Init(InitOptions{Dir: dir, Library: "forced", Force: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			files[i] = filepath.Join(dir, f)
		}
		return files
	})

	for _, sc := range []scriptCase{
		{"default", nil, nil},
		{"none", []string{}, []string{}},
		{"keys_only", []string{"a", "b"}, []string{}},
		{"args_only", []string{}, []string{"x", "y", "z"}},
		{"several", []string{"lock", "counter", "queue"}, []string{"token", "ttl_ms"}},
		{"ten_keys", []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11"}, []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10"}},
	} {
		add("new_script_"+sc.name, func(t *testing.T, dir string) []string {
			if _, err := Init(InitOptions{Dir: dir, Library: "lib"}); err != nil {
				t.Fatal(err)
			}
			paths, err := NewScript(filepath.Join(dir, "manifest.yaml"), "s_"+sc.name, sc.keys, sc.args, false)
			if err != nil {
				t.Fatal(err)
			}
			return paths
		})
	}

	// Scenarios: on the manifest init writes, and on manifests built here.
	scenario := func(name string, m func(dir string) *manifest.Manifest, scenarioName, script string) {
		add("new_scenario_"+name, func(t *testing.T, dir string) []string {
			path, err := NewScenario(m(dir), scenarioName, script, false)
			if err != nil {
				t.Fatal(err)
			}
			return []string{path}
		})
	}
	initManifest := func(dir string) *manifest.Manifest {
		if _, err := Init(InitOptions{Dir: dir, Library: "lib"}); err != nil {
			panic(err)
		}
		if _, err := NewScript(filepath.Join(dir, "manifest.yaml"), "push", []string{"list", "counter"}, []string{"item", "token", "ttl_ms"}, false); err != nil {
			panic(err)
		}
		m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
		if err != nil {
			panic(err)
		}
		return m
	}
	scenario("init_first_caller", initManifest, "release_twice", "")
	scenario("init_named_script", initManifest, "release-2", "release")
	scenario("init_unbound_script", initManifest, "push_unbound", "push")
	scenario("numeric_name", initManifest, "001", "")
	scenario("yaml_word_name", initManifest, "null", "")
	built := func(callers []*manifest.Caller, scripts ...*manifest.Script) func(dir string) *manifest.Manifest {
		return func(dir string) *manifest.Manifest {
			return &manifest.Manifest{Path: filepath.Join(dir, "manifest.yaml"), Dir: dir, Scripts: scripts, Callers: callers}
		}
	}
	noArgs := &manifest.Script{Name: "ping", Keys: []string{"k"}}
	tokenOnly := &manifest.Script{Name: "release", Keys: []string{"lock"}, Args: []string{"token"}}
	noKeys := &manifest.Script{Name: "now", Args: []string{"a", "b"}}
	scenario("no_callers", built(nil, noArgs, tokenOnly), "ping_once", "")
	scenario("no_callers_no_keys", built(nil, noKeys), "now_once", "")
	scenario("token_only", built(nil, tokenOnly), "rel", "release")
	scenario("caller_without_placeholders", built([]*manifest.Caller{{Name: "svc", Scripts: []string{"ping"},
		Keys: []manifest.KeyTemplate{{Name: "k", Template: "plain:key"}}}}, noArgs), "plain", "")
	scenario("caller_placeholders", built([]*manifest.Caller{{Name: "svc", Scripts: []string{"now", "ping"},
		Keys:         []manifest.KeyTemplate{{Name: "k", Template: "q:{<tenant>}:<queue>:<tenant>"}, {Name: "j", Template: "<shard>-<id>"}},
		Samples:      map[string][]string{"tenant": {"acme", "x"}, "id": {`a"b`}},
		Placeholders: map[string]manifest.Placeholder{"queue": {Name: "queue", Pattern: `^(default|high)$`}}}}, noArgs, noKeys), "multi", "now")

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			paths := tc.run(t, dir)
			var got txtar.Archive
			for _, p := range paths {
				rel, err := filepath.Rel(dir, p)
				if err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasSuffix(data, []byte("\n")) {
					// txtar would add the newline; the comparison must see it missing.
					t.Errorf("%s does not end with a newline", rel)
				}
				got.Files = append(got.Files, txtar.File{Name: filepath.ToSlash(rel), Data: data})
			}
			slices.SortFunc(got.Files, func(a, b txtar.File) int { return strings.Compare(a.Name, b.Name) })
			golden := filepath.Join("testdata", "golden", tc.name+".txtar")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, txtar.Format(&got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := txtar.ParseFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range want.Files {
				names = append(names, f.Name)
			}
			var gotNames []string
			for _, f := range got.Files {
				gotNames = append(gotNames, f.Name)
			}
			if !slices.Equal(names, gotNames) {
				t.Fatalf("wrote %v, want %v", gotNames, names)
			}
			for i, f := range want.Files {
				if !bytes.Equal(got.Files[i].Data, f.Data) {
					t.Errorf("%s:\n%s\nwant:\n%s", f.Name, got.Files[i].Data, f.Data)
				}
			}
		})
	}
}
