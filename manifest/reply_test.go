package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func replyManifest(t *testing.T, script string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.lua"), []byte("return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "manifest.yaml")
	return path, []byte("schema: 1\nlibrary: lib\nversion: 1\nscripts:\n  a:\n    file: a.lua\n    keys: [k]\n    args: []\n" + script)
}

func TestReplyContract(t *testing.T) {
	path, data := replyManifest(t, "    reply: '[\"ok\", n: integer] | error(\"ERR bad\")'\n    idempotent: true\nbindings:\n  go: gen/lib\n")
	m, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Script("a")
	if s.Reply == nil || s.Reply.String() != `["ok", n: integer] | error("ERR bad")` || s.ReplyLine != 9 || !s.Idempotent {
		t.Errorf("script a: reply %v line %d idempotent %v", s.Reply, s.ReplyLine, s.Idempotent)
	}
	if m.Bindings["go"] != "gen/lib" || m.BindingsLine != 11 {
		t.Errorf("bindings %v line %d", m.Bindings, m.BindingsLine)
	}
}

func TestReplyContractErrors(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"    reply: integer | strng\n", "manifest.yaml:9:22: scripts.a.reply: invalid reply type: unknown type \"strng\""},
		{"    reply: '[integer'\n", "manifest.yaml:9:21: scripts.a.reply: invalid reply type: want \"]\" to close the tuple"},
		{"    reply: true\n", "manifest.yaml:9:12: scripts.a.reply: must be a reply type written as a string (quote it), not bool true"},
		{"    reply: 042\n", "manifest.yaml:9:12: scripts.a.reply: invalid reply type: invalid integer literal 042"},
		{"    reply: |\n      integer |\n", "manifest.yaml:9:12: scripts.a.reply: invalid reply type: want a type, found end of type (column 11 of the type)"},
		{"    idempotent: yes\n", "manifest.yaml:9:17: scripts.a.idempotent: must be true or false"},
		{"bindings:\n  rust: x\n", "manifest.yaml:10:3: bindings.rust: unknown binding language \"rust\": want one of go, ts, python"},
		{"bindings:\n  go: ../x\n", "manifest.yaml:10:7: bindings.go: ../x leads outside the manifest's folder"},
	} {
		path, data := replyManifest(t, tc.script)
		_, err := Parse(path, data)
		if err == nil {
			t.Errorf("%q: no error", tc.script)
			continue
		}
		got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q:\n got %s\nwant %s", tc.script, got, tc.want)
		}
	}
}
