package keyspace

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// Every handler registered for the engine's own target is a command its
// command table knows (register does not look, to keep process start
// cheap).
func TestHandlersKnownToRedis(t *testing.T) {
	if len(handlers.Get()) < 100 {
		t.Fatalf("only %d handlers registered", len(handlers.Get()))
	}
	for name := range handlers.Get() {
		if _, ok := lookupCommand(name); !ok {
			t.Errorf("handler registered for %q, which %s does not know", name, DefaultTarget)
		}
	}
}

// TestKnowsNoLua: the data side never imports gopher-lua, directly or
// through one of the module's packages (internal/archtest keeps it from
// importing verify; this keeps it from reaching Lua some other way).
func TestKnowsNoLua(t *testing.T) {
	const module, lua = "github.com/scriptctl/scriptctl", "github.com/yuin/gopher-lua"
	seen := map[string]bool{}
	var walk func(dir, path string)
	walk = func(dir, path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range p.Imports {
			if imp == lua || strings.HasPrefix(imp, lua+"/") {
				t.Errorf("%s imports %s", path, imp)
			}
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				walk(filepath.Join("..", "..", filepath.FromSlash(rel)), imp)
			}
		}
	}
	walk(".", module+"/verify/keyspace")
	if len(seen) < 3 {
		t.Fatalf("walked only %d packages", len(seen))
	}
}
