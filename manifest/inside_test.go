package manifest

import (
	"errors"
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
