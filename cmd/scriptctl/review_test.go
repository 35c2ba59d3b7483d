package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/loader"
)

// TestVerifyAgainstPasswordFile: verify --against takes the password the
// way the other online commands do (--password-file, SCRIPTCTL_PASSWORD),
// not only inside the URL, and never prints it.
func TestVerifyAgainstPasswordFile(t *testing.T) {
	const secret = "pw-from-a-file"
	srv := redistest.Standalone(t, redistest.WithPassword(secret))
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	scenario := filepath.Join("..", "..", "lua_test", "release.yaml")
	manifest := filepath.Join("..", "..", "manifest.yaml")
	t.Setenv("SCRIPTCTL_PASSWORD", "")
	t.Setenv("REDISCLI_AUTH", "")

	for _, tc := range []struct {
		name string
		env  string
		args []string
		want int
	}{
		{"no password", "", nil, 3},
		{"password file", "", []string{"--password-file", pwFile}, 0},
		{"environment", secret, nil, 0},
		{"wrong password in the environment", "wrong", nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SCRIPTCTL_PASSWORD", tc.env)
			ios, _, out, errOut := iostreams.Test()
			args := append([]string{"verify", "-m", manifest, "--against", "redis://" + srv.Addr, "--format", "json"}, tc.args...)
			code := run(context.Background(), ios, append(args, scenario))
			if code != tc.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errOut)
			}
			if tc.want == 0 && !strings.Contains(out.String(), `"pass": 2`) {
				t.Errorf("stdout lacks \"pass\": 2:\n%s", out)
			}
			if strings.Contains(out.String()+errOut.String(), secret) {
				t.Error("the password was printed")
			}
		})
	}
	if n, err := srv.Do(context.Background(), "DBSIZE").AsInt64(); err != nil || n != 0 {
		t.Errorf("DBSIZE after verify = %d, %v; want 0", n, err)
	}
}

// TestVerifyTableAlignedInColor: on a color terminal the RESULT column is
// painted; the DETAIL column must still start at the same visible column in
// the header and in every row.
func TestVerifyTableAlignedInColor(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	ios.StdoutTTY, ios.Color = true, true
	args := []string{"verify", "--target", "redis-7.0", "-m", filepath.Join("..", "..", "manifest.yaml"), filepath.Join("..", "..", "lua_test", "release.yaml")}
	if code := run(context.Background(), ios, args); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out.String(), "\x1b[32mpass\x1b[0m") {
		t.Fatalf("no painted pass cell:\n%q", out)
	}
	ansi := regexp.MustCompile("\x1b\\[[0-9;]*m")
	var cols []int
	for _, line := range strings.Split(out.String(), "\n") {
		plain := ansi.ReplaceAllString(line, "")
		if i := strings.Index(plain, "DETAIL"); i >= 0 {
			cols = append(cols, i)
		} else if i := strings.Index(plain, "5 steps"); i >= 0 {
			cols = append(cols, i)
		}
	}
	if len(cols) != 3 || cols[0] != cols[1] || cols[1] != cols[2] {
		t.Errorf("DETAIL column starts at %v, want 3 equal columns:\n%s", cols, out)
	}
}

// TestDeployTableSummaryWithFailedNode: a deploy where every reachable node
// already had everything but another node failed must not say "nothing to
// do": the summary names the failed nodes, in the words of the final error
// ("1 node failed").
func TestDeployTableSummaryWithFailedNode(t *testing.T) {
	cfg, err := connect.Resolve(connect.Settings{URLs: []string{"redis://127.0.0.1:1"}, Timeout: time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	o := &online{cfg: cfg}
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	ok := &loader.NodeResult{
		Node:  &loader.Node{Addr: "127.0.0.1:7000", Role: loader.RolePrimary},
		Items: []loader.ItemResult{{Item: loader.Item{Kind: loader.KindScript, Name: "acquire"}, Outcome: loader.OutcomeAlreadyLoaded}},
	}
	down := &loader.NodeResult{
		Node: &loader.Node{Addr: "127.0.0.1:1", Role: loader.RoleUnknown, Err: refused},
		Err:  &loader.NodeError{Node: "127.0.0.1:1", Op: "connect", Err: refused},
	}
	for _, tc := range []struct {
		name  string
		nodes []*loader.NodeResult
		want  string
	}{
		{"all converged", []*loader.NodeResult{ok}, "Deploy: nothing to do, everything already loaded on 1 node(s).\n"},
		{"one node down", []*loader.NodeResult{ok, down}, "Deploy: 0 item(s) loaded, 0 item(s) failed, on 2 node(s); 1 node(s) failed.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			if err := o.deployTable(ios, &loader.DeployReport{Nodes: tc.nodes}, nil); err != nil {
				t.Fatal(err)
			}
			if errOut.String() != tc.want {
				t.Errorf("stderr = %q, want %q", errOut, tc.want)
			}
			if tc.name == "one node down" {
				final := (&loader.NodesError{Errs: []*loader.NodeError{down.Err}}).Error()
				if !strings.HasPrefix(final, "1 node failed") || !strings.Contains(errOut.String(), "1 node(s) failed") {
					t.Errorf("summary %q and final error %q disagree", errOut, final)
				}
			}
			if tc.name == "one node down" && !strings.Contains(tableRows(out.String()), "127.0.0.1:1\tunknown\t-\t-\t-\tunreachable\t") {
				t.Errorf("stdout lacks the failed node row:\n%s", out)
			}
		})
	}
}
