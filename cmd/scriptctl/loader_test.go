package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/slot"
)

// loaderResult is one in-process run of scriptctl.
type loaderResult struct {
	code        int
	out, errOut string
}

// loaderRun runs scriptctl in-process with piped (non-TTY) streams. A
// table on stdout is returned as tab-separated rows without its header
// (tableRows), so tests compare cells.
func loaderRun(t *testing.T, args ...string) loaderResult {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code := run(context.Background(), ios, args)
	return loaderResult{code, tableRows(out.String()), errOut.String()}
}

// loaderExpect runs scriptctl and fails unless it exits with code.
func loaderExpect(t *testing.T, code int, args ...string) loaderResult {
	t.Helper()
	r := loaderRun(t, args...)
	if r.code != code {
		t.Fatalf("scriptctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, code, r.out, r.errOut)
	}
	return r
}

// loaderProject copies version 1 of the repository's manifest and scripts
// (lua/v1: three scripts, kept as released) into a temp dir, with the
// version set, and returns the manifest path.
// noConnEnv clears the environment that gives scriptctl servers and
// passwords, so a test's own --url and flags decide.
func noConnEnv(t *testing.T) {
	t.Helper()
	t.Setenv("SCRIPTCTL_URL", "")
	t.Setenv("SCRIPTCTL_PASSWORD", "")
	t.Setenv("REDISCLI_AUTH", "")
}

func loaderProject(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile("../../lua/v1/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data = regexp.MustCompile(`(?m)^    file: `).ReplaceAll(data, []byte("    file: lua/"))
	data = regexp.MustCompile(`(?m)^version: \d+$`).ReplaceAll(data, []byte("version: "+version))
	if err := os.WriteFile(filepath.Join(dir, "manifest.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "lua"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"acquire.lua", "publish.lua", "release.lua"} {
		b, err := os.ReadFile(filepath.Join("../../lua/v1", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "lua", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "manifest.yaml")
	recordSum(t, path)
	return path
}

// recordSum records the manifest's current version in its scripts.sum, as a
// release does, so plan and deploy pass their pre-flight checks.
func recordSum(t *testing.T, path string) {
	t.Helper()
	if r := loaderRun(t, "sum", "-m", path); r.code != 0 {
		t.Fatalf("scriptctl sum: exit %d\n%s", r.code, r.errOut)
	}
}

// setVersion rewrites the version of the manifest at path.
func setVersion(t *testing.T, path, version string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = regexp.MustCompile(`(?m)^version: \d+$`).ReplaceAll(data, []byte("version: "+version))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	recordSum(t, path)
}

func loadFor(t *testing.T, path string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scriptExists asks n, with a raw command, whether it caches sha.
func scriptExists(t *testing.T, n *redistest.Server, sha string) bool {
	t.Helper()
	msg := n.MustDo("SCRIPT", "EXISTS", sha)
	v, err := msg.AsIntSlice()
	if err != nil || len(v) != 1 {
		t.Fatalf("%s SCRIPT EXISTS: %v %v", n.Addr, v, err)
	}
	return v[0] == 1
}

// libraries lists, with a raw command, the library names on n.
func libraries(t *testing.T, n *redistest.Server) []string {
	t.Helper()
	msg := n.MustDo("FUNCTION", "LIST")
	libs, _ := msg.ToArray()
	var out []string
	for _, l := range libs {
		f, err := l.AsMap()
		if err != nil {
			t.Fatal(err)
		}
		name := f["library_name"]
		s, _ := name.ToString()
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func TestLoaderPrimaryAndReplica(t *testing.T) {
	p, r := redistest.Replicated(t)
	t.Setenv("SCRIPTCTL_URL", "")
	path := loaderProject(t, "1")
	m := loadFor(t, path)
	urls := []string{"-m", path, "--url", p.URL(), "--url", r.URL()}

	// Changes pending and nothing wrong: exit 4, which no failure uses.
	res := loaderExpect(t, 4, append([]string{"plan", "--exit-code"}, urls...)...)
	if got := strings.Count(res.out, "\tload\t"); got != 8 {
		t.Fatalf("plan: %d load rows, want 8 (3 scripts x 2 nodes + library x 2)\n%s", got, res.out)
	}

	res = loaderExpect(t, 0, append([]string{"deploy"}, urls...)...)
	srv := serverOf(t, p)
	want := p.Addr + "\tprimary\t" + srv + "\t3 loaded\tcatalog_refresh_v1 loaded\tok\t-\n" +
		r.Addr + "\treplica\t" + srv + "\t3 loaded\tcatalog_refresh_v1 replicated\tok\t-\n"
	if res.out != want {
		t.Fatalf("deploy stdout:\n%s\nwant:\n%s", res.out, want)
	}
	for _, n := range []*redistest.Server{p, r} {
		for _, s := range m.Scripts {
			if !scriptExists(t, n, s.SHA) {
				t.Errorf("%s: %s not cached after deploy", n.Addr, s.Name)
			}
		}
		if got := libraries(t, n); !slices.Equal(got, []string{"catalog_refresh_v1"}) {
			t.Errorf("%s: libraries %v", n.Addr, got)
		}
	}
	loaderExpect(t, 0, append([]string{"plan", "--exit-code"}, urls...)...)
	loaderExpect(t, 0, append([]string{"status"}, urls...)...)

	// SCRIPT FLUSH on the replica is drift, named; deploy repairs it.
	r.MustDo("SCRIPT", "FLUSH")
	res = loaderExpect(t, 1, append([]string{"status"}, urls...)...)
	for _, name := range []string{"acquire", "publish", "release"} {
		if !strings.Contains(res.errOut, "drift: "+r.Addr+": script "+name+" missing\n") {
			t.Errorf("status stderr does not name %s %s:\n%s", r.Addr, name, res.errOut)
		}
	}
	if strings.Contains(withoutCVEWarnings(res.errOut), p.Addr) {
		t.Errorf("status names the primary, which has no drift:\n%s", res.errOut)
	}
	res = loaderExpect(t, 0, append([]string{"deploy"}, urls...)...)
	if !strings.Contains(res.out, r.Addr+"\treplica\t"+srv+"\t3 loaded\tcatalog_refresh_v1 already_loaded\tok") {
		t.Fatalf("repair deploy:\n%s", res.out)
	}
	for _, s := range m.Scripts {
		if !scriptExists(t, r, s.SHA) {
			t.Errorf("%s not repaired on the replica", s.Name)
		}
	}
	loaderExpect(t, 0, append([]string{"status"}, urls...)...)

	// JSON: the documented fields.
	res = loaderExpect(t, 0, append([]string{"deploy", "--format", "json"}, urls...)...)
	var dj struct {
		FormatVersion string `json:"format_version"`
		Command       string `json:"command"`
		Lock          string `json:"lock"`
		Loaded        int    `json:"loaded"`
		Nodes         []struct {
			Addr    string `json:"addr"`
			Primary string `json:"primary"`
			Status  string `json:"status"`
			Items   []struct {
				Action  string `json:"action"`
				Outcome string `json:"outcome"`
			} `json:"items"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.out), &dj); err != nil {
		t.Fatalf("deploy json: %v\n%s", err, res.out)
	}
	if dj.FormatVersion != "2" || dj.Command != "deploy" || dj.Loaded != 0 || dj.Lock != "scriptctl:lock:{catalog_refresh}@"+p.Addr ||
		len(dj.Nodes) != 2 || dj.Nodes[1].Primary != p.Addr || dj.Nodes[1].Status != "ok" || len(dj.Nodes[1].Items) != 4 ||
		dj.Nodes[1].Items[3].Action != "already_loaded" || dj.Nodes[1].Items[3].Outcome != "already_loaded" {
		t.Fatalf("deploy json: %+v", dj)
	}
	res = loaderExpect(t, 0, append([]string{"status", "--format", "json"}, urls...)...)
	var st struct {
		FormatVersion string   `json:"format_version"`
		Command       string   `json:"command"`
		Drift         []string `json:"drift"`
		Nodes         []struct {
			Addr  string `json:"addr"`
			Role  string `json:"role"`
			Items []struct {
				Kind  string `json:"kind"`
				Name  string `json:"name"`
				State string `json:"state"`
				Drift bool   `json:"drift"`
			} `json:"items"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.out), &st); err != nil {
		t.Fatalf("status json: %v\n%s", err, res.out)
	}
	if st.FormatVersion != "2" || st.Command != "status" || len(st.Drift) != 0 || len(st.Nodes) != 2 ||
		st.Nodes[1].Role != "replica" || len(st.Nodes[1].Items) != 4 || st.Nodes[1].Items[3].State != "loaded" {
		t.Fatalf("status json: %+v", st)
	}
}

func TestLoaderWrongPassword(t *testing.T) {
	const right, wrong = "correct-horse-battery", "wrong-staple-password"
	s := redistest.Standalone(t, redistest.WithPassword(right))
	t.Setenv("SCRIPTCTL_URL", "")
	t.Setenv("REDISCLI_AUTH", "")
	path := loaderProject(t, "1")
	for _, cmd := range [][]string{
		{"plan"}, {"deploy"}, {"status"}, {"prune", "--keep", "1"},
		{"deploy", "--format", "json"}, {"status", "--format", "json"},
	} {
		t.Setenv("SCRIPTCTL_PASSWORD", wrong)
		res := loaderExpect(t, 3, append(cmd, "-m", path, "--url", s.URL())...)
		all := res.out + res.errOut
		if strings.Contains(all, wrong) || strings.Contains(all, right) {
			t.Fatalf("%v: a password shows in the output:\n%s", cmd, all)
		}
		if !strings.Contains(res.errOut, s.Addr+": connect: WRONGPASS") {
			t.Fatalf("%v: stderr does not name the node and the reason:\n%s", cmd, res.errOut)
		}
	}
	// The right password from a file works, and does not show either.
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(right+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SCRIPTCTL_PASSWORD", "")
	res := loaderExpect(t, 0, "deploy", "-m", path, "--url", s.URL(), "--password-file", pw)
	if strings.Contains(res.out+res.errOut, right) {
		t.Fatal("the password shows in the output")
	}
	// REDISCLI_AUTH is honoured too.
	t.Setenv("REDISCLI_AUTH", right)
	loaderExpect(t, 0, "status", "-m", path, "--url", s.URL())
}

func TestLoaderConflictLockAndPrune(t *testing.T) {
	s := redistest.Standalone(t)
	t.Setenv("SCRIPTCTL_URL", s.URL())
	t.Setenv("SCRIPTCTL_PASSWORD", "")
	t.Setenv("REDISCLI_AUTH", "")
	path := loaderProject(t, "1")
	loaderExpect(t, 0, "deploy", "-m", path)

	// Same version, other code: refused, nothing changed.
	release := filepath.Join(filepath.Dir(path), "lua", "release.lua")
	orig, _ := os.ReadFile(release)
	changed := append(append([]byte{}, orig...), "-- tweak\n"...)
	if err := os.WriteFile(release, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	// The pre-flight checks refuse code changed under a released version;
	// --skip-checks reaches the server's own conflict check.
	loaderExpect(t, 1, "plan", "-m", path)
	// A refused plan is never "changes pending" (4): CI must not deploy.
	res := loaderExpect(t, 1, "plan", "-m", path, "--exit-code")
	if !strings.Contains(res.errOut, "Error: plan refused: the pre-flight checks failed (sum") {
		t.Fatalf("plan --exit-code does not say it refused:\n%s", res.errOut)
	}
	// A conflict is a deploy that would refuse: 1, not 4.
	res = loaderExpect(t, 1, "plan", "-m", path, "--exit-code", "--skip-checks")
	if !strings.Contains(res.out, "\tlibrary\tcatalog_refresh_v1\tconflict\t") {
		t.Fatalf("plan does not show the conflict:\n%s", res.out)
	}
	res = loaderExpect(t, 3, "deploy", "-m", path, "--skip-checks")
	if !strings.Contains(res.errOut, "Error: library catalog_refresh_v1 is loaded with different code on "+s.Addr+": nothing was changed\n") ||
		!strings.Contains(res.errOut, "Try: bump version in the manifest") {
		t.Fatalf("conflict stderr:\n%s", res.errOut)
	}
	if scriptExists(t, s, manifest.SHA1Hex(changed)) {
		t.Fatal("a refused deploy loaded the changed script")
	}
	res = loaderExpect(t, 0, "deploy", "-m", path, "--replace", "--skip-checks")
	if !strings.Contains(res.out, "catalog_refresh_v1 replaced\tok") {
		t.Fatalf("deploy --replace:\n%s", res.out)
	}
	if err := os.WriteFile(release, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	loaderExpect(t, 0, "deploy", "-m", path, "--replace")

	// A held lock: deploy waits, then names the holder.
	s.MustDo("SET", "scriptctl:lock:{catalog_refresh}", "0123456789abcdef0123456789abcdef host=ci-runner-7 pid=4242 since=2026-01-02T03:04:05Z", "PX", "60000")
	setVersion(t, path, "2")
	res = loaderExpect(t, 3, "deploy", "-m", path, "--lock-timeout", "300ms")
	if !strings.Contains(res.errOut, "Error: deploy lock scriptctl:lock:{catalog_refresh} on "+s.Addr+" is held by host=ci-runner-7 pid=4242 since=2026-01-02T03:04:05Z (lease expires in ") ||
		strings.Contains(res.errOut, "0123456789abcdef") {
		t.Fatalf("lock stderr:\n%s", res.errOut)
	}
	if got := libraries(t, s); !slices.Equal(got, []string{"catalog_refresh_v1"}) {
		t.Fatalf("a deploy that did not get the lock loaded: %v", got)
	}
	s.MustDo("DEL", "scriptctl:lock:{catalog_refresh}")

	// Versions 2 and 3, an unrelated library; prune --keep 2 removes v1 only.
	loaderExpect(t, 0, "deploy", "-m", path)
	setVersion(t, path, "3")
	loaderExpect(t, 0, "deploy", "-m", path)
	s.MustDo("FUNCTION", "LOAD", "#!lua name=catalog_refresh_v1_extra\nredis.register_function('x_fn', function() return 1 end)\n")
	res = loaderExpect(t, 0, "prune", "-m", path, "--keep", "2", "--dry-run")
	if res.out != s.Addr+"\tcatalog_refresh_v3\t3\tkept\t-\n"+s.Addr+"\tcatalog_refresh_v2\t2\tkept\t-\n"+s.Addr+"\tcatalog_refresh_v1\t1\twould_delete\t-\n" {
		t.Fatalf("prune --dry-run:\n%s", res.out)
	}
	if got := libraries(t, s); len(got) != 4 {
		t.Fatalf("dry run deleted: %v", got)
	}
	res = loaderExpect(t, 0, "prune", "-m", path, "--keep", "2", "--format", "json")
	var pj struct {
		Keep   []int `json:"keep"`
		Delete []int `json:"delete"`
	}
	if err := json.Unmarshal([]byte(res.out), &pj); err != nil || !slices.Equal(pj.Keep, []int{3, 2}) || !slices.Equal(pj.Delete, []int{1}) {
		t.Fatalf("prune json %+v %v:\n%s", pj, err, res.out)
	}
	if got := libraries(t, s); !slices.Equal(got, []string{"catalog_refresh_v1_extra", "catalog_refresh_v2", "catalog_refresh_v3"}) {
		t.Fatalf("after prune --keep 2: %v", got)
	}
	// The script cache is never flushed.
	for _, sc := range loadFor(t, path).Scripts {
		if !scriptExists(t, s, sc.SHA) {
			t.Errorf("prune dropped %s from the script cache", sc.Name)
		}
	}
	// status: v2 is older and recorded nowhere (no scripts.sum): unknown.
	if err := os.Remove(filepath.Join(filepath.Dir(path), "scripts.sum")); err != nil {
		t.Fatal(err)
	}
	res = loaderExpect(t, 0, "status", "-m", path)
	if !strings.Contains(res.out, "\tlibrary\tcatalog_refresh_v2\t2\tunknown\t") {
		t.Fatalf("status without scripts.sum:\n%s", res.out)
	}
	sum := "2 acquire " + manifest.SHA1Hex(mustRead(t, "../../lua/acquire.lua")) + "\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "scripts.sum"), []byte(sum), 0o644); err != nil {
		t.Fatal(err)
	}
	res = loaderExpect(t, 0, "status", "-m", path)
	if !strings.Contains(res.out, "\tlibrary\tcatalog_refresh_v2\t2\tolder\trecorded in scripts.sum") {
		t.Fatalf("status with scripts.sum:\n%s", res.out)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLoaderLeastPrivilege deploys, checks status and prunes as an ACL user
// that may run only the commands docs/deploy.md's "Deploying" section lists.
func TestLoaderLeastPrivilege(t *testing.T) {
	acl := []string{"--user", "deployer", "on", ">deploy-pw", "~scriptctl:lock:*", "-@all",
		"+info", "+role", "+cluster|nodes", "+script|load", "+script|exists",
		"+function|load", "+function|list", "+function|delete",
		"+set", "+get", "+pttl", "+eval", "+pexpire", "+del"}
	s := redistest.Standalone(t, redistest.WithArgs(acl...))
	t.Setenv("SCRIPTCTL_URL", "redis://deployer@"+s.Addr)
	t.Setenv("SCRIPTCTL_PASSWORD", "deploy-pw")
	t.Setenv("REDISCLI_AUTH", "")
	path := loaderProject(t, "1")
	loaderExpect(t, 0, "deploy", "-m", path)
	loaderExpect(t, 0, "status", "-m", path)
	loaderExpect(t, 0, "plan", "-m", path, "--exit-code")
	setVersion(t, path, "2")
	loaderExpect(t, 0, "deploy", "-m", path)
	loaderExpect(t, 0, "prune", "-m", path, "--keep", "1")
	if got := libraries(t, s); !slices.Equal(got, []string{"catalog_refresh_v2"}) {
		t.Fatalf("libraries after prune: %v", got)
	}
	// status and plan need only the read commands.
	s.MustDo("ACL", "SETUSER", "viewer", "on", ">deploy-pw", "-@all", "+info", "+role", "+cluster|nodes", "+script|exists", "+function|list")
	t.Setenv("SCRIPTCTL_URL", "redis://viewer@"+s.Addr)
	loaderExpect(t, 0, "status", "-m", path)
	loaderExpect(t, 0, "plan", "-m", path, "--exit-code")

	// Without +script|load the deploy is refused up front, naming it, exit 3.
	t.Setenv("SCRIPTCTL_URL", "redis://reader@"+s.Addr)
	s.MustDo("ACL", "SETUSER", "reader", "on", ">deploy-pw", "~scriptctl:lock:*", "-@all", "+info", "+role", "+script|exists",
		"+function|list", "+set", "+get", "+pttl", "+eval", "+pexpire", "+del")
	s.MustDo("SCRIPT", "FLUSH")
	res := loaderExpect(t, 3, "deploy", "-m", path)
	if !strings.Contains(res.errOut, s.Addr+": missing script|load") {
		t.Fatalf("stderr:\n%s", res.errOut)
	}
	loaderExpect(t, 1, "status", "-m", path)
}

// TestLoaderTableOnTerminal: on a terminal the tables have a header and stay
// aligned with colors on (every painted cell carries the same escapes).
func TestLoaderTableOnTerminal(t *testing.T) {
	s := redistest.Standalone(t)
	noConnEnv(t)
	path := loaderProject(t, "1")
	ios, _, out, _ := iostreams.Test()
	ios.StdoutTTY, ios.Color = true, true
	// Mixed actions in one column: scripts loaded, the library not.
	loaderExpect(t, 0, "deploy", "-m", path, "--url", s.URL(), "--mode", "scripts")
	if code := run(context.Background(), ios, []string{"plan", "-m", path, "--url", s.URL(), "--url", "redis://127.0.0.1:1"}); code != 3 {
		t.Fatalf("plan exit %d", code)
	}
	if !strings.Contains(out.String(), "\x1b[33mload\x1b[0m") {
		t.Fatalf("no color on a terminal:\n%q", out.String())
	}
	lines := strings.Split(strings.TrimSuffix(regexp.MustCompile("\x1b\\[[0-9]+m").ReplaceAllString(out.String(), ""), "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "NODE") {
		t.Fatalf("want a header and 5 rows:\n%s", strings.Join(lines, "\n"))
	}
	col := strings.Index(lines[0], "DETAIL")
	for _, l := range lines[1:] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Fatalf("DETAIL column not aligned at %d:\n%s", col, strings.Join(lines, "\n"))
		}
	}
}

// TestLoaderCluster drives deploy and status on a 6-node cluster through the
// CLI: one seed finds every node; a stopped primary makes deploy exit 3
// naming it while the rest is loaded; after a restart a rerun converges.
func TestLoaderCluster(t *testing.T) {
	testtier.Full(t, "a 6-node cluster (loader's own cluster tests run in make test)")
	c := redistest.NewCluster(t)
	noConnEnv(t)
	path := loaderProject(t, "1")
	m := loadFor(t, path)
	seed := c.Primaries[0]
	res := loaderExpect(t, 0, "deploy", "-m", path, "--url", seed.URL())
	if n := strings.Count(res.out, "\tok\t"); n != 6 {
		t.Fatalf("deploy: %d nodes ok, want 6:\n%s", n, res.out)
	}
	loaderExpect(t, 0, "status", "-m", path, "--url", seed.URL())

	// Stop a primary other than the one holding the deploy lock's slot
	// (Primaries[i] serves slots i*16384/3 .. (i+1)*16384/3-1).
	lockPrimary := slot.Of("scriptctl:lock:{catalog_refresh}") * 3 / 16384
	down := c.Primaries[(lockPrimary+1)%3]
	up := c.Primaries[lockPrimary]
	down.Stop()
	setVersion(t, path, "2")
	res = loaderExpect(t, 3, "deploy", "-m", path, "--url", seed.URL(), "--replica-wait", "2s")
	if !strings.Contains(res.errOut, down.Addr+": connect: ") {
		t.Fatalf("deploy stderr does not name the stopped primary %s:\n%s", down.Addr, res.errOut)
	}
	if !strings.Contains(res.out, down.Addr+"\t") || !strings.Contains(res.out, "\tunreachable\t") {
		t.Fatalf("deploy table does not show the unreachable node:\n%s", res.out)
	}
	m2 := loadFor(t, path)
	for _, p := range []*redistest.Server{up, c.Primaries[(lockPrimary+2)%3]} {
		if got := libraries(t, p); !slices.Contains(got, m2.LibraryName()) {
			t.Errorf("%s: %v, want %s loaded despite the stopped primary", p.Addr, got, m2.LibraryName())
		}
	}
	down.Restart()
	c.WaitOK()
	loaderExpect(t, 0, "deploy", "-m", path, "--url", seed.URL())
	res = loaderExpect(t, 0, "status", "-m", path, "--url", seed.URL(), "--format", "json")
	for _, n := range c.Nodes() {
		for _, s := range m.Scripts {
			if !scriptExists(t, n, s.SHA) {
				t.Errorf("%s: %s not cached after the rerun", n.Addr, s.Name)
			}
		}
		if !strings.Contains(res.out, `"addr": "`+n.Addr+`"`) {
			t.Errorf("status does not list %s", n.Addr)
		}
	}
}

// serverOf is the SERVER cell the tables show for s: "redis 7.0.15".
func serverOf(t testing.TB, s *redistest.Server) string {
	t.Helper()
	family, version := s.Family(t)
	return family + " " + version
}

// withoutCVEWarnings drops the Lua CVE findings (warning lua-cve, and
// their detail lines) every online command prints for a server version
// upstream lists as affected (7.0.15 is).
func withoutCVEWarnings(stderr string) string {
	var keep []string
	inCVE := false
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if strings.HasPrefix(line, "    ") && inCVE {
			continue
		}
		inCVE = strings.Contains(line, ": warning lua-cve: ")
		if !inCVE {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}
