package main

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

// repoManifest is the repository's own manifest, read in place (the commands
// under test only read it).
const repoManifest = "../../manifest.yaml"

// planServer starts a throwaway standalone server and clears every
// connection setting the environment could supply, so --url is the only
// server the command sees.
func planServer(t *testing.T) *redistest.Server {
	t.Helper()
	s := redistest.Standalone(t)
	noConnEnv(t)
	return s
}

// assertUntouched fails unless s holds none of m's scripts, no library,
// no key at all, and never ran a write: no key was ever set (the deploy lock
// included, even one set and deleted again), nothing loaded.
func assertUntouched(t *testing.T, s *redistest.Server, m *manifest.Manifest) {
	t.Helper()
	for _, sc := range m.Scripts {
		if scriptExists(t, s, sc.SHA) {
			t.Errorf("script %s (%s) is cached on %s", sc.Name, sc.SHA, s.Addr)
		}
	}
	if libs := libraries(t, s); len(libs) != 0 {
		t.Errorf("FUNCTION LIST on %s: %v, want none", s.Addr, libs)
	}
	if n, err := s.Do(context.Background(), "DBSIZE").AsInt64(); err != nil || n != 0 {
		t.Errorf("DBSIZE on %s = %d, %v; want 0", s.Addr, n, err)
	}
	if n, err := s.Do(context.Background(), "EXISTS", loader.LockKey(m.Library)).AsInt64(); err != nil || n != 0 {
		t.Errorf("deploy lock %s exists on %s (%d, %v)", loader.LockKey(m.Library), s.Addr, n, err)
	}
	calls := s.CommandCalls(t)
	for _, cmd := range []string{"set", "del", "pexpire", "eval", "evalsha", "script|load", "script|flush",
		"function|load", "function|delete", "function|flush", "function|restore"} {
		if calls[cmd] != 0 {
			t.Errorf("%s ran %s %d time(s); want none (all: %v)", s.Addr, cmd, calls[cmd], calls)
		}
	}
	if dirty, ok := s.Info(t, "persistence", "rdb_changes_since_last_save"); !ok || dirty != "0" {
		t.Errorf("%s rdb_changes_since_last_save = %q (found %v); want 0: something was written", s.Addr, dirty, ok)
	}
}

