package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is the reason a path from a manifest (or a scenario next to
// it) is refused: after symbolic links are followed it leads out of the
// manifest's folder.
var ErrOutside = errors.New("leads outside the manifest's folder")

// Inside resolves rel (a slash-separated path as written in a manifest or
// scenario) against root and returns the path to open. It refuses, before
// anything is opened, a path that leaves root: an absolute path, a ".."
// that climbs above it, or a symbolic link anywhere on the way that points
// out of it. root itself may be reached through links (a checkout under a
// linked home folder). A path that does not exist is returned as joined, so
// opening it reports the missing file.
func Inside(root, rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("%s is an absolute path: write it relative to the manifest", rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s %w", rel, ErrOutside)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return filepath.Join(root, clean), nil // the folder itself is unreadable: opening says so
	}
	return inside(root, realRoot, rel)
}

// inside is Inside with root's real path (links followed) already known:
// a manifest resolves every script from one folder.
func inside(root, realRoot, rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("%s is an absolute path: write it relative to the manifest", rel)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s %w", rel, ErrOutside)
	}
	joined := filepath.Join(root, clean)
	real, err := filepath.EvalSymlinks(joined)
	if errors.Is(err, fs.ErrNotExist) {
		// A dangling link still must not point out; a missing file is
		// reported by whoever opens it.
		if target, lerr := os.Readlink(joined); lerr == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(joined), target)
			}
			if !within(realRoot, filepath.Clean(target)) && !within(root, filepath.Clean(target)) {
				return "", fmt.Errorf("%s is a link that %w", rel, ErrOutside)
			}
		}
		return joined, nil
	}
	if err != nil {
		return joined, nil
	}
	if !within(realRoot, real) {
		return "", fmt.Errorf("%s %w (it resolves to %s)", rel, ErrOutside, real)
	}
	return joined, nil
}

func within(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// InsideFrom is Inside for file written relative to the file at from (a
// scenario's control, a model's script), which lies somewhere below root.
func InsideFrom(root, from, file string) (string, error) {
	if filepath.IsAbs(file) || strings.HasPrefix(file, "/") {
		return Inside(root, file) // refused, with the usual words
	}
	absRoot, err1 := filepath.Abs(root)
	target, err2 := filepath.Abs(filepath.Join(filepath.Dir(from), filepath.FromSlash(file)))
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("%s %w", file, ErrOutside)
	}
	rel, err := filepath.Rel(absRoot, target)
	if err != nil {
		return "", fmt.Errorf("%s %w", file, ErrOutside)
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s %w", file, ErrOutside)
	}
	if _, err := Inside(absRoot, filepath.ToSlash(rel)); err != nil {
		return "", err // names the path from root
	}
	return filepath.Join(filepath.Dir(from), filepath.FromSlash(file)), nil
}

// Discovered checks files found by listing a folder below root (lua_test/
// scenarios, lua_test/models/ models): each must stay inside root once
// links are followed. It returns the refused ones, each with why.
func Discovered(root string, paths []string) Errors {
	var out Errors
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err == nil {
			_, err = Inside(root, filepath.ToSlash(rel))
		}
		if err != nil {
			out = append(out, &Error{File: p, Line: 1, Col: 1, Msg: err.Error()})
		}
	}
	return out
}
