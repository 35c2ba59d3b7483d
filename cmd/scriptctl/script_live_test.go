package main

import (
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// TestScriptLive runs the txtar scripts in testdata/live, each against its
// own standalone server (the default test server, or
// SCRIPTCTL_TEST_SERVER's): $URL and $PORT name it, $REDIS_CLI is the
// matching redis-cli for asserting what the server holds, $REPO the
// repository.
func TestScriptLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live servers: not with -short")
	}
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cli := redistest.CLI(t)
	redistest.Binary(t) // skips (fails under CI=true) without a server
	var mu sync.Mutex
	testscript.Run(t, testscript.Params{
		Dir: "testdata/live",
		Setup: func(env *testscript.Env) error {
			mu.Lock()
			defer mu.Unlock()
			s := redistest.Standalone(t)
			env.Setenv("REPO", repo+"/../..")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("URL", s.URL())
			env.Setenv("PORT", strconv.Itoa(s.Port))
			env.Setenv("REDIS_CLI", cli)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"replace": cmdReplace},
	})
}
