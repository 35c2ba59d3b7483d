package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// validManifest is a small valid manifest; the cases below are edits of it.
const validManifest = `schema: 1
library: lib
version: 3
scripts:
  get:
    file: get.lua
    keys: [lease, value]
    args: [token]
    flags: [no-writes]
  put:
    file: put.lua
    keys: [lease]
    args: []
callers:
  svc:
    scripts: [get, put]
    keys:
      lease: "x:{<id>}:lease"
      value: "x:{<id>}:value"
    samples:
      id: ["1"]
`

const (
	getLua = "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[2])\n"
	putLua = "return redis.call('DEL', KEYS[1])\n"
)

// writeTree writes files (name -> content) under a new temp dir and returns
// the dir. A nil content is skipped.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadIn writes manifest.yaml and the scripts into a temp dir and loads it
// from there, so errors name "manifest.yaml" as given.
func loadIn(t *testing.T, yaml string, files map[string]string) (*Manifest, error) {
	t.Helper()
	all := map[string]string{"manifest.yaml": yaml}
	for k, v := range files {
		all[k] = v
	}
	dir := writeTree(t, all)
	t.Chdir(dir)
	return Load("manifest.yaml")
}

func defaultFiles() map[string]string {
	return map[string]string{"get.lua": getLua, "put.lua": putLua}
}

func TestLoadValid(t *testing.T) {
	m, err := loadIn(t, validManifest, defaultFiles())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if m.Schema != 1 || m.Library != "lib" || m.Version != 3 || m.LibraryLine != 2 {
		t.Errorf("header = %d %q %d, library at line %d", m.Schema, m.Library, m.Version, m.LibraryLine)
	}
	if len(m.Scripts) != 2 {
		t.Fatalf("scripts = %d, want 2", len(m.Scripts))
	}
	get := m.Script("get")
	if get == nil || get.File != "get.lua" || get.Path != "get.lua" || get.Line != 5 {
		t.Fatalf("get = %+v", get)
	}
	if !slices.Equal(get.Keys, []string{"lease", "value"}) || !slices.Equal(get.Args, []string{"token"}) || !slices.Equal(get.Flags, []string{"no-writes"}) {
		t.Errorf("get keys/args/flags = %v %v %v", get.Keys, get.Args, get.Flags)
	}
	if string(get.Source) != getLua || get.SHA != SHA1Hex([]byte(getLua)) {
		t.Errorf("get source/sha = %q %s", get.Source, get.SHA)
	}
	put := m.Script("put")
	if put.Args == nil || len(put.Args) != 0 || put.Flags == nil || len(put.Flags) != 0 {
		t.Errorf("put args/flags = %#v %#v, want empty non-nil", put.Args, put.Flags)
	}
	c := m.Caller("svc")
	if c == nil || !slices.Equal(c.Scripts, []string{"get", "put"}) {
		t.Fatalf("caller = %+v", c)
	}
	if tpl, ok := c.Template("value"); !ok || tpl != "x:{<id>}:value" {
		t.Errorf("value template = %q %v", tpl, ok)
	}
	if c.Keys[0].Line != 18 || c.Keys[0].Col != 14 {
		t.Errorf("lease template at %d:%d, want 18:14", c.Keys[0].Line, c.Keys[0].Col)
	}
	if got := c.Keys[0].Placeholders(); !slices.Equal(got, []string{"id"}) {
		t.Errorf("placeholders = %v", got)
	}
	if !slices.Equal(c.Samples["id"], []string{"1"}) {
		t.Errorf("samples = %v", c.Samples)
	}
	if m.LibraryName() != "lib_v3" || m.FunctionName("get") != "lib_get_v3" {
		t.Errorf("names = %s %s", m.LibraryName(), m.FunctionName("get"))
	}
}

