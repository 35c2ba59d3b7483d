// Package atomicfile writes a file so that a reader sees the old content or
// the new, never half of it: a temporary file in the same folder, synced,
// then renamed over the path. It does not lock: two writers race, and the
// last rename wins.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path atomically, creating missing folders. An
// existing file keeps its permissions; a new one gets 0644.
func Write(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
