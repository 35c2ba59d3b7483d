package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	shaA = "418f8f98dba7f69c6f575e91e1ff83650f541da4"
	shaB = "fc8b776b71fe6b8221cd3f3c831499cd13951c0c"
	shaC = "9cfd4ff52dd6069d967699b4c66f6fc459b9a515"
)

func TestParseSum(t *testing.T) {
	data := "# header\n\n2 get " + shaB + "\n1 put " + shaC + "\r\n1  get\t" + shaA + "\n"
	s, err := ParseSum("scripts.sum", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []SumEntry{
		{Version: 1, Script: "get", SHA: shaA, Line: 5},
		{Version: 1, Script: "put", SHA: shaC, Line: 4},
		{Version: 2, Script: "get", SHA: shaB, Line: 3},
	}
	if !slices.Equal(s.Entries, want) {
		t.Errorf("entries = %+v\nwant %+v", s.Entries, want)
	}
	if s.Latest() != 2 || len(s.Version(1)) != 2 || len(s.Version(3)) != 0 {
		t.Errorf("Latest = %d, Version(1) = %v", s.Latest(), s.Version(1))
	}
	wantBytes := sumHeader + "1 get " + shaA + "\n1 put " + shaC + "\n2 get " + shaB + "\n"
	if got := string(s.Bytes()); got != wantBytes {
		t.Errorf("Bytes:\n%s\nwant:\n%s", got, wantBytes)
	}
	// Round trip: what Bytes writes parses to the same entries.
	s2, err := ParseSum("x", s.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i := range s2.Entries {
		s2.Entries[i].Line = 0
		s.Entries[i].Line = 0
	}
	if !slices.Equal(s.Entries, s2.Entries) {
		t.Errorf("round trip: %v != %v", s2.Entries, s.Entries)
	}
}

func TestParseSumInvalid(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string
	}{
		{"two fields", "1 get\n", []string{`scripts.sum:1:1: want "<version> <script> <sha1>", got 2 field(s)`}},
		{"four fields", "1 get " + shaA + " x\n", []string{`scripts.sum:1:1: want "<version> <script> <sha1>", got 4 field(s)`}},
		{"version 0", "0 get " + shaA + "\n", []string{`scripts.sum:1:1: version "0" is not a positive integer`}},
		{"version v1", "# c\nv1 get " + shaA + "\n", []string{`scripts.sum:2:1: version "v1" is not a positive integer`}},
		{"version huge", "99999999999 get " + shaA + "\n", []string{`scripts.sum:1:1: version 99999999999 is too large`}},
		{"bad script", "1 Get " + shaA + "\n", []string{`scripts.sum:1:3: invalid script name "Get"`}},
		{"short sha", "1 get abc\n", []string{`scripts.sum:1:7: "abc" is not a SHA1 (40 lowercase hex digits)`}},
		{"upper sha", "1 get " + strings.ToUpper(shaA) + "\n", []string{`scripts.sum:1:7: "` + strings.ToUpper(shaA) + `" is not a SHA1 (40 lowercase hex digits)`}},
		{"duplicate", "1 get " + shaA + "\n1 get " + shaB + "\n", []string{`scripts.sum:2:1: duplicate entry for version 1 of script get (first at line 1)`}},
		{"merge conflict", "<<<<<<< HEAD\n1 get " + shaA + "\n=======\n", []string{
			`scripts.sum:1:1: want "<version> <script> <sha1>", got 2 field(s)`,
			`scripts.sum:3:1: want "<version> <script> <sha1>", got 1 field(s)`,
		}},
		{"not utf8", "# \xff\n", []string{"scripts.sum:1:1: not valid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSum("scripts.sum", []byte(tt.data))
			if err == nil {
				t.Fatal("ParseSum succeeded")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("not ErrInvalid: %T", err)
			}
			if got := problemLines(err); !slices.Equal(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func testManifest(version int, scripts ...*Script) *Manifest {
	return &Manifest{Path: "manifest.yaml", Dir: ".", Library: "lib", Version: version, Scripts: scripts}
}

func TestRecord(t *testing.T) {
	get := &Script{Name: "get", File: "get.lua", Path: "get.lua", SHA: shaA}
	put := &Script{Name: "put", File: "put.lua", Path: "put.lua", SHA: shaC}
	s := &Sum{Path: "scripts.sum"}

	changes, err := s.Record(testManifest(1, get, put), false)
	if err != nil {
		t.Fatal(err)
	}
	if states(changes) != "get:added put:added" {
		t.Errorf("first record = %s", states(changes))
	}
	// Recording the same version again changes nothing.
	changes, err = s.Record(testManifest(1, get, put), false)
	if err != nil || states(changes) != "get:unchanged put:unchanged" {
		t.Fatalf("again = %s, %v", states(changes), err)
	}
	// A changed body under the same version is refused, and nothing changes.
	before := string(s.Bytes())
	get2 := &Script{Name: "get", File: "get.lua", Path: "get.lua", SHA: shaB}
	changes, err = s.Record(testManifest(1, get2), false)
	var re *ReleasedError
	if !errors.As(err, &re) || !errors.Is(err, ErrReleased) {
		t.Fatalf("err = %v, want *ReleasedError", err)
	}
	if states(changes) != "get:changed put:removed" || len(re.Changes) != 2 {
		t.Errorf("changes = %s, released changes = %v", states(changes), re.Changes)
	}
	wantErr := "version 1 is already released in scripts.sum and is immutable:\n" +
		"  get: get.lua changed (recorded " + shaA + ", now " + shaB + ")\n" +
		"  put: released but no longer in the manifest"
	if err.Error() != wantErr {
		t.Errorf("err:\n%s\nwant:\n%s", err, wantErr)
	}
	if string(s.Bytes()) != before {
		t.Errorf("refused Record changed the ledger:\n%s", s.Bytes())
	}
	// A new version keeps the history.
	if _, err := s.Record(testManifest(2, get2), false); err != nil {
		t.Fatal(err)
	}
	want := sumHeader + "1 get " + shaA + "\n1 put " + shaC + "\n2 get " + shaB + "\n"
	if got := string(s.Bytes()); got != want {
		t.Errorf("after version 2:\n%s\nwant:\n%s", got, want)
	}
	// --force rewrites the version's lines only.
	changes, err = s.Record(testManifest(1, get2), true)
	if err != nil || states(changes) != "get:changed put:removed" {
		t.Fatalf("force = %s, %v", states(changes), err)
	}
	want = sumHeader + "1 get " + shaB + "\n2 get " + shaB + "\n"
	if got := string(s.Bytes()); got != want {
		t.Errorf("after force:\n%s\nwant:\n%s", got, want)
	}
}

func states(cs []SumChange) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Script+":"+c.State())
	}
	return strings.Join(out, " ")
}

func TestWriteSumAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "scripts.sum")
	s := &Sum{Entries: []SumEntry{{Version: 1, Script: "get", SHA: shaA}}}
	if err := WriteSum(path, s); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Entries = append(s.Entries, SumEntry{Version: 2, Script: "get", SHA: shaB})
	if err := WriteSum(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSum(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 2 || got.Entries[1].SHA != shaB {
		t.Errorf("read back %+v", got.Entries)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode not kept: %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	// Writing into a missing folder fails and leaves nothing.
	if err := WriteSum(filepath.Join(dir, "nope", "scripts.sum"), s); err == nil {
		t.Error("WriteSum into a missing folder succeeded")
	}
	if _, err := ReadSum(filepath.Join(dir, "missing.sum")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadSum(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestCheckSum(t *testing.T) {
	get := &Script{Name: "get", File: "get.lua", Path: "lua/get.lua", SHA: shaA}
	put := &Script{Name: "put", File: "put.lua", Path: "lua/put.lua", SHA: shaC}
	ledger := func(lines string) *Sum {
		s, err := ParseSum("scripts.sum", []byte(lines))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name string
		m    *Manifest
		s    *Sum
		want []string
	}{
		{"ok", testManifest(1, get, put), ledger("1 get " + shaA + "\n1 put " + shaC + "\n"), nil},
		{"ok with history", testManifest(2, get), ledger("1 get " + shaB + "\n2 get " + shaA + "\n"), nil},
		{"no ledger", testManifest(1, get), nil, []string{"scripts.sum: not found: run 'scriptctl sum' to record version 1"}},
		{"version not recorded", testManifest(2, get), ledger("1 get " + shaA + "\n"), []string{"scripts.sum: no entry for script get in version 2: run 'scriptctl sum' to record it"}},
		{"script added", testManifest(1, get, put), ledger("1 get " + shaA + "\n"), []string{"scripts.sum: no entry for script put in version 1, which is already released (immutable): bump version in manifest.yaml, then run 'scriptctl sum'"}},
		{"body changed", testManifest(1, get, put), ledger("# h\n1 get " + shaB + "\n1 put " + shaC + "\n"), []string{
			"lua/get.lua: changed since version 1 was released (scripts.sum:2 records " + shaB + ", the file is " + shaA + "): bump version in manifest.yaml, then run 'scriptctl sum'",
		}},
		{"script removed", testManifest(1, get), ledger("1 get " + shaA + "\n1 put " + shaC + "\n"), []string{
			"scripts.sum:2: version 1 records script put, which the manifest no longer declares: bump version in manifest.yaml, then run 'scriptctl sum'",
		}},
		{"version went down", testManifest(1, get), ledger("1 get " + shaA + "\n2 get " + shaB + "\n"), []string{
			"manifest.yaml: version: version 1 is older than version 2, the latest released in scripts.sum: versions only go up",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range CheckSum(tt.m, tt.s) {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestRepositorySum checks the committed scripts.sum against the bundled
// scripts: it must record the manifest's current version exactly.
func TestRepositorySum(t *testing.T) {
	m, err := Load(filepath.Join("..", "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSum(m.SumPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range CheckSum(m, s) {
		t.Error(e)
	}
}
