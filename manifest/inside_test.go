package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptFileStaysInside: a script path that climbs out with .., or a
// link that points out of the manifest's folder, is refused with its
// position before the file is opened; links inside the folder work.
func TestScriptFileStaysInside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.lua")
	if err := os.WriteFile(secret, []byte("return 'TOPSECRET'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file string
		link       string // when set, file is a link to this target
		want       string // "" for success
	}{
		{"dotdot", "../../../../etc/passwd", "", `manifest.yaml:11:11: scripts.put.file: ../../../../etc/passwd leads outside the manifest's folder`},
		{"dotdot inside", "sub/../put.lua", "", ""},
		{"link out", "linked.lua", secret, "scripts.put.file: linked.lua leads outside the manifest's folder (it resolves to "},
		{"link to /etc/shadow", "shadow.lua", "/etc/shadow", "scripts.put.file: shadow.lua "},
		{"dangling link out", "gone.lua", filepath.Join(outside, "missing.lua"), "scripts.put.file: gone.lua is a link that leads outside the manifest's folder"},
		{"link inside", "alias.lua", "put.lua", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := strings.Replace(validManifest, "file: put.lua", "file: "+tc.file, 1)
			dir := writeTree(t, defaultFiles())
			if tc.link != "" {
				if err := os.Symlink(tc.link, filepath.Join(dir, tc.file)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "manifest.yaml"), []byte(y), 0o644); err != nil {
				t.Fatal(err)
			}
			wd, _ := os.Getwd()
			if err := os.Chdir(dir); err != nil {
				t.Fatal(err)
			}
			defer os.Chdir(wd)
			_, err := Load("manifest.yaml")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load error %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "TOPSECRET") || strings.Contains(err.Error(), "root:") {
				t.Fatalf("the error shows the outside file's content: %v", err)
			}
		})
	}
}

// InsideFrom resolves a path written relative to a file below root (a
// scenario's control, a model's script) and refuses one that leaves root,
// whether root and the file are given relative or absolute.
func TestInsideFrom(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	if err := os.MkdirAll(filepath.Join(root, "models", "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(root, "lua.lua"), filepath.Join(root, "models", "v1", "a.lua"), filepath.Join(base, "out.lua")} {
		if err := os.WriteFile(f, []byte("return 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "out.lua"), filepath.Join(root, "models", "out.lua")); err != nil {
		t.Fatal(err)
	}
	from := filepath.Join(root, "models", "m.yaml")
	t.Chdir(base)
	for _, tc := range []struct {
		root, from, file string
		ok               bool
	}{
		{root, from, "v1/a.lua", true},
		{root, from, "../lua.lua", true},
		{"repo", filepath.Join("repo", "models", "m.yaml"), "../lua.lua", true},
		{"repo", from, "v1/a.lua", true}, // root relative, from absolute
		{root, from, "../../out.lua", false},
		{root, from, "out.lua", false}, // a link out
		{root, from, "/etc/passwd", false},
		{"repo", filepath.Join("repo", "models", "m.yaml"), "../../out.lua", false},
	} {
		got, err := InsideFrom(tc.root, tc.from, tc.file)
		if tc.ok {
			if err != nil {
				t.Errorf("%s from %s (root %s): %v", tc.file, tc.from, tc.root, err)
			} else if _, serr := os.Stat(got); serr != nil {
				t.Errorf("%s: resolved to %s, which does not open: %v", tc.file, got, serr)
			}
			continue
		}
		if !errors.Is(err, ErrOutside) && !strings.Contains(fmt.Sprint(err), "absolute path") {
			t.Errorf("%s from %s (root %s): got %q, %v; want refused", tc.file, tc.from, tc.root, got, err)
		}
	}
}
