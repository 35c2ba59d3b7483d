package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/manifest"
)

// setTargets rewrites the manifest at path to list targets.
func setTargets(t *testing.T, path, targets string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?m)^targets: .*\n`).ReplaceAllString(string(data), "")
	data = []byte(strings.Replace(text, "\nscripts:\n", "\ntargets: "+targets+"\nscripts:\n", 1))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUntargetedServer: a mixed deployment (Redis 7.0 and Valkey 8.1 given
// as two servers) against a manifest whose targets list only redis-7.0. plan
// and status name the Valkey node and exit 1; deploy refuses before
// changing anything unless --allow-untargeted; listing valkey-8.1 clears it.
func TestUntargetedServer(t *testing.T) {
	valkey, _ := redistest.LookupKind("valkey-8.1")
	redis, _ := redistest.LookupKind("redis-7.0")
	r := redistest.Standalone(t, redistest.WithKind(redis))
	v := redistest.Standalone(t, redistest.WithKind(valkey))
	t.Setenv("SCRIPTCTL_URL", "")
	path := loaderProject(t, "1")
	setTargets(t, path, "[redis-7.0]")
	urls := []string{"-m", path, "--url", r.URL(), "--url", v.URL()}

	_, vversion := v.Family(t)
	finding := func(severity string) string {
		return displayPath(path) + ":" + strconv.Itoa(loadFor(t, path).TargetsLine) + ": " + severity + " untargeted-server: " + v.Addr + " runs valkey " + vversion +
			", which the manifest's targets (redis-7.0) do not cover\n    add valkey-8.1 to the manifest's targets once its scenarios pass\n"
	}
	res := loaderExpect(t, 1, append([]string{"plan", "--exit-code"}, urls...)...)
	if want := finding("error"); !strings.Contains(res.errOut, want) {
		t.Fatalf("plan stderr lacks %q:\n%s", want, res.errOut)
	}
	if strings.Contains(res.errOut, "untargeted-server: "+r.Addr) {
		t.Fatalf("plan names the targeted node:\n%s", res.errOut)
	}
	// Without --exit-code plan exits 0: the node is only a warning.
	res = loaderExpect(t, 0, append([]string{"plan"}, urls...)...)
	if want := finding("warning"); !strings.Contains(res.errOut, want) {
		t.Fatalf("plan stderr lacks %q:\n%s", want, res.errOut)
	}
	res = loaderExpect(t, 1, append([]string{"deploy"}, urls...)...)
	if !strings.Contains(res.errOut, finding("error")) ||
		!strings.Contains(res.errOut, "deploy refused: 1 node(s) run a server the manifest's targets do not cover; nothing was changed") ||
		!strings.Contains(res.errOut, "--allow-untargeted") {
		t.Fatalf("deploy stderr:\n%s", res.errOut)
	}
	m := loadFor(t, path)
	for _, n := range []*redistest.Server{r, v} {
		for _, s := range m.Scripts {
			if scriptExists(t, n, s.SHA) {
				t.Fatalf("%s: refused deploy loaded %s", n.Addr, s.Name)
			}
		}
		if libs := libraries(t, n); len(libs) != 0 {
			t.Fatalf("%s: refused deploy loaded %v", n.Addr, libs)
		}
	}

	res = loaderExpect(t, 1, append([]string{"status", "--format", "json"}, urls...)...)
	var doc struct {
		Nodes []struct {
			Addr     string   `json:"addr"`
			Server   string   `json:"server"`
			Version  string   `json:"version"`
			Targeted *bool    `json:"targeted"`
			CVEs     []string `json:"cves"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.out), &doc); err != nil || len(doc.Nodes) != 2 {
		t.Fatalf("status json: %v\n%s", err, res.out)
	}
	for _, n := range doc.Nodes {
		wantTargeted := n.Addr == r.Addr
		if n.Targeted == nil || *n.Targeted != wantTargeted {
			t.Errorf("%s (%s %s): targeted %v, want %v", n.Addr, n.Server, n.Version, n.Targeted, wantTargeted)
		}
		if n.Addr == v.Addr && (n.Server != "valkey" || n.Version != vversion) {
			t.Errorf("valkey node shows %s %s", n.Server, n.Version)
		}
	}

	res = loaderExpect(t, 0, append([]string{"deploy", "--allow-untargeted"}, urls...)...)
	if want := finding("warning"); !strings.Contains(res.errOut, want) {
		t.Fatalf("deploy --allow-untargeted stderr lacks %q:\n%s", want, res.errOut)
	}
	for _, s := range m.Scripts {
		if !scriptExists(t, v, s.SHA) {
			t.Fatalf("deploy --allow-untargeted did not load %s on valkey", s.Name)
		}
	}
	setTargets(t, path, "[redis-7.0, valkey-8.1]")
	res = loaderExpect(t, 0, append([]string{"status"}, urls...)...)
	if strings.Contains(res.errOut, "untargeted") {
		t.Fatalf("status with both targets:\n%s", res.errOut)
	}
	if !strings.Contains(res.out, "valkey "+vversion) {
		t.Fatalf("status table lacks the SERVER cell valkey %s:\n%s", vversion, res.out)
	}
}

