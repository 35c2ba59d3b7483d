package lua_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/scriptctl/scriptctl/lua"
	"github.com/scriptctl/scriptctl/manifest"
)

// TestEmbeddedMatchManifest proves the embedded bodies are the very bytes the
// bundled manifest names: same files, same SHA.
func TestEmbeddedMatchManifest(t *testing.T) {
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range m.Scripts {
		if filepath.Dir(s.File) != "lua" {
			t.Fatalf("script %s: file %s is outside lua/", s.Name, s.File)
		}
		name := filepath.Base(s.File)
		want = append(want, name)
		got, err := lua.Source(name)
		if err != nil {
			t.Fatal(err)
		}
		if sha := manifest.SHA1Hex(got); sha != s.SHA {
			t.Errorf("%s: embedded SHA %s, manifest file SHA %s", name, sha, s.SHA)
		}
		if string(lua.MustSource(name)) != string(s.Source) {
			t.Errorf("%s: MustSource differs from the file", name)
		}
	}
	slices.Sort(want)
	if got := lua.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want the manifest's scripts %v", got, want)
	}
}

func TestSourceUnknown(t *testing.T) {
	_, err := lua.Source("nope.lua")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Source(nope.lua) error = %v, want fs.ErrNotExist", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MustSource(nope.lua) did not panic")
		}
	}()
	lua.MustSource("nope.lua")
}

// TestHistoryReproducible proves every earlier version scripts.sum records
// is kept byte for byte in lua/v<N>/<script>.lua, so the ledger's history
// can be rebuilt, run and deployed again (the negative controls run v1).
func TestHistoryReproducible(t *testing.T) {
	m, err := manifest.Load("../manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := manifest.ReadSum(m.SumPath())
	if err != nil {
		t.Fatal(err)
	}
	older := 0
	for _, e := range sum.Entries {
		if e.Version == m.Version {
			continue
		}
		older++
		path := filepath.Join(fmt.Sprintf("v%d", e.Version), e.Script+".lua")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("scripts.sum:%d: version %d of %s: %v", e.Line, e.Version, e.Script, err)
			continue
		}
		if sha := manifest.SHA1Hex(b); sha != e.SHA {
			t.Errorf("scripts.sum:%d: lua/%s hashes to %s, the ledger records %s", e.Line, path, sha, e.SHA)
		}
	}
	if older == 0 {
		t.Fatal("scripts.sum records no earlier version: the history test proves nothing")
	}
}
