package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultFile is the manifest's file name when -m is not given.
const DefaultFile = "manifest.yaml"

// NotFoundError is Find's error when no folder searched holds a manifest.
type NotFoundError struct {
	Searched []string // the folders searched, from the start folder up
	RepoRoot string   // the folder with .git where the search stopped; "" at the filesystem root
}

func (e *NotFoundError) Error() string {
	where := "the filesystem root"
	if e.RepoRoot != "" {
		where = e.RepoRoot + ", the repository root (it holds .git)"
	}
	return fmt.Sprintf("no %s in the current folder or its parents up to %s; searched %s",
		DefaultFile, where, strings.Join(e.Searched, ", "))
}

// Find looks for manifest.yaml the way git looks for .git: in dir, then in
// each parent folder. It stops at the first folder that holds one, and
// after searching a folder that holds .git (a directory, or the file a git
// worktree has): that folder is the repository's root, and a manifest above
// it belongs to another project. Otherwise it stops at the filesystem root.
// dir is made absolute first; the path returned is absolute. A
// manifest.yaml that exists but cannot be examined (permission denied) is
// returned too, so that loading it reports why.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	nf := &NotFoundError{}
	for {
		nf.Searched = append(nf.Searched, dir)
		path := filepath.Join(dir, DefaultFile)
		st, err := os.Stat(path)
		switch {
		case err == nil && !st.IsDir():
			return path, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return path, nil
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			nf.RepoRoot = dir
			return "", nf
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nf
		}
		dir = parent
	}
}
