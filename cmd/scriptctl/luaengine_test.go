package main

import (
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestNoLuaEngineRefused: a Valkey 9.1 node that unloaded its lua module
// (MODULE UNLOAD lua, allowed by --enable-module-command) runs no script;
// plan, deploy, status and inspect say so, naming it, and exit 3 before
// anything is loaded. The same node with its engine passes the check.
func TestNoLuaEngineRefused(t *testing.T) {
	k, _ := redistest.LookupKind("valkey-9.1")
	noConnEnv(t)
	path := loaderProject(t, "1")

	withLua := redistest.Standalone(t, redistest.WithKind(k))
	if r := loaderRun(t, "status", "-m", path, "--url", "redis://"+withLua.Addr); strings.Contains(r.errOut, "no Lua engine") {
		t.Fatalf("status on a node with its Lua engine:\n%s", r.errOut)
	}

	srv := redistest.Standalone(t, redistest.WithKind(k), redistest.WithArgs("--enable-module-command", "yes"))
	srv.MustDo("MODULE", "UNLOAD", "lua")
	// The node really cannot run Lua now.
	if err := srv.Do(t.Context(), "EVAL", "return 1", "0").Error(); err == nil || !strings.Contains(err.Error(), "Could not find scripting engine 'lua'") {
		t.Fatalf("EVAL without the lua module: %v", err)
	}
	url := "redis://" + srv.Addr
	for _, args := range [][]string{
		{"plan", "-m", path, "--url", url},
		{"deploy", "-m", path, "--url", url},
		{"status", "-m", path, "--url", url},
		{"inspect", "--url", url},
	} {
		r := loaderExpect(t, 3, args...)
		for _, want := range []string{"no Lua engine", srv.Addr, "valkey 9.1.2", "restart those nodes"} {
			if !strings.Contains(r.errOut, want) {
				t.Errorf("scriptctl %s: stderr lacks %q:\n%s", args[0], want, r.errOut)
			}
		}
	}
	// Nothing was loaded.
	if libs := libraries(t, srv); len(libs) != 0 {
		t.Errorf("libraries after the refused deploy: %v", libs)
	}
	n := srv.MustDo("DBSIZE")
	if v, err := n.AsInt64(); err != nil || v != 0 {
		t.Errorf("DBSIZE after the refused deploy: %d %v (the deploy lock or ledger was written)", v, err)
	}
}