// setManifestField adds a top-level field (YAML text ending in a newline)
// to the manifest at path, before its scripts.
func setManifestField(t *testing.T, path, field string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "\nscripts:\n", "\n"+field+"scripts:\n", 1))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// cveFindings returns the lua-cve findings of a text stderr: each finding's
// first line (after "lua-cve: ") with its detail lines.
func cveFindings(stderr string) map[string][]string {
	out := map[string][]string{}
	var cur string
	for _, line := range strings.Split(stderr, "\n") {
		if _, msg, ok := strings.Cut(line, " lua-cve: "); ok {
			id, _, _ := strings.Cut(msg, " ")
			cur = id
			out[id] = []string{msg}
			continue
		}
		if strings.HasPrefix(line, "    ") && cur != "" {
			out[cur] = append(out[cur], strings.TrimPrefix(line, "    "))
			continue
		}
		cur = ""
	}
	return out
}

// TestLuaCVEWarning: Redis 7.0.15 is upstream-affected by the 2025 Lua CVEs
// and by the 2024 ones (no 7.0 release carries their fixes). Every online
// command says so on stderr, one finding per CVE, worded as "unless your
// build carries the fix", naming the node in a detail line with the
// advisory; --fail-on-cve makes status exit 1 and deploy refuse before
// changing anything. accept_cves silences the acknowledged CVEs (one note
// line, which -q hides) and only those: -q never hides the others.
func TestLuaCVEWarning(t *testing.T) {
	redis, _ := redistest.LookupKind("redis-7.0")
	s := redistest.Standalone(t, redistest.WithKind(redis))
	_, version := s.Family(t)
	if !strings.HasPrefix(version, "7.0.") {
		t.Skipf("redis-7.0 build is %s", version)
	}
	t.Setenv("SCRIPTCTL_URL", "")
	path := loaderProject(t, "1")
	urls := []string{"-m", path, "--url", s.URL()}
	res := loaderExpect(t, 1, append([]string{"deploy", "--fail-on-cve"}, urls...)...)
	if !strings.Contains(res.errOut, "deploy refused") || !strings.Contains(res.errOut, ": error lua-cve: CVE-2025-49844 ") {
		t.Fatalf("deploy --fail-on-cve stderr:\n%s", res.errOut)
	}
	if libs := libraries(t, s); len(libs) != 0 {
		t.Fatalf("refused deploy loaded %v", libs)
	}
	loaderExpect(t, 0, append([]string{"deploy"}, urls...)...)
	res = loaderExpect(t, 0, append([]string{"status"}, urls...)...)
	want := []string{"CVE-2025-67733", "CVE-2025-49844", "CVE-2025-46817", "CVE-2025-46818", "CVE-2025-46819", "CVE-2024-46981", "CVE-2024-31449"}
	got := cveFindings(res.errOut)
	if len(got) != len(want) {
		t.Fatalf("status: %d lua-cve findings, want %d (%v):\n%s", len(got), len(want), want, res.errOut)
	}
	prefix := displayPath(path) + ":" + strconv.Itoa(loadFor(t, path).TargetsLine) + ": warning lua-cve: "
	for _, id := range want {
		f := got[id]
		if len(f) < 3 || !strings.Contains(f[0], "upstream redis "+version+" is affected unless your build carries the fix") ||
			f[1] != "redis "+version+": "+s.Addr+" (no release of its line is fixed: move to a supported line)" ||
			!strings.HasPrefix(f[2], "advisory: https://github.com/") ||
			!strings.Contains(f[len(f)-1], "accept_cves") {
			t.Errorf("status finding %s: %q", id, f)
		}
		if !strings.Contains(res.errOut, prefix+id+" (") {
			t.Errorf("status stderr lacks %q", prefix+id)
		}
	}
	// CVE-2022-24834 was fixed in 7.0.12: no finding.
	if _, ok := got["CVE-2022-24834"]; ok {
		t.Errorf("a finding for CVE-2022-24834, fixed in 7.0.12:\n%s", res.errOut)
	}
	res = loaderExpect(t, 1, append([]string{"status", "--fail-on-cve"}, urls...)...)
	if !strings.Contains(res.errOut, ": error lua-cve: CVE-2025-49844 ") {
		t.Fatalf("status --fail-on-cve stderr:\n%s", res.errOut)
	}
	res = loaderExpect(t, 0, append([]string{"plan", "--format", "json"}, urls...)...)
	if !strings.Contains(res.out, `"cves": [`) || !strings.Contains(res.out, `"CVE-2025-49844"`) || strings.Contains(res.out, `"cves_accepted"`) {
		t.Fatalf("plan json lacks cves:\n%s", res.out)
	}

	// Acknowledge the October 2025 four: they are silent, the 2024 ones
	// and CVE-2025-67733 stay, even with -q.
	setManifestField(t, path, "accept_cves:\n"+
		"  - {id: CVE-2025-49844, reason: our build carries the October 2025 Lua fixes}\n"+
		"  - {id: CVE-2025-46817, reason: same build}\n"+
		"  - {id: CVE-2025-46818, reason: same build}\n"+
		"  - {id: CVE-2025-46819, reason: same build}\n")
	for _, q := range []bool{false, true} {
		args := []string{"status"}
		if q {
			args = append(args, "-q")
		}
		res = loaderExpect(t, 0, append(args, urls...)...)
		got = cveFindings(res.errOut)
		if len(got) != 3 || got["CVE-2024-46981"] == nil || got["CVE-2024-31449"] == nil || got["CVE-2025-67733"] == nil {
			t.Fatalf("status -q=%v with the 2025 CVEs acknowledged: findings %v\n%s", q, got, res.errOut)
		}
		note := "note: CVE-2025-49844, CVE-2025-46817, CVE-2025-46818, CVE-2025-46819 acknowledged by accept_cves (no warning)"
		if strings.Contains(res.errOut, note) == q {
			t.Fatalf("status -q=%v: the acknowledgement note shows %v, want %v:\n%s", q, !q, !q, res.errOut)
		}
	}
	// --fail-on-cve still fails on the unacknowledged ones; acknowledging
	// them too makes it pass, and JSON lists them as accepted.
	loaderExpect(t, 1, append([]string{"status", "--fail-on-cve"}, urls...)...)
	setManifestField(t, path, "# and the 2024 ones\n")
	data, _ := os.ReadFile(path)
	data = []byte(strings.Replace(string(data), "  - {id: CVE-2025-46819, reason: same build}\n",
		"  - {id: CVE-2025-46819, reason: same build}\n  - {id: CVE-2024-46981, reason: same build}\n  - {id: CVE-2024-31449, reason: same build}\n"+
			"  - {id: CVE-2025-67733, reason: same build}\n", 1))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res = loaderExpect(t, 0, append([]string{"status", "--fail-on-cve", "-q"}, urls...)...)
	if strings.Contains(res.errOut, "lua-cve") || strings.Contains(res.errOut, "acknowledged") {
		t.Fatalf("status -q with every CVE acknowledged:\n%s", res.errOut)
	}
	res = loaderExpect(t, 0, append([]string{"status", "--format", "json"}, urls...)...)
	var doc struct {
		Diagnostics []struct {
			Code string `json:"code"`
		} `json:"diagnostics"`
		Nodes []struct {
			CVEs         []string `json:"cves"`
			CVEsAccepted []string `json:"cves_accepted"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.out), &doc); err != nil || len(doc.Nodes) != 1 {
		t.Fatalf("status json: %v\n%s", err, res.out)
	}
	if n := doc.Nodes[0]; len(n.CVEs) != 7 || !slices.Equal(n.CVEs, n.CVEsAccepted) {
		t.Fatalf("status json node cves %v, accepted %v; want the seven, all accepted", n.CVEs, n.CVEsAccepted)
	}
	for _, d := range doc.Diagnostics {
		if strings.HasPrefix(d.Code, "lua-cve") {
			t.Fatalf("status json: a %s diagnostic with every CVE acknowledged:\n%s", d.Code, res.out)
		}
	}
}

// TestLuaCVEPatchLevel runs Redis 8.0.6 (a release with the October 2025
// and February 2026 fixes) beside Redis 8.0.2 (one without, upstream): plan
// and status name only the 8.0.2 node for the 2025 CVEs, each with its own
// fixed release; on 8.0.6 alone there is no CVE notice. Both are live
// servers.
func TestLuaCVEPatchLevel(t *testing.T) {
	fixed, _ := redistest.LookupKind("redis-8.0.6")
	old, _ := redistest.LookupKind("redis-8.0")
	f := redistest.Standalone(t, redistest.WithKind(fixed))
	o := redistest.Standalone(t, redistest.WithKind(old))
	_, fv := f.Family(t)
	_, ov := o.Family(t)
	if fv != "8.0.6" || ov != "8.0.2" {
		t.Skipf("the builds are %s and %s, want 8.0.6 and 8.0.2", fv, ov)
	}
	t.Setenv("SCRIPTCTL_URL", "")
	path := loaderProject(t, "1")
	setTargets(t, path, "[redis-8.0]")
	for _, cmd := range []string{"plan", "status"} {
		res := loaderRun(t, cmd, "-m", path, "--url", f.URL(), "--url", o.URL())
		got := cveFindings(res.errOut)
		if len(got) != 5 {
			t.Fatalf("%s on 8.0.6 and 8.0.2: %d CVE findings, want the five of 2025:\n%s", cmd, len(got), res.errOut)
		}
		for id, lines := range got {
			fixedIn := "8.0.4"
			if id == "CVE-2025-67733" {
				fixedIn = "8.0.6"
			}
			if !strings.HasPrefix(id, "CVE-2025-") || !strings.Contains(lines[0], "upstream redis 8.0.2 is affected") ||
				lines[1] != "redis 8.0.2: "+o.Addr+" (fixed in "+fixedIn+")" || strings.Contains(strings.Join(lines, "\n"), f.Addr) {
				t.Errorf("%s finding %s: %q", cmd, id, lines)
			}
		}
		res = loaderRun(t, cmd, "-m", path, "--url", f.URL())
		if strings.Contains(res.errOut, "lua-cve") || strings.Contains(res.errOut, "CVE-") {
			t.Fatalf("%s on 8.0.6 alone reports a CVE:\n%s", cmd, res.errOut)
		}
	}
}

// TestLockHolderEscaped: whoever can write the deploy-lock key cannot put
// terminal escape sequences into the operator's terminal through the
// holder text the refused deploy prints.
func TestLockHolderEscaped(t *testing.T) {
	s := redistest.Standalone(t)
	t.Setenv("SCRIPTCTL_URL", "")
	path := loaderProject(t, "1")
	s.MustDo("SET", "scriptctl:lock:{catalog_refresh}", "tok host=evil\x1b]0;pwned\x07\x1b[2J pid=1", "PX", "60000")
	res := loaderRun(t, "deploy", "-m", path, "--url", s.URL(), "--lock-timeout", "200ms")
	if res.code == 0 {
		t.Fatalf("deploy succeeded under a held lock:\n%s", res.errOut)
	}
	if strings.ContainsRune(res.errOut, '\x1b') || strings.ContainsRune(res.errOut, '\x07') {
		t.Fatalf("stderr carries raw control characters: %q", res.errOut)
	}
	if !strings.Contains(res.errOut, `host=evil\x1b]0;pwned\x07\x1b[2J`) {
		t.Fatalf("stderr does not show the escaped holder: %q", res.errOut)
	}
	// The wait is announced, naming the holder and the lease left.
	if !strings.Contains(res.errOut, "waiting up to ") || !strings.Contains(res.errOut, "for the deploy lock scriptctl:lock:{catalog_refresh} on "+s.Addr+", held by host=evil") || !strings.Contains(res.errOut, "left)") {
		t.Fatalf("no line about the wait: %q", res.errOut)
	}
}

// TestDeployGatesOnChecks: deploy and plan run the pre-flight checks before
// anything is changed. A script edited under a released version is refused
// with exit 1 (check's finding), a syntax error with exit 2 (invalid input),
// and neither leaves anything on the server; status calls the edited
// release drift; --skip-checks deploys anyway, says so, and JSON records it.
func TestDeployGatesOnChecks(t *testing.T) {
	s := redistest.Standalone(t)
	t.Setenv("SCRIPTCTL_URL", "")
	path := loaderProject(t, "1")
	dir := filepath.Dir(path)
	urls := []string{"-m", path, "--url", s.URL()}
	release := filepath.Join(dir, "lua", "release.lua")
	orig, err := os.ReadFile(release)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(release, append(orig, []byte("-- edited after the release\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	res := loaderExpect(t, 1, append([]string{"deploy"}, urls...)...)
	if !strings.Contains(res.errOut, "deploy refused: the pre-flight checks failed (sum); nothing was changed") ||
		!strings.Contains(res.errOut, "changed since version 1 was released") {
		t.Fatalf("deploy stderr:\n%s", res.errOut)
	}
	loaderExpect(t, 1, append([]string{"plan"}, urls...)...)
	if n := dbScripts(t, s, loadFor(t, path)); n != 0 || len(libraries(t, s)) != 0 {
		t.Fatalf("a refused deploy loaded %d scripts and %v", n, libraries(t, s))
	}

	res = loaderExpect(t, 0, append([]string{"deploy", "--skip-checks", "--format", "json"}, urls...)...)
	if !strings.Contains(res.errOut, "warning: --skip-checks: deploy runs without its pre-flight checks") || !strings.Contains(res.out, `"checks": "skipped"`) {
		t.Fatalf("--skip-checks: stderr %q, stdout:\n%s", res.errOut, res.out)
	}
	res = loaderExpect(t, 1, append([]string{"status"}, urls...)...)
	if !strings.Contains(res.errOut, "drift: script release: ") || !strings.Contains(res.errOut, "is not the code scripts.sum records for version 1") {
		t.Fatalf("status stderr:\n%s", res.errOut)
	}

	// A syntax error: invalid input, nothing sent.
	s2 := redistest.Standalone(t)
	path2 := loaderProject(t, "1")
	if err := os.WriteFile(filepath.Join(filepath.Dir(path2), "lua", "publish.lua"), []byte("return (\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := loaderRun(t, "sum", "--force", "-m", path2); r.code != 0 {
		t.Fatalf("sum --force: %s", r.errOut)
	}
	res = loaderExpect(t, 2, "deploy", "-m", path2, "--url", s2.URL())
	if !strings.Contains(res.errOut, "syntax: ") || !strings.Contains(res.errOut, "SCRIPT LOAD fails: ERR Error compiling script") {
		t.Fatalf("deploy of a syntax error, stderr:\n%s", res.errOut)
	}
	if n := dbScripts(t, s2, loadFor(t, path2)); n != 0 {
		t.Fatalf("a refused deploy loaded %d scripts", n)
	}
	// Each mode checks what it sends: the scripts (SCRIPT LOAD) or the
	// library (FUNCTION LOAD), and the error is refused either way.
	res = loaderExpect(t, 2, "deploy", "-m", path2, "--url", s2.URL(), "--mode", "scripts")
	if !strings.Contains(res.errOut, "SCRIPT LOAD fails") || strings.Contains(res.errOut, "FUNCTION LOAD") {
		t.Fatalf("deploy --mode scripts of a syntax error, stderr:\n%s", res.errOut)
	}
	res = loaderExpect(t, 2, "deploy", "-m", path2, "--url", s2.URL(), "--mode", "functions")
	if !strings.Contains(res.errOut, "FUNCTION LOAD of library") || strings.Contains(res.errOut, "SCRIPT LOAD") {
		t.Fatalf("deploy --mode functions of a syntax error, stderr:\n%s", res.errOut)
	}
	if n := dbScripts(t, s2, loadFor(t, path2)); n != 0 || len(libraries(t, s2)) != 0 {
		t.Fatalf("a refused deploy loaded %d scripts and %v", n, libraries(t, s2))
	}
}

// dbScripts counts the manifest's scripts cached on s.
func dbScripts(t *testing.T, s *redistest.Server, m *manifest.Manifest) int {
	t.Helper()
	n := 0
	for _, sc := range m.Scripts {
		if scriptExists(t, s, sc.SHA) {
			n++
		}
	}
	return n
}
