package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		t.Helper()
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	touch := func(parts ...string) string {
		t.Helper()
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.WriteFile(p, []byte("schema: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// repo/.git, repo/manifest.yaml, repo/lua/deep; above/manifest.yaml
	// outside a repository; nogit/a/b with a manifest.yaml above it.
	mk("repo", ".git")
	deep := mk("repo", "lua", "deep")
	repoManifest := touch("repo", "manifest.yaml")
	mk("repo", "sub", "manifest.yaml") // a folder of that name is not a manifest
	inner := mk("outer", "repo2", "x")
	mk("outer", "repo2", ".git")
	touch("outer", "manifest.yaml") // above repo2's root: not found from inside it
	nogit := mk("nogit", "a", "b")
	nogitManifest := touch("nogit", "manifest.yaml")
	worktree := mk("wt", "pkg")
	touch("wt", ".git") // a worktree's .git is a file

	t.Run("in the folder itself", func(t *testing.T) {
		got, err := Find(filepath.Join(root, "repo"))
		if err != nil || got != repoManifest {
			t.Fatalf("Find = %q, %v; want %q", got, err, repoManifest)
		}
	})
	t.Run("from a subfolder", func(t *testing.T) {
		got, err := Find(deep)
		if err != nil || got != repoManifest {
			t.Fatalf("Find = %q, %v; want %q", got, err, repoManifest)
		}
	})
	t.Run("a folder named manifest.yaml is skipped", func(t *testing.T) {
		got, err := Find(filepath.Join(root, "repo", "sub"))
		if err != nil || got != repoManifest {
			t.Fatalf("Find = %q, %v; want %q", got, err, repoManifest)
		}
	})
	t.Run("stops at the repository root", func(t *testing.T) {
		got, err := Find(inner)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("Find = %q, %v; want a NotFoundError", got, err)
		}
		want := []string{inner, filepath.Join(root, "outer", "repo2")}
		if !slices.Equal(nf.Searched, want) || nf.RepoRoot != want[1] {
			t.Fatalf("searched %q (root %q), want %q", nf.Searched, nf.RepoRoot, want)
		}
	})
	t.Run("a worktree's .git file is a root too", func(t *testing.T) {
		_, err := Find(worktree)
		var nf *NotFoundError
		if !errors.As(err, &nf) || nf.RepoRoot != filepath.Join(root, "wt") {
			t.Fatalf("err = %v, want a NotFoundError stopping at %s", err, filepath.Join(root, "wt"))
		}
	})
	t.Run("outside a repository, up the parents", func(t *testing.T) {
		got, err := Find(nogit)
		if err != nil || got != nogitManifest {
			t.Fatalf("Find = %q, %v; want %q", got, err, nogitManifest)
		}
	})
}
