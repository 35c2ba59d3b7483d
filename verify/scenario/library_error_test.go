package scenario

import (
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// TestLibraryErrorNamesScriptLine: a script that does not compile inside the
// generated library is reported at its own file and line, not only at the
// generated library's user_function:N.
func TestLibraryErrorNamesScriptLine(t *testing.T) {
	m := &manifest.Manifest{Library: "lib", Version: 1, Scripts: []*manifest.Script{
		{Name: "ok", File: "lua/ok.lua", Source: []byte("return 1\n")},
		{Name: "broken", File: "lua/broken.lua", Source: []byte("local a = 1\nlocal x = = 2\nreturn x\n")},
	}}
	_, err := newOffline(m, ModeFunction, "")
	if err == nil {
		t.Fatal("newOffline loaded a library with a syntax error")
	}
	se, ok := err.(*ScriptError)
	if !ok {
		t.Fatalf("error %T %v, want *ScriptError", err, err)
	}
	if se.At != "lua/broken.lua:2" {
		t.Fatalf("At = %q, want lua/broken.lua:2 (reply %q)", se.At, se.Reply)
	}
	if !strings.HasSuffix(se.Error(), "(lua/broken.lua:2)") {
		t.Fatalf("Error() = %q", se.Error())
	}
}
