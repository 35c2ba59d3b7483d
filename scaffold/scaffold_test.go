package scaffold

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// TestInitLoads: the manifest Init writes loads, and scripts.sum records
// exactly its scripts.
func TestInitLoads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my repo")
	files, err := Init(InitOptions{Dir: dir, Targets: []string{"redis-7.0", "valkey-8.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 9 {
		t.Fatalf("wrote %d files: %v", len(files), files)
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Library != "my_repo" || strings.Join(m.Targets, ",") != "redis-7.0,valkey-8.1" || len(m.Scripts) != 1 || len(m.Callers) != 1 {
		t.Fatalf("manifest: library %q targets %v, %d scripts, %d callers", m.Library, m.Targets, len(m.Scripts), len(m.Callers))
	}
	sum, err := manifest.ReadSum(m.SumPath())
	if err != nil {
		t.Fatal(err)
	}
	if problems := manifest.CheckSum(m, sum); len(problems) > 0 {
		t.Fatalf("scripts.sum: %v", problems[0])
	}
}

// TestInitRefusesWritesNothing: one existing file makes Init refuse, name
// it, and leave every other file unwritten.
func TestInitRefusesWritesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Init(InitOptions{Dir: dir})
	var ee *ExistsError
	if !errors.As(err, &ee) || !errors.Is(err, ErrExists) || strings.Join(ee.Files, ",") != "README.md" {
		t.Fatalf("err = %v, want an ExistsError naming README.md", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("folder has %d entries, want only README.md", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(b) != "mine\n" {
		t.Fatalf("README.md overwritten: %q", b)
	}
}

func TestAddScript(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"block mapping, comments kept",
			"# top\nlibrary: x\nscripts:\n    a:   # first\n        file: a.lua\n\n# callers next\ncallers: {}\n",
			"# top\nlibrary: x\nscripts:\n    a:   # first\n        file: a.lua\n    b:\n        file: lua/b.lua\n        keys: [key]\n        args: [value]\n\n# callers next\ncallers: {}\n"},
		{"last in the file without a newline",
			"scripts:\n  a:\n    file: a.lua\n    keys: [k]",
			"scripts:\n  a:\n    file: a.lua\n    keys: [k]\n  b:\n    file: lua/b.lua\n    keys: [key]\n    args: [value]\n"},
		{"flow mapping",
			"library: x # lib\nscripts: {}\n",
			"library: x # lib\nscripts:\n  b:\n    file: lua/b.lua\n    keys: [key]\n    args: [value]\n"},
		{"no scripts",
			"library: x\n",
			"library: x\nscripts:\n  b:\n    file: lua/b.lua\n    keys: [key]\n    args: [value]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AddScript([]byte(tc.src), "b", "lua/b.lua", []string{"key"}, []string{"value"})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if _, err := AddScript([]byte("- a\n"), "b", "b.lua", nil, nil); err == nil {
		t.Fatal("a list document: no error")
	}
}

func TestLibraryFromDir(t *testing.T) {
	for in, want := range map[string]string{"/x/my-repo": "my_repo", "/x/Orders2": "Orders2", "/x/--": "scripts"} {
		if got := LibraryFromDir(in); got != want {
			t.Errorf("LibraryFromDir(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInitNumericLibrary: a library name YAML would read as a number is
// quoted, so the manifest still loads.
func TestInitNumericLibrary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "001")
	if _, err := Init(InitOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Library != "001" {
		t.Fatalf("library %q, want 001", m.Library)
	}
}

// TestNewScenarioDeclaredValues: a placeholder without samples gets "1",
// unless the caller's declared values exclude it; then a plain value they
// take (the shortest the search built).
func TestNewScenarioDeclaredValues(t *testing.T) {
	tests := []struct {
		ph   *manifest.Placeholder
		want string
	}{
		{nil, `queue: "1"`},
		{&manifest.Placeholder{Name: "queue", Pattern: `^[0-9]+$`}, `queue: "1"`},
		{&manifest.Placeholder{Name: "queue", Pattern: `^(default|high)$`}, `queue: "high"`},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		c := &manifest.Caller{Name: "worker", Scripts: []string{"push"},
			Keys:         []manifest.KeyTemplate{{Name: "list", Template: "queues:{<queue>}"}},
			Placeholders: map[string]manifest.Placeholder{}}
		if tt.ph != nil {
			c.Placeholders["queue"] = *tt.ph
		}
		m := &manifest.Manifest{Path: filepath.Join(dir, "manifest.yaml"), Dir: dir,
			Scripts: []*manifest.Script{{Name: "push", Keys: []string{"list"}}},
			Callers: []*manifest.Caller{c}}
		path, err := NewScenario(m, "push_once", "", false)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tt.want) {
			t.Errorf("declared %+v: scenario lacks %s:\n%s", tt.ph, tt.want, data)
		}
	}
}
