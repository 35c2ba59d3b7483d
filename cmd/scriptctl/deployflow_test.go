package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
)

// v1 SHAs of the bundled library (scripts.sum, version 1).
const (
	v1Acquire = "418f8f98dba7f69c6f575e91e1ff83650f541da4"
	v1Publish = "fc8b776b71fe6b8221cd3f3c831499cd13951c0c"
)

// ttyRun runs scriptctl in-process as if on a terminal (stdin and stderr),
// with answer typed on stdin.
func ttyRun(t *testing.T, answer string, args ...string) loaderResult {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	ios.StdinTTY, ios.StderrTTY = true, true
	in.WriteString(answer)
	code := run(context.Background(), ios, args)
	return loaderResult{code, out.String(), errOut.String()}
}

func TestDeployConfirmation(t *testing.T) {
	noConnEnv(t)
	s := redistest.Standalone(t)
	path := loaderProject(t, "1")

	// No: nothing changes, exit 1.
	r := ttyRun(t, "n\n", "deploy", "-m", path, "--url", s.URL())
	if r.code != 1 || !strings.Contains(r.errOut, "Deploy catalog_refresh_v1: 4 change(s) on 1 node(s)? Type y to deploy: ") ||
		!strings.Contains(r.errOut, "Error: deploy cancelled: nothing was changed") {
		t.Fatalf("answer n: exit %d\nstderr:\n%s", r.code, r.errOut)
	}
	if !strings.Contains(r.out, "catalog_refresh_v1\tload") && !strings.Contains(r.out, "catalog_refresh_v1") {
		t.Fatalf("the plan was not shown before the question:\n%s", r.out)
	}
	if scriptExists(t, s, v1Acquire) || len(libraries(t, s)) != 0 {
		t.Fatal("a cancelled deploy changed the server")
	}
	// End of input is a no.
	if r := ttyRun(t, "", "deploy", "-m", path, "--url", s.URL()); r.code != 1 || scriptExists(t, s, v1Acquire) {
		t.Fatalf("no answer: exit %d, or the server changed\n%s", r.code, r.errOut)
	}
	// Yes: deployed.
	r = ttyRun(t, "yes\n", "deploy", "-m", path, "--url", s.URL())
	if r.code != 0 || !scriptExists(t, s, v1Acquire) || !slices.Contains(libraries(t, s), "catalog_refresh_v1") {
		t.Fatalf("answer yes: exit %d, or not deployed\n%s", r.code, r.errOut)
	}
	// Nothing to change: no question.
	r = ttyRun(t, "", "deploy", "-m", path, "--url", s.URL())
	if r.code != 0 || strings.Contains(r.errOut, "Type y") {
		t.Fatalf("nothing to do: exit %d\n%s", r.code, r.errOut)
	}

	// --yes and a non-terminal stdin do not ask.
	setVersion(t, path, "2")
	r = ttyRun(t, "", "deploy", "-m", path, "--url", s.URL(), "--yes")
	if r.code != 0 || strings.Contains(r.errOut, "Type y") || !slices.Contains(libraries(t, s), "catalog_refresh_v2") {
		t.Fatalf("--yes: exit %d\n%s", r.code, r.errOut)
	}
	setVersion(t, path, "3")
	r = loaderRun(t, "deploy", "-m", path, "--url", s.URL())
	if r.code != 0 || strings.Contains(r.errOut, "Type y") || !slices.Contains(libraries(t, s), "catalog_refresh_v3") {
		t.Fatalf("piped: exit %d\n%s", r.code, r.errOut)
	}
}

// TestSavedPlanNoSecretAndRestart: a plan file made with a password holds
// none; a restarted server (another run_id, an empty script cache)
// refuses the plan.
func TestSavedPlanNoSecretAndRestart(t *testing.T) {
	noConnEnv(t)
	const pw = "s3cret-Pw-for-plan"
	s := redistest.Standalone(t, redistest.WithPassword(pw))
	t.Setenv("SCRIPTCTL_PASSWORD", pw)
	path := loaderProject(t, "1")
	planFile := filepath.Join(t.TempDir(), "p.plan")
	loaderExpect(t, 0, "plan", "-m", path, "--url", "redis://default@"+s.Addr, "--out", planFile)
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), pw) || !strings.Contains(string(data), `"redis://default@`+s.Addr+`"`) {
		t.Fatalf("plan file:\n%s", data)
	}
	if fi, err := os.Stat(planFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("plan file mode: %v %v", fi.Mode(), err)
	}
	s.Stop()
	s.Restart()
	r := loaderExpect(t, 1, "deploy", planFile)
	if !strings.Contains(r.errOut, "restarted or replaced since the plan") {
		t.Fatalf("stderr:\n%s", r.errOut)
	}
	if scriptExists(t, s, v1Acquire) {
		t.Fatal("a refused plan loaded a script")
	}
}

