package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// TestControlStaysInside: a scenario's control file that climbs out of the
// scenario's folder with ".." or through a symbolic link is refused with
// its line, before it is opened; one inside is read.
func TestControlStaysInside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.lua")
	if err := os.WriteFile(secret, []byte("return 'TOPSECRET'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "lua_test")
	if err := os.MkdirAll(filepath.Join(dir, "controls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "controls", "ok.lua"), []byte("return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "controls", "link.lua")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{filepath.ToSlash(rel), "leads outside the manifest's folder"},
		{"controls/link.lua", "leads outside the manifest's folder (it resolves to"},
		{"controls/ok.lua", ""},
	} {
		path := filepath.Join(dir, "s.yaml")
		body := "name: s\ncaller: c\ncontrol:\n  acquire: " + tc.file + "\nsteps:\n  - do: [PING]\n    expect: {reply: PONG}\n    regression: {reply: PONG}\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if tc.want == "" {
			if err != nil || string(s.Controls[0].Source) != "return 1\n" {
				t.Errorf("%s: %v", tc.file, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), path+":4") || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "TOPSECRET") {
			t.Errorf("%s: error %v, want %q at line 4", tc.file, err, tc.want)
		}
	}
}

// TestDiscoverRefusesLinksOut: a lua_test/*.yaml that is a link out of the
// manifest's folder is refused by discovery, before it is read; a link
// that stays inside is found.
func TestDiscoverRefusesLinksOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(outside, []byte("name: TOPSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "lua_test", "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(root, "lua_test", "more", "real.yaml")
	if err := os.WriteFile(inside, []byte("steps: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(inside, filepath.Join(root, "lua_test", "a.yaml")); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Path: filepath.Join(root, "manifest.yaml"), Dir: root}
	if paths, err := Discover(m); err != nil || len(paths) != 1 {
		t.Fatalf("a link inside: %v, %v", paths, err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "lua_test", "b.yaml")); err != nil {
		t.Fatal(err)
	}
	paths, err := Discover(m)
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 1 || !strings.HasSuffix(errs[0].File, "b.yaml") ||
		!strings.Contains(errs[0].Msg, "leads outside the manifest's folder") || strings.Contains(err.Error(), "TOPSECRET") {
		t.Fatalf("a link out: paths %v, err %v", paths, err)
	}
}