// TestDeployDryRunChangesNothing: deploy --dry-run on an empty server
// exits 0, prints the plan (every item "load"), and leaves the server as it
// was: no script, no library, no key, the deploy lock never set; the JSON
// form says dry_run, names no lock and plans every node.
func TestDeployDryRunChangesNothing(t *testing.T) {
	s := planServer(t)
	m := loadFor(t, repoManifest)
	s.MustDo("CONFIG", "RESETSTAT")
	assertUntouched(t, s, m) // the fresh server is the baseline

	res := loaderExpect(t, 0, "deploy", "--dry-run", "-m", repoManifest, "--url", s.URL())
	// One row per item (tableRows dropped the header).
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	if len(lines) != len(m.Scripts)+1 {
		t.Fatalf("deploy --dry-run: %d rows, want %d (one per script and the library):\n%s", len(lines), len(m.Scripts)+1, res.out)
	}
	for i, sc := range m.Scripts {
		f := strings.Split(lines[i], "\t")
		if len(f) != 7 || f[0] != s.Addr || f[1] != "primary" || f[3] != "script" || f[4] != sc.Name || f[5] != "load" || f[6] != "not in the script cache" {
			t.Errorf("row %d = %q; want %s primary <version> script %s load (not in the script cache)", i, lines[i], s.Addr, sc.Name)
		}
	}
	f := strings.Split(lines[len(m.Scripts)], "\t")
	if len(f) != 7 || f[0] != s.Addr || f[3] != "library" || f[4] != m.LibraryName() || f[5] != "load" || f[6] != "not loaded" {
		t.Errorf("library row = %q; want %s ... library %s load not loaded", lines[len(m.Scripts)], s.Addr, m.LibraryName())
	}
	wantNotice := "Plan: " + strconv.Itoa(len(m.Scripts)+1) + " to load, 0 conflict(s), 0 already loaded, 0 unsupported on 1 node(s).\n"
	if !strings.Contains(res.errOut, wantNotice) {
		t.Errorf("stderr lacks %q:\n%s", wantNotice, res.errOut)
	}
	assertUntouched(t, s, m)

	res = loaderExpect(t, 0, "deploy", "--dry-run", "--format", "json", "-m", repoManifest, "--url", s.URL())
	var dj struct {
		FormatVersion string     `json:"format_version"`
		Command       string     `json:"command"`
		DryRun        bool       `json:"dry_run"`
		Lock          *string    `json:"lock"`
		Loaded        int        `json:"loaded"`
		Failed        int        `json:"failed"`
		Error         *string    `json:"error"`
		LibraryName   string     `json:"library_name"`
		Nodes         []planNode `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(res.out), &dj); err != nil {
		t.Fatalf("deploy --dry-run json: %v\n%s", err, res.out)
	}
	if dj.FormatVersion != "2" || dj.Command != "deploy" || !dj.DryRun || dj.Lock != nil || dj.Error != nil ||
		dj.Loaded != 0 || dj.Failed != 0 || dj.LibraryName != m.LibraryName() || len(dj.Nodes) != 1 {
		t.Fatalf("deploy --dry-run json: %+v\n%s", dj, res.out)
	}
	n := dj.Nodes[0]
	if n.Addr != s.Addr || n.Status != "planned" || len(n.Items) != len(m.Scripts)+1 {
		t.Fatalf("dry-run node: %+v", n)
	}
	for _, it := range n.Items {
		if it.Action != "load" || it.Outcome != nil {
			t.Errorf("dry-run item %+v: want action load and no outcome", it)
		}
	}
	assertUntouched(t, s, m)
}

// planNode is a node of the plan document (docs/json.md), with pointer
// fields where the document says "omitted".
type planNode struct {
	Addr         string  `json:"addr"`
	Role         string  `json:"role"`
	Primary      *string `json:"primary"`
	RedisVersion string  `json:"redis_version"`
	Server       string  `json:"server"`
	Version      string  `json:"version"`
	Error        *string `json:"error"`
	Status       string  `json:"status"` // deploy only
	Items        []struct {
		Kind    string  `json:"kind"`
		Name    string  `json:"name"`
		SHA     *string `json:"sha"`
		Action  string  `json:"action"`
		Detail  *string `json:"detail"`
		Outcome *string `json:"outcome"` // deploy only
	} `json:"items"`
}

// TestPlanJSONEmptyServer: plan --format json on an empty server prints
// the documented plan document (every script and the library "load", with
// a detail) and exits 0, or 4 under --exit-code; plan changes nothing.
func TestPlanJSONEmptyServer(t *testing.T) {
	s := planServer(t)
	m := loadFor(t, repoManifest)
	serverVersion, _ := s.Info(t, "server", "redis_version")
	family, version := s.Family(t)
	s.MustDo("CONFIG", "RESETSTAT")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 0},
		{[]string{"--exit-code"}, 4},
	} {
		args := append([]string{"plan", "--format", "json", "-m", repoManifest, "--url", s.URL()}, tc.args...)
		res := loaderExpect(t, tc.code, args...)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(res.out), &raw); err != nil {
			t.Fatalf("%v: not one JSON document: %v\n%s", args, err, res.out)
		}
		for _, k := range []string{"format_version", "command", "library", "library_name", "version", "mode", "changes", "nodes"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("%v: field %q missing:\n%s", args, k, res.out)
			}
		}
		var pj struct {
			FormatVersion string     `json:"format_version"`
			Command       string     `json:"command"`
			Library       string     `json:"library"`
			LibraryName   string     `json:"library_name"`
			Version       int        `json:"version"`
			Mode          string     `json:"mode"`
			Changes       int        `json:"changes"`
			Nodes         []planNode `json:"nodes"`
		}
		if err := json.Unmarshal([]byte(res.out), &pj); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, res.out)
		}
		if pj.FormatVersion != "2" || pj.Command != "plan" || pj.Library != m.Library || pj.LibraryName != m.LibraryName() ||
			pj.Version != m.Version || pj.Mode != "both" || pj.Changes != len(m.Scripts)+1 || len(pj.Nodes) != 1 {
			t.Fatalf("%v: plan document %+v\n%s", args, pj, res.out)
		}
		n := pj.Nodes[0]
		if n.Addr != s.Addr || n.Role != "primary" || n.Primary != nil || n.Error != nil || n.RedisVersion != serverVersion ||
			n.Server != family || n.Version != version {
			t.Errorf("%v: node %+v", args, n)
		}
		if len(n.Items) != len(m.Scripts)+1 {
			t.Fatalf("%v: %d items, want %d", args, len(n.Items), len(m.Scripts)+1)
		}
		for i, sc := range m.Scripts {
			it := n.Items[i]
			if it.Kind != "script" || it.Name != sc.Name || it.SHA == nil || *it.SHA != sc.SHA || it.Action != "load" ||
				it.Detail == nil || *it.Detail == "" || it.Outcome != nil {
				t.Errorf("%v: item %d = %+v; want script %s sha %s action load with a detail", args, i, it, sc.Name, sc.SHA)
			}
		}
		lib := n.Items[len(m.Scripts)]
		if lib.Kind != "library" || lib.Name != m.LibraryName() || lib.SHA != nil || lib.Action != "load" || lib.Detail == nil || *lib.Detail != "not loaded" {
			t.Errorf("%v: library item %+v; want library %s action load detail \"not loaded\"", args, lib, m.LibraryName())
		}
		if tc.code == 1 && withoutCVEWarnings(res.errOut) != "" {
			t.Errorf("%v: exit 1 with findings already printed must add nothing on stderr, got:\n%s", args, res.errOut)
		}
	}
	assertUntouched(t, s, m)
}

// TestStatusLibraryDiffers: after a deploy, the manifest's library name
// reloaded with other code is drift: status exits 1, names the node and the
// library (state differs) on stdout and stderr, and the JSON drift list has
// exactly that entry. Status changes nothing: the other code stays loaded.
func TestStatusLibraryDiffers(t *testing.T) {
	s := planServer(t)
	m := loadFor(t, repoManifest)
	loaderExpect(t, 0, "deploy", "-m", repoManifest, "--url", s.URL())
	loaderExpect(t, 0, "status", "-m", repoManifest, "--url", s.URL())

	other := string(m.FunctionsLibrary()) + "\n-- hand-edited on the server\n"
	s.MustDo("FUNCTION", "LOAD", "REPLACE", other)

	res := loaderExpect(t, 1, "status", "-m", repoManifest, "--url", s.URL())
	wantDrift := s.Addr + ": library " + m.LibraryName() + " differs"
	if !strings.Contains(res.errOut, displayPath(repoManifest)+":"+strconv.Itoa(m.LibraryLine)+": error drift: "+wantDrift+"\n") || m.LibraryLine == 0 {
		t.Errorf("stderr does not name the node and the library as a shared diagnostic at the manifest's library field:\n%s", res.errOut)
	}
	if strings.Count(res.errOut, "drift: ") != 1 || !strings.Contains(res.errOut, "1 drifted item(s)") {
		t.Errorf("stderr: want exactly one drifted item (the scripts are still loaded):\n%s", res.errOut)
	}
	row := s.Addr + "\tprimary\t" + serverOf(t, s) + "\tlibrary\t" + m.LibraryName() + "\t" + strconv.Itoa(m.Version) + "\tdiffers\tloaded with code that differs from the manifest\n"
	if !strings.Contains(res.out, row) {
		t.Errorf("stdout lacks the row %q:\n%s", row, res.out)
	}

	res = loaderExpect(t, 1, "status", "--format", "json", "-m", repoManifest, "--url", s.URL())
	var st struct {
		FormatVersion string   `json:"format_version"`
		Command       string   `json:"command"`
		Drift         []string `json:"drift"`
		Diagnostics   []struct {
			Severity, Code, Message string
		} `json:"diagnostics"`
		Nodes []struct {
			Addr  string `json:"addr"`
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
	if st.FormatVersion != "2" || st.Command != "status" || len(st.Drift) != 1 || st.Drift[0] != wantDrift || len(st.Nodes) != 1 || st.Nodes[0].Addr != s.Addr {
		t.Fatalf("status json: drift %q, want [%q]: %+v", st.Drift, wantDrift, st)
	}
	// Besides the drift, only the warning a CVE-listed server version gets.
	d := slices.DeleteFunc(slices.Clone(st.Diagnostics), func(d struct{ Severity, Code, Message string }) bool {
		return d.Code == "lua-cve" && d.Severity == "warning"
	})
	if len(d) != 1 || d[0].Severity != "error" || d[0].Code != "drift" || d[0].Message != wantDrift {
		t.Errorf("status json diagnostics %+v, want one error drift %q", st.Diagnostics, wantDrift)
	}
	found := false
	for _, it := range st.Nodes[0].Items {
		switch {
		case it.Kind == "library" && it.Name == m.LibraryName():
			found = true
			if it.State != "differs" || !it.Drift {
				t.Errorf("library item %+v; want state differs, drift true", it)
			}
		case it.Drift:
			t.Errorf("item %+v drifted; only the library should", it)
		}
	}
	if !found {
		t.Errorf("status json does not list %s: %+v", m.LibraryName(), st.Nodes[0].Items)
	}

	// Status repaired nothing: the server still holds the other code.
	msg := s.MustDo("FUNCTION", "LIST", "LIBRARYNAME", m.LibraryName(), "WITHCODE")
	libs, _ := msg.ToArray()
	if len(libs) != 1 {
		t.Fatalf("FUNCTION LIST: %d libraries", len(libs))
	}
	f, _ := libs[0].AsMap()
	lc := f["library_code"]
	code, _ := lc.ToString()
	if code != other {
		t.Fatalf("status changed the library code on the server")
	}
	for _, sc := range m.Scripts {
		if !scriptExists(t, s, sc.SHA) {
			t.Errorf("script %s no longer cached", sc.Name)
		}
	}
}