// TestSavedPlanCluster: a plan saved on the 6-node cluster applies there,
// every node named in the file with its role.
func TestSavedPlanCluster(t *testing.T) {
	testtier.Full(t, "a 6-node cluster")
	noConnEnv(t)
	c := redistest.NewCluster(t)
	path := loaderProject(t, "1")
	planFile := filepath.Join(t.TempDir(), "c.plan")
	loaderExpect(t, 0, "plan", "-m", path, "--url", c.Nodes()[0].URL(), "--out", planFile)
	r := loaderExpect(t, 0, "deploy", "-m", path, planFile, "--format", "json", "--jq", `[.nodes[] | .status] | unique | join(",")`)
	if r.out != "ok\n" {
		t.Fatalf("statuses %q\n%s", r.out, r.errOut)
	}
	for _, n := range c.Nodes() {
		if !scriptExists(t, n, v1Acquire) || !scriptExists(t, n, v1Publish) {
			t.Fatalf("%s: the plan's scripts are not loaded", n.Addr)
		}
	}
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), `"role": "replica"`); got != 3 || !strings.Contains(string(data), `"cluster": true`) {
		t.Fatalf("plan file has %d replicas:\n%s", got, data)
	}
}

// TestEnvironmentTargets: an environment's targets, not the manifest's,
// judge its servers; the finding points at the environment's targets line.
func TestEnvironmentTargets(t *testing.T) {
	noConnEnv(t)
	s := redistest.Standalone(t)
	path := loaderProject(t, "1")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The environment lists a server line the test server is not.
	other := "valkey-8.1"
	if strings.HasPrefix(s.Kind.Name, "valkey") {
		other = "redis-7.0"
	}
	data = []byte(strings.Replace(string(data), "targets: [redis-7.0, redis-8.0, valkey-8.1]", "targets: [redis-7.0, redis-8.0, valkey-8.1]\nenvironments:\n  odd:\n    url_env: ODD_URL\n    targets: ["+other+"]", 1))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ODD_URL", s.URL())
	r := loaderExpect(t, 1, "deploy", "-m", path, "--env", "odd")
	if !strings.Contains(r.errOut, "manifest.yaml:12: error untargeted-server") {
		t.Fatalf("stderr:\n%s", r.errOut)
	}
	if scriptExists(t, s, v1Acquire) {
		t.Fatal("refused deploy loaded a script")
	}
	// Without --env the manifest's targets hold.
	loaderExpect(t, 0, "deploy", "-m", path, "--url", s.URL())
}

// TestEnvironmentPassword: an environment's password_env wins over
// SCRIPTCTL_PASSWORD; one that names no source takes SCRIPTCTL_PASSWORD.
func TestEnvironmentPassword(t *testing.T) {
	noConnEnv(t)
	const pw = "env-pw-for-test"
	s := redistest.Standalone(t, redistest.WithPassword(pw))
	path := loaderProject(t, "1")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, []byte("environments:\n  named:\n    url_env: T_URL\n    password_env: T_PW\n  plain:\n    url_env: T_URL\n")...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("T_URL", s.URL())
	t.Setenv("T_PW", pw)
	t.Setenv("SCRIPTCTL_PASSWORD", "wrong")
	loaderExpect(t, 0, "plan", "-m", path, "--env", "named")
	if r := loaderExpect(t, 3, "plan", "-m", path, "--env", "plain"); strings.Contains(r.errOut, pw) {
		t.Fatalf("password in output:\n%s", r.errOut)
	}
	t.Setenv("SCRIPTCTL_PASSWORD", pw)
	loaderExpect(t, 0, "plan", "-m", path, "--env", "plain")
	t.Setenv("T_PW", "")
	r := loaderExpect(t, 2, "plan", "-m", path, "--env", "named")
	if !strings.Contains(r.errOut, "environment named: $T_PW (its password_env) is not set") {
		t.Fatalf("stderr:\n%s", r.errOut)
	}
}
