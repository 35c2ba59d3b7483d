package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/scriptctl/scriptctl/internal/iostreams"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"scriptctl": func() {
			os.Exit(run(context.Background(), iostreams.System(), os.Args[1:]))
		},
		// scriptctl-process is the command as the binary runs it (Main):
		// the process ends with the command.
		"scriptctl-process": func() { os.Exit(Main()) },
		// exits N PROGRAM ARGS... runs PROGRAM with the script's stdio and
		// succeeds only when it exits with code N, so scripts can assert
		// the exact exit code: exec exits 2 scriptctl lint bad.lua
		"exits": exitsMain,
	})
}

// TestScript runs the txtar scripts in testdata/script: each carries its
// manifest and Lua files inline and asserts stdout, stderr and the exit code.
// The repository's own lua/ and manifest.yaml are available as $REPO.
func TestScript(t *testing.T) {
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo+"/../..")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds:          map[string]func(ts *testscript.TestScript, neg bool, args []string){"replace": cmdReplace, "mkfifo": cmdMkfifo},
	})
}

// cmdReplace is "replace OLD NEW FILE": every OLD in FILE becomes NEW; OLD
// must occur.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace OLD NEW FILE")
	}
	data := ts.ReadFile(args[2])
	if !strings.Contains(data, args[0]) {
		ts.Fatalf("%s has no %q", args[2], args[0])
	}
	path := ts.MkAbs(args[2])
	ts.Check(os.WriteFile(path, []byte(strings.ReplaceAll(data, args[0], args[1])), 0o644))
}

// cmdMkfifo is "mkfifo PATH": a named pipe with no writer, which a blocking
// open would wait on forever. Scripts skip where there are no FIFOs.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(mkfifo(ts.MkAbs(args[0])))
}

func exitsMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: exits N PROGRAM [ARG...]")
		os.Exit(2)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "exits: N must be a number")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	got := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintf(os.Stderr, "exits: %v\n", err)
			os.Exit(2)
		}
		got = ee.ExitCode()
	}
	if got != want {
		fmt.Fprintf(os.Stderr, "exits: %s exited %d, want %d\n", os.Args[2], got, want)
		os.Exit(1)
	}
	os.Exit(0)
}