// TestLoadRepository loads the repository's own manifest.
func TestLoadRepository(t *testing.T) {
	m, err := Load(filepath.Join("..", "manifest.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for _, s := range m.Scripts {
		data, err := os.ReadFile(filepath.Join("..", s.File))
		if err != nil {
			t.Fatal(err)
		}
		if s.SHA != SHA1Hex(data) {
			t.Errorf("%s: SHA %s, want %s", s.Name, s.SHA, SHA1Hex(data))
		}
	}
}

func TestLoadWithBOM(t *testing.T) {
	if _, err := loadIn(t, "\xef\xbb\xbf"+validManifest, defaultFiles()); err != nil {
		t.Fatalf("a manifest with a UTF-8 byte order mark: %v", err)
	}
}

func TestLoadUnreadableScript(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	dir := writeTree(t, map[string]string{"manifest.yaml": validManifest, "get.lua": getLua, "put.lua": putLua})
	if err := os.Chmod(filepath.Join(dir, "put.lua"), 0); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	_, err := Load("manifest.yaml")
	want := "manifest.yaml:11:11: scripts.put.file: cannot read put.lua: permission denied"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

// TestLoadShebangFlagsMismatch: shebang flags that differ from the
// manifest's load (lint's shebang-flags reports them at the script's line
// 1), and each side keeps its own flags.
func TestLoadShebangFlagsMismatch(t *testing.T) {
	for _, yaml := range []string{
		strings.Replace(validManifest, "flags: [no-writes]", "flags: [allow-oom]", 1),
		strings.Replace(validManifest, "    flags: [no-writes]\n", "", 1),
	} {
		m, err := loadIn(t, yaml, defaultFiles())
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if get := m.Script("get"); get == nil || slices.Contains(get.Flags, "no-writes") {
			t.Fatalf("get: flags %v, want the manifest's (no no-writes)", get.Flags)
		}
	}
}

func TestLoadTargets(t *testing.T) {
	m, err := loadIn(t, validManifest, defaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Targets, []string{"redis-7.0"}) || m.TargetsLine != 0 {
		t.Errorf("default targets %v at line %d, want [redis-7.0] at line 0 (no field)", m.Targets, m.TargetsLine)
	}
	m, err = loadIn(t, edit("version: 3\n", "version: 3\ntargets: [valkey-8.1, redis-8.0, valkey-9.1]\n"), defaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Targets, []string{"valkey-8.1", "redis-8.0", "valkey-9.1"}) || m.TargetsLine != 4 {
		t.Errorf("targets %v at line %d, want the file's order at line 4", m.Targets, m.TargetsLine)
	}
	// A block list: the field's line is its key's, not its first item's.
	m, err = loadIn(t, edit("version: 3\n", "version: 3\n# proven on\ntargets:\n  - redis-7.0\n  - valkey-8.1\n"), defaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Targets, []string{"redis-7.0", "valkey-8.1"}) || m.TargetsLine != 5 {
		t.Errorf("block targets %v at line %d, want at line 5", m.Targets, m.TargetsLine)
	}
}

func TestLoadAcceptCVEs(t *testing.T) {
	m, err := loadIn(t, edit("version: 3\n", "version: 3\naccept_cves:\n  - id: CVE-2025-49844\n    reason: Debian's 8.0.2 carries the fix (DSA-6011-1)\n  - {id: CVE-2025-46817, reason: same build}\n"), defaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	want := []AcceptedCVE{{ID: "CVE-2025-49844", Reason: "Debian's 8.0.2 carries the fix (DSA-6011-1)", Line: 5}, {ID: "CVE-2025-46817", Reason: "same build", Line: 7}}
	if !slices.Equal(m.AcceptCVEs, want) || m.AcceptCVEsLine != 4 {
		t.Fatalf("accept_cves %+v at line %d, want %+v at line 4", m.AcceptCVEs, m.AcceptCVEsLine, want)
	}
	if got := m.AcceptedCVEs(); len(got) != 2 || got["CVE-2025-46817"] != "same build" {
		t.Fatalf("AcceptedCVEs = %v", got)
	}
}

func TestLoadAnchorsAndComments(t *testing.T) {
	y := strings.Replace(validManifest, "keys: [lease]\n", "keys: &k [lease]\n", 1)
	y = strings.Replace(y, "    args: []\n", "    args: *k # aliases resolve\n", 1)
	m, err := loadIn(t, y, defaultFiles())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if !slices.Equal(m.Script("put").Args, []string{"lease"}) {
		t.Errorf("args via alias = %v", m.Script("put").Args)
	}
}

// TestLoadInvalid runs each malformed manifest and compares the complete
// list of reported problems.
// edit returns validManifest with old replaced by new.
func edit(old, new string) string {
	if !strings.Contains(validManifest, old) {
		panic("edit: " + old)
	}
	return strings.Replace(validManifest, old, new, 1)
}

// invalidManifests are malformed manifests with the complete list of
// problems each must report. FuzzManifest seeds from them.
var invalidManifests = []struct {
	name  string
	yaml  string
	files map[string]string // replaces or adds to defaultFiles
	want  []string
}{
	{"empty", "", nil, []string{"manifest.yaml:1:1: the manifest is empty: want schema, library, version and scripts"}},
	{"comments only", "# nothing\n", nil, []string{"manifest.yaml:1:1: the manifest is empty: want schema, library, version and scripts"}},
	{"yaml syntax", "schema: 1\nlibrary: [a\n", nil, []string{"manifest.yaml:2:1: invalid YAML: did not find expected ',' or ']'"}},
	{"yaml tab", "schema: 1\n\tlibrary: a\n", nil, []string{"manifest.yaml:2:1: invalid YAML: found a tab character that violates indentation"}},
	{"yaml parser error line", "schema: 1\nscripts:\n  - a\n  b: c\n", nil, []string{"manifest.yaml:3:1: invalid YAML: did not find expected '-' indicator"}},
	{"yaml unknown anchor", "schema: 1\nlibrary: *lib\n", nil, []string{"manifest.yaml:2:10: invalid YAML: unknown anchor 'lib' referenced"}},
	{"yaml unterminated string", "schema: 1\nlibrary: 'lib\n", nil, []string{"manifest.yaml:2:1: invalid YAML: found unexpected end of stream"}},
	{"manifest not utf8", "schema: 1\nlibrary: caf\xe9\n", nil, []string{"manifest.yaml:2:13: the manifest is not valid UTF-8 (byte 0xe9)"}},
	{"manifest control char", "schema: 1\nlibrary: l\x00\n", nil, []string{"manifest.yaml:2:11: control character U+0000 is not allowed in YAML"}},
	{"not a mapping", "- a\n- b\n", nil, []string{"manifest.yaml:1:1: the manifest must be a YAML mapping, not a list"}},
	{"two documents", validManifest + "---\nschema: 1\n", nil, []string{"manifest.yaml:22:1: a manifest holds one YAML document; remove the second one (after ---)"}},
	{"unknown top field", edit("version: 3\n", "version: 3\nscirpts: {}\n"), nil, []string{`manifest.yaml:4:1: scirpts: unknown field "scirpts" (did you mean "scripts"?)`}},
	{"unknown field far", edit("version: 3\n", "version: 3\nrollout: x\n"), nil, []string{`manifest.yaml:4:1: rollout: unknown field "rollout": want one of schema, library, version, targets, topology, strict_keys, deploy, accept_cves, scripts, callers, environments, releases, bindings`}},
	{"accept_cves not a list", edit("version: 3\n", "version: 3\naccept_cves: CVE-2025-49844\n"), nil, []string{"manifest.yaml:4:14: accept_cves: must be a list of {id, reason}, not the string \"CVE-2025-49844\""}},
	{"accept_cves bare id", edit("version: 3\n", "version: 3\naccept_cves: [CVE-2025-49844]\n"), nil, []string{`manifest.yaml:4:15: accept_cves[0]: must be a mapping {id, reason}, not the string "CVE-2025-49844" (write each entry as {id: CVE-..., reason: ...})`}},
	{"accept_cves no reason", edit("version: 3\n", "version: 3\naccept_cves:\n  - id: CVE-2025-49844\n"), nil, []string{"manifest.yaml:5:5: accept_cves[0].reason: required field is missing: say why the warning does not apply (such as the distribution advisory whose build carries the fix)"}},
	{"accept_cves empty reason", edit("version: 3\n", "version: 3\naccept_cves:\n  - {id: CVE-2025-49844, reason: ' '}\n"), nil, []string{"manifest.yaml:5:34: accept_cves[0].reason: must not be empty: say why the warning does not apply"}},
	{"accept_cves unknown id", edit("version: 3\n", "version: 3\naccept_cves:\n  - {id: CVE-2025-0001, reason: patched}\n"), nil, []string{"manifest.yaml:5:10: accept_cves[0].id: CVE-2025-0001 is not a Lua CVE scriptctl warns about (known: CVE-2025-67733, CVE-2025-49844, CVE-2025-46817, CVE-2025-46818, CVE-2025-46819, CVE-2024-46981, CVE-2024-31449, CVE-2022-24834, CVE-2021-32626)"}},
	{"accept_cves twice", edit("version: 3\n", "version: 3\naccept_cves:\n  - {id: CVE-2025-49844, reason: a}\n  - {id: CVE-2025-49844, reason: b}\n"), nil, []string{"manifest.yaml:6:10: accept_cves[1].id: CVE-2025-49844 is listed twice"}},
	{"accept_cves unknown field", edit("version: 3\n", "version: 3\naccept_cves:\n  - {id: CVE-2025-49844, reason: a, until: 2026}\n"), nil, []string{`manifest.yaml:5:37: accept_cves[0].until: unknown field "until": want one of id, reason`}},
	{"bad deploy", edit("version: 3\n", "version: 3\ndeploy: lua\n"), nil, []string{`manifest.yaml:4:9: deploy: invalid deploy "lua": want both, scripts or functions`}},
	{"missing fields", "schema: 1\n", nil, []string{
		"manifest.yaml:1:1: library: required field is missing",
		"manifest.yaml:1:1: version: required field is missing",
		"manifest.yaml:1:1: scripts: required field is missing",
	}},
	{"duplicate top key", edit("version: 3\n", "version: 3\nversion: 4\n"), nil, []string{`manifest.yaml:4:1: version: duplicate key "version" (first at line 3)`}},
	{"schema 2", edit("schema: 1", "schema: 2"), nil, []string{"manifest.yaml:1:9: schema: unsupported schema 2: this scriptctl understands schema 1"}},
	{"version 0", edit("version: 3", "version: 0"), nil, []string{"manifest.yaml:3:10: version: must be a positive integer, not 0"}},
	{"version -1", edit("version: 3", "version: -1"), nil, []string{"manifest.yaml:3:10: version: must be a positive integer, not -1"}},
	{"version 1.5", edit("version: 3", "version: 1.5"), nil, []string{"manifest.yaml:3:10: version: must be a positive integer, not float 1.5"}},
	{"version string", edit("version: 3", `version: "1"`), nil, []string{`manifest.yaml:3:10: version: must be a positive integer, not the string "1" (remove the quotes)`}},
	{"version hex", edit("version: 3", "version: 0x10"), nil, []string{"manifest.yaml:3:10: version: must be a positive integer, not 0x10"}},
	{"version huge", edit("version: 3", "version: 99999999999"), nil, []string{"manifest.yaml:3:10: version: 99999999999 is too large (at most 2147483647)"}},
	{"version null", edit("version: 3", "version:"), nil, []string{"manifest.yaml:3:9: version: must be a positive integer, not null"}},
	{"version bool", edit("version: 3", "version: true"), nil, []string{"manifest.yaml:3:10: version: must be a positive integer, not bool true"}},
	{"library hyphen", edit("library: lib", "library: my-lib"), nil, []string{`manifest.yaml:2:10: library: invalid library name "my-lib": use letters, digits and underscore`}},
	{"library empty", edit("library: lib", `library: ""`), nil, []string{"manifest.yaml:2:10: library: must not be empty"}},
	{"library int", edit("library: lib", "library: 7"), nil, []string{`manifest.yaml:2:10: library: must be a string, not int 7 (quote it: "7")`}},
	{"library tagged", edit("library: lib", "library: !custom lib"), nil, []string{"manifest.yaml:2:10: library: must be a string, not a value tagged !custom"}},
	{"no scripts", "schema: 1\nlibrary: l\nversion: 1\nscripts: {}\n", nil, []string{"manifest.yaml:4:10: scripts: at least one script is required"}},
	{"script name upper", edit("  put:\n", "  Put:\n"), nil, []string{
		`manifest.yaml:10:3: scripts.Put: invalid script name "Put": use lowercase letters, digits and underscore`,
		`manifest.yaml:16:20: callers.svc.scripts[1]: unknown script "put" (did you mean "Put"?)`,
	}},
	{"duplicate script", edit("  put:\n", "  get:\n"), nil, []string{
		`manifest.yaml:10:3: scripts.get: duplicate key "get" (first at line 5)`,
		`manifest.yaml:16:20: callers.svc.scripts[1]: unknown script "put"`,
	}},
	{"script not mapping", edit("  put:\n    file: put.lua\n    keys: [lease]\n    args: []\n", "  put: put.lua\n"), nil, []string{`manifest.yaml:10:8: scripts.put: must be a mapping, not the string "put.lua"`}},
	{"unknown script field", edit("    args: []\n", "    args: []\n    flag: [no-writes]\n"), nil, []string{`manifest.yaml:14:5: scripts.put.flag: unknown field "flag" (did you mean "flags"?)`}},
	{"missing file field", edit("    file: put.lua\n", ""), nil, []string{"manifest.yaml:10:3: scripts.put.file: required field is missing"}},
	{"missing keys args", edit("    keys: [lease]\n    args: []\n", ""), nil, []string{
		"manifest.yaml:10:3: scripts.put.keys: required field is missing",
		"manifest.yaml:10:3: scripts.put.args: required field is missing",
		// with no keys declared, the caller's binding of lease is still
		// needed by get: no further problem
	}},
	{"missing file", edit("file: put.lua", "file: nope.lua"), nil, []string{"manifest.yaml:11:11: scripts.put.file: cannot read nope.lua: no such file or directory"}},
	{"file is dir", edit("file: put.lua", "file: sub"), map[string]string{"sub/x": "x"}, []string{"manifest.yaml:11:11: scripts.put.file: cannot read sub: is a directory"}},
	{"absolute file", edit("file: put.lua", "file: /etc/passwd"), nil, []string{"manifest.yaml:11:11: scripts.put.file: /etc/passwd is an absolute path: write it relative to the manifest"}},
	{"empty file name", edit("file: put.lua", `file: ""`), nil, []string{"manifest.yaml:11:11: scripts.put.file: must not be empty"}},
	{"file list", edit("file: put.lua", "file: [put.lua]"), nil, []string{"manifest.yaml:11:11: scripts.put.file: must be a string, not a list"}},
	{"binary file", validManifest, map[string]string{"put.lua": "return 1\x00\n"}, []string{"manifest.yaml:11:11: scripts.put.file: put.lua is not a Lua script: binary file (contains a NUL byte)"}},
	{"latin1 file", validManifest, map[string]string{"put.lua": "-- caf\xe9\nreturn 1\n"}, []string{"manifest.yaml:11:11: scripts.put.file: put.lua is not a Lua script: not valid UTF-8"}},
	{"empty script", validManifest, map[string]string{"put.lua": ""}, []string{"manifest.yaml:11:11: scripts.put.file: put.lua is not a Lua script: the file is empty"}},
	{"bom", validManifest, map[string]string{"put.lua": "\xef\xbb\xbfreturn 1\n"}, []string{"manifest.yaml:11:11: scripts.put.file: put.lua is not a Lua script: starts with a UTF-8 byte order mark, which Redis cannot compile"}},
	{"keys not list", edit("keys: [lease]\n", "keys: lease\n"), nil, []string{
		`manifest.yaml:12:11: scripts.put.keys: must be a list, not the string "lease"`,
	}},
	{"duplicate key name", edit("keys: [lease, value]", "keys: [lease, lease]"), nil, []string{
		`manifest.yaml:7:19: scripts.get.keys[1]: duplicate key name "lease" (also scripts.get.keys[0])`,
		`manifest.yaml:19:7: callers.svc.keys.value: key "value" is not declared by any of the caller's scripts (get, put)`,
	}},
	{"duplicate arg name", edit("args: [token]", "args: [token, token]"), nil, []string{`manifest.yaml:8:19: scripts.get.args[1]: duplicate arg name "token" (also scripts.get.args[0])`}},
	{"bad arg name", edit("args: [token]", "args: [Token, ttl-ms, 5]"), nil, []string{
		`manifest.yaml:8:12: scripts.get.args[0]: invalid arg name "Token": use lowercase letters, digits and underscore`,
		`manifest.yaml:8:19: scripts.get.args[1]: invalid arg name "ttl-ms": use lowercase letters, digits and underscore`,
		`manifest.yaml:8:27: scripts.get.args[2]: must be a string, not int 5 (quote it: "5")`,
	}},
	{"unknown flag", edit("flags: [no-writes]", "flags: [no-write]"), nil, []string{
		`manifest.yaml:9:13: scripts.get.flags[0]: unknown flag "no-write" (did you mean "no-writes"?): want one of no-writes, allow-oom, allow-stale, no-cluster, allow-cross-slot-keys`,
	}},
	{"duplicate flag", edit("flags: [no-writes]", "flags: [no-writes, no-writes]"), nil, []string{`manifest.yaml:9:24: scripts.get.flags[1]: duplicate flag "no-writes"`}},
	{"flags not list", edit("flags: [no-writes]", "flags: no-writes"), nil, []string{`manifest.yaml:9:12: scripts.get.flags: must be a list, not the string "no-writes"`}},
	{"shebang unknown flag", validManifest, map[string]string{"get.lua": "#!lua flags=no-writes,fast\nreturn 1\n"}, []string{
		`manifest.yaml:6:11: scripts.get.file: get.lua:1: unknown shebang flag "fast": want one of no-writes, allow-oom, allow-stale, no-cluster, allow-cross-slot-keys`,
	}},
	{"shebang engine", validManifest, map[string]string{"get.lua": "#!/usr/bin/env lua\nreturn 1\n"}, []string{
		`manifest.yaml:6:11: scripts.get.file: get.lua:1: unexpected engine in shebang "#!/usr/bin/env lua": only lua is supported`,
	}},
	{"shebang name option", validManifest, map[string]string{"get.lua": "#!lua name=lib flags=no-writes\nreturn 1\n"}, []string{
		`manifest.yaml:6:11: scripts.get.file: get.lua:1: unknown lua shebang option "name=lib"`,
	}},
	{"caller unknown script", edit("scripts: [get, put]", "scripts: [get, pt, nothing]"), nil, []string{
		`manifest.yaml:16:20: callers.svc.scripts[1]: unknown script "pt" (did you mean "put"?)`,
		`manifest.yaml:16:24: callers.svc.scripts[2]: unknown script "nothing"`,
	}},
	{"caller duplicate script", edit("scripts: [get, put]", "scripts: [get, get]"), nil, []string{`manifest.yaml:16:20: callers.svc.scripts[1]: duplicate script "get"`}},
	{"caller no scripts", edit("scripts: [get, put]", "scripts: []"), nil, []string{
		"manifest.yaml:16:14: callers.svc.scripts: at least one script is required",
	}},
	{"caller missing scripts", edit("    scripts: [get, put]\n", ""), nil, []string{
		"manifest.yaml:15:3: callers.svc.scripts: required field is missing",
	}},
	// a misspelled script is reported once, not once per key binding
	{"caller only unknown script", edit("scripts: [get, put]", "scripts: [gte]"), nil, []string{
		`manifest.yaml:16:15: callers.svc.scripts[0]: unknown script "gte" (did you mean "get"?)`,
	}},
	// a script whose keys are unusable: its callers' bindings are not checked
	{"caller of script with bad keys", edit("    keys: [lease, value]\n", "    keys: {lease: 1}\n"), nil, []string{
		"manifest.yaml:7:11: scripts.get.keys: must be a list, not a mapping",
	}},
	// a malformed template: samples are not checked against it
	{"bad template hides sample check", edit(`lease: "x:{<id>}:lease"`, `lease: "x:{<id"`), nil, []string{
		`manifest.yaml:18:14: callers.svc.keys.lease: unclosed placeholder at offset 3 in "x:{<id": write <name>`,
	}},
	{"caller binds unknown key", edit("      value: \"x:{<id>}:value\"\n", "      value: \"x:{<id>}:value\"\n      valeu: \"x:{<id>}:v\"\n"), nil, []string{
		`manifest.yaml:20:7: callers.svc.keys.valeu: key "valeu" is not declared by any of the caller's scripts (get, put); did you mean "value"?`,
	}},
	{"caller misses key", edit("      value: \"x:{<id>}:value\"\n", ""), nil, []string{
		`manifest.yaml:18:7: callers.svc.keys: missing template for key "value" of script get`,
	}},
	{"caller misses all keys", edit("    keys:\n      lease: \"x:{<id>}:lease\"\n      value: \"x:{<id>}:value\"\n", ""), nil, []string{
		`manifest.yaml:15:3: callers.svc.keys: missing template for key "lease" of scripts get, put`,
		`manifest.yaml:15:3: callers.svc.keys: missing template for key "value" of script get`,
		`manifest.yaml:18:7: callers.svc.samples.id: no key template of caller svc uses the placeholder <id>`,
	}},
	{"caller unknown field", edit("    samples:\n", "    sample:\n"), nil, []string{`manifest.yaml:20:5: callers.svc.sample: unknown field "sample" (did you mean "samples"?)`}},
	{"caller bad name", edit("  svc:\n", "  Svc:\n"), nil, []string{`manifest.yaml:15:3: callers.Svc: invalid caller name "Svc": use lowercase letters, digits, underscore and hyphen`}},
	{"template empty", edit(`lease: "x:{<id>}:lease"`, `lease: ""`), nil, []string{`manifest.yaml:18:14: callers.svc.keys.lease: empty key template`}},
	{"template int", edit(`lease: "x:{<id>}:lease"`, `lease: 5`), nil, []string{`manifest.yaml:18:14: callers.svc.keys.lease: must be a string, not int 5 (quote it: "5")`}},
	{"placeholder unclosed", edit(`lease: "x:{<id>}:lease"`, `lease: "x:{<id}:lease"`), nil, []string{`manifest.yaml:18:14: callers.svc.keys.lease: unclosed placeholder at offset 3 in "x:{<id}:lease": write <name>`}},
	{"placeholder nested", edit(`lease: "x:{<id>}:lease"`, `lease: "x:{<<id>>}:lease"`), nil, []string{`manifest.yaml:18:14: callers.svc.keys.lease: unclosed placeholder at offset 3 in "x:{<<id>>}:lease": write <name>`}},
	{"placeholder empty", edit(`lease: "x:{<id>}:lease"`, `lease: "x:{<>}:lease"`), nil, []string{`manifest.yaml:18:14: callers.svc.keys.lease: bad placeholder <> in "x:{<>}:lease": write <name> with lowercase letters, digits and underscore`}},
	{"placeholder upper", edit(`lease: "x:{<id>}:lease"`, `lease: "x:{<ID>}:lease"`), nil, []string{`manifest.yaml:18:14: callers.svc.keys.lease: bad placeholder <ID> in "x:{<ID>}:lease": write <name> with lowercase letters, digits and underscore`}},
	{"placeholder stray", edit(`lease: "x:{<id>}:lease"`, `lease: "x:{id>}:lease"`), nil, []string{`manifest.yaml:18:14: callers.svc.keys.lease: stray '>' at offset 5 in "x:{id>}:lease": placeholders are written <name>`}},
	{"sample unknown placeholder", edit(`id: ["1"]`, "id: [\"1\"]\n      idd: [\"2\"]"), nil, []string{`manifest.yaml:22:7: callers.svc.samples.idd: no key template of caller svc uses the placeholder <idd> (did you mean "id"?)`}},
	{"sample ints", edit(`id: ["1"]`, `id: [1, "2"]`), nil, []string{`manifest.yaml:21:12: callers.svc.samples.id[0]: must be a string, not int 1 (quote it: "1")`}},
	{"sample empty", edit(`id: ["1"]`, `id: []`), nil, []string{`manifest.yaml:21:11: callers.svc.samples.id: give at least one sample value, or remove the entry`}},
	{"sample scalar", edit(`id: ["1"]`, `id: "1"`), nil, []string{`manifest.yaml:21:11: callers.svc.samples.id: must be a list, not the string "1"`}},
	{"placeholder bad pattern", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {pattern: '[a'}"), nil, []string{"manifest.yaml:23:21: callers.svc.placeholders.id.pattern: invalid pattern: error parsing regexp: missing closing ]: `[a`"}},
	{"placeholder empty domain", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {pattern: '^$', non_empty: true}"), nil, []string{"manifest.yaml:23:21: callers.svc.placeholders.id.pattern: no value found that the placeholder takes (values matching \"^$\", non-empty): it could never be filled (the empty string, braces and strings built from the pattern were tried)"}},
	{"placeholder unknown name", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      idd: {non_empty: true}"), nil, []string{"manifest.yaml:23:7: callers.svc.placeholders.idd: no key template of caller svc uses the placeholder <idd> (did you mean \"id\"?)"}},
	{"placeholder unknown field", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {nonempty: true}"), nil, []string{"manifest.yaml:23:12: callers.svc.placeholders.id.nonempty: unknown field \"nonempty\" (did you mean \"non_empty\"?)"}},
	{"placeholder quoted bool", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {non_empty: 'true'}"), nil, []string{"manifest.yaml:23:23: callers.svc.placeholders.id.non_empty: must be true or false, not the string \"true\" (remove the quotes)"}},
	{"placeholder nothing declared", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {}"), nil, []string{"manifest.yaml:23:11: callers.svc.placeholders.id: declare non_empty or pattern, or remove the entry"}},
	{"placeholder scalar", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: true"), nil, []string{"manifest.yaml:23:11: callers.svc.placeholders.id: must be a mapping, not bool true"}},
	{"placeholder empty pattern", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {pattern: ''}"), nil, []string{"manifest.yaml:23:21: callers.svc.placeholders.id.pattern: must not be empty: remove the field to allow any value"}},
	{"placeholder pattern not a string", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {pattern: 1}"), nil, []string{"manifest.yaml:23:21: callers.svc.placeholders.id.pattern: must be a string, not int 1 (quote it: \"1\")"}},
	{"sample outside the placeholder's values", edit(`id: ["1"]`, "id: [\"1\"]\n    placeholders:\n      id: {pattern: '^[a-z]+$'}"), nil, []string{"manifest.yaml:21:12: callers.svc.samples.id[0]: sample \"1\" is not among the values placeholders.id declares (values matching \"^[a-z]+$\")"}},
	{"merge key", edit("  put:\n    file: put.lua\n", "  put:\n    <<: {file: put.lua}\n    file: put.lua\n"), nil, []string{"manifest.yaml:11:5: scripts.put: merge keys (<<) are not supported: write the fields out"}},
	{"non-string key", edit("version: 3\n", "version: 3\n[a]: 1\n"), nil, []string{"manifest.yaml:4:1: keys must be strings, not a list"}},
	{"targets unknown", edit("version: 3\n", "version: 3\ntargets: [redis-7.0, redis-6.2]\n"), nil, []string{
		`manifest.yaml:4:22: targets[1]: unknown target "redis-6.2": known targets are redis-7.0, redis-7.2, redis-7.4, redis-8.0, valkey-7.2, valkey-8.0, valkey-8.1, valkey-9.1`}},
	{"targets repeated", edit("version: 3\n", "version: 3\ntargets: [valkey-8.1, valkey-8.1]\n"), nil, []string{
		`manifest.yaml:4:23: targets[1]: target "valkey-8.1" is listed twice`}},
	{"targets empty", edit("version: 3\n", "version: 3\ntargets: []\n"), nil, []string{
		"manifest.yaml:4:10: targets: must list at least one target (known targets: redis-7.0, redis-7.2, redis-7.4, redis-8.0, valkey-7.2, valkey-8.0, valkey-8.1, valkey-9.1)"}},
	{"targets not a list", edit("version: 3\n", "version: 3\ntargets: redis-7.0\n"), nil, []string{
		`manifest.yaml:4:10: targets: must be a list, not the string "redis-7.0"`}},
	{"all problems at once", "schema: 0\nlibrary: a b\nversion: v1\nscripts:\n  x:\n    file: missing.lua\n    keys: [k]\n    args: []\n", nil, []string{
		"manifest.yaml:1:9: schema: must be a positive integer, not 0",
		`manifest.yaml:2:10: library: invalid library name "a b": use letters, digits and underscore`,
		`manifest.yaml:3:10: version: must be a positive integer, not the string "v1"`,
		"manifest.yaml:6:11: scripts.x.file: cannot read missing.lua: no such file or directory",
	}},
}

func TestLoadInvalid(t *testing.T) {
	for _, tt := range invalidManifests {
		t.Run(tt.name, func(t *testing.T) {
			files := defaultFiles()
			for k, v := range tt.files {
				files[k] = v
			}
			_, err := loadIn(t, tt.yaml, files)
			if err == nil {
				t.Fatalf("Load succeeded, want %d problem(s)", len(tt.want))
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(err, ErrInvalid) = false for %T", err)
			}
			got := problemLines(err)
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != len(tt.want) {
				t.Fatalf("err is %T with %d problems", err, len(errs))
			}
			for _, e := range errs {
				if e.File != "manifest.yaml" || e.Line < 1 || e.Col < 1 {
					t.Errorf("problem without position: %+v", e)
				}
			}
		})
	}
}

func TestLoadMissingManifest(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := Load("nope.yaml")
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	var pe *os.PathError
	if !errors.As(err, &pe) {
		t.Errorf("err does not unwrap to *os.PathError: %#v", err)
	}
	if want := "nope.yaml: cannot read the manifest: no such file or directory"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestLoadFifoIsRefused(t *testing.T) {
	dir := writeTree(t, map[string]string{"manifest.yaml": validManifest, "get.lua": getLua})
	if err := mkfifo(filepath.Join(dir, "put.lua")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	t.Chdir(dir)
	_, err := Load("manifest.yaml")
	want := "manifest.yaml:11:11: scripts.put.file: cannot read put.lua: not a regular file: it is a named pipe (FIFO)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestLoadResolvesFromManifestDir(t *testing.T) {
	dir := writeTree(t, map[string]string{"deploy/manifest.yaml": validManifest, "deploy/get.lua": getLua, "deploy/put.lua": putLua})
	t.Chdir(dir)
	m, err := Load(filepath.Join("deploy", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Script("put").Path; got != filepath.Join("deploy", "put.lua") {
		t.Errorf("path = %s", got)
	}
	if m.SumPath() != filepath.Join("deploy", "scripts.sum") {
		t.Errorf("sum path = %s", m.SumPath())
	}
	// Errors name the manifest path as given.
	_, err = Parse(filepath.Join("deploy", "manifest.yaml"), []byte("schema: 1\n"))
	if lines := problemLines(err); len(lines) != 3 || lines[0] != "deploy/manifest.yaml:1:1: library: required field is missing" {
		t.Errorf("err = %v", err)
	}
}

func TestParseTemplate(t *testing.T) {
	tests := []struct {
		in      string
		names   []string
		problem bool
	}{
		{"plain", nil, false},
		{"a:{<id>}:<id>:<kind>", []string{"id", "kind"}, false},
		{"<a_1><b>", []string{"a_1", "b"}, false},
		{"{}", nil, false},
		{"", nil, true},
		{"<", nil, true},
		{">", nil, true},
		{"<a", nil, true},
		{"<a b>", nil, true},
		{"<é>", nil, true},
	}
	for _, tt := range tests {
		names, problem := parseTemplate(tt.in)
		if (problem != "") != tt.problem {
			t.Errorf("parseTemplate(%q) problem = %q, want problem %v", tt.in, problem, tt.problem)
		}
		if !tt.problem && !slices.Equal(names, tt.names) {
			t.Errorf("parseTemplate(%q) = %v, want %v", tt.in, names, tt.names)
		}
	}
}

func TestSuggest(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"scirpts", "scripts"}, {"flag", "flags"}, {"x", ""}, {"rollout", ""}, {"no-write", "no-writes"},
	} {
		if got := suggest(tt.in, append(append([]string{}, topFields...), append(scriptFields, ScriptFlags...)...)); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// problemLines returns one line per problem of an Errors value.
func problemLines(err error) []string {
	var errs Errors
	if !errors.As(err, &errs) {
		return []string{"not Errors: " + err.Error()}
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func TestErrorsText(t *testing.T) {
	one := Errors{{File: "m.yaml", Line: 3, Col: 10, Field: "version", Msg: "bad"}}
	if got := one.Error(); got != "m.yaml:3:10: version: bad" {
		t.Errorf("one = %q", got)
	}
	two := append(one, &Error{File: "m.yaml", Msg: "worse"})
	if got, want := two.Error(), "2 problems in m.yaml:\nm.yaml:3:10: version: bad\nm.yaml: worse"; got != want {
		t.Errorf("two = %q, want %q", got, want)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"get", "get", 0}, {"gte", "get", 1}, {"get", "put", 2}, {"", "abc", 3}, {"scirpts", "scripts", 1}, {"flag", "flags", 1},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestLoadPlaceholders(t *testing.T) {
	m, err := loadIn(t, edit(`id: ["1"]`, "id: [\"1\", \"42\"]\n    placeholders:\n      id: {non_empty: true, pattern: '^[0-9]+$'}"), defaultFiles())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c := m.Caller("svc")
	want := map[string]Placeholder{"id": {Name: "id", NonEmpty: true, Pattern: "^[0-9]+$", Line: 23, Col: 7}}
	if fmt.Sprint(c.Placeholders) != fmt.Sprint(want) {
		t.Errorf("placeholders = %+v, want %+v", c.Placeholders, want)
	}
	// Without the entry a caller's placeholders are empty, not nil.
	m, err = loadIn(t, validManifest, defaultFiles())
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Caller("svc").Placeholders; p == nil || len(p) != 0 {
		t.Errorf("placeholders = %#v, want an empty map", p)
	}
}

// TestLoadSizeCaps: a manifest over MaxManifestSize and a scripts.sum over
// MaxSumSize are refused before they are read (the files are sparse: their
// size is all that is checked).
func TestLoadSizeCaps(t *testing.T) {
	dir := t.TempDir()
	big := func(name string, size int64) string {
		t.Helper()
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mp := big("manifest.yaml", MaxManifestSize+1)
	_, err := Load(mp)
	if want := mp + ": cannot read the manifest: larger than the 16 MiB limit"; err == nil || err.Error() != want {
		t.Errorf("manifest: err = %v, want %s", err, want)
	}
	sp := big("scripts.sum", MaxSumSize+1)
	_, err = ReadSum(sp)
	if want := sp + ": cannot read: larger than the 64 MiB limit"; err == nil || err.Error() != want {
		t.Errorf("sum: err = %v, want %s", err, want)
	}
	lp := big("big.lua", MaxScriptSize+1)
	if _, err := ReadScriptFile(lp); err == nil || err.Error() != "larger than the 4 MiB limit" {
		t.Errorf("script: err = %v", err)
	}
}
