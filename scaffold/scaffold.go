// Package scaffold writes the files of a new scriptctl repository (scriptctl
// init) and adds a scenario or a script to an existing one (scriptctl new).
// It owns the text of those files and the edit that registers a new
// script in manifest.yaml, keeping the manifest's comments and layout. It
// does not validate scripts or run checks; commands do.
package scaffold

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/atomicfile"
	"github.com/scriptctl/scriptctl/manifest"
)

// yamlScalar writes s as a YAML scalar that reads back as the string s:
// quoted only when plain it would be something else ("001", "true").
func yamlScalar(s string) string {
	b, err := yaml.Marshal(s)
	if err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// ExistsError is returned when files to be written already exist and Force
// is not set. Nothing was written.
type ExistsError struct {
	Dir   string
	Files []string // relative to Dir, sorted
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already has %s: not overwriting", e.Dir, strings.Join(e.Files, ", "))
}

// ErrExists is matched by errors.Is for an *ExistsError.
var ErrExists = errors.New("scaffold: file exists")

// Is reports whether target is ErrExists.
func (e *ExistsError) Is(target error) bool { return target == ErrExists }

// InitOptions configure Init.
type InitOptions struct {
	Dir     string   // the repository's folder; created when missing
	Library string   // the manifest's library name; default from Dir's name
	Targets []string // the manifest's targets; default [redis-7.0]
	Force   bool     // overwrite existing files
	// Version is the scriptctl version the CI files install: a release
	// (v1.2.3) or "" for latest.
	Version string
}

// file is one file to write, Path relative to the repository's folder.
type file struct {
	Path string
	Data []byte
}

// Init writes a working repository into o.Dir: manifest.yaml with one script
// and one caller, the script, a scenario and its negative control, the
// scripts.sum that records version 1, a GitHub Actions workflow, a GitLab CI
// file and a README. It returns the paths written, relative to o.Dir. When
// one of them exists and o.Force is not set it returns an *ExistsError and
// writes nothing.
func Init(o InitOptions) ([]string, error) {
	if o.Library == "" {
		o.Library = LibraryFromDir(o.Dir)
	}
	if !IsLibraryName(o.Library) {
		return nil, fmt.Errorf("invalid --library %q: use letters, digits and _", o.Library)
	}
	if len(o.Targets) == 0 {
		o.Targets = []string{"redis-7.0"}
	}
	if o.Version == "" {
		o.Version = "latest"
	}
	// The action is used at the release's tag, or main for latest.
	ref := o.Version
	if ref == "latest" {
		ref = "main"
	}
	files := []file{
		{"manifest.yaml", manifestYAML(o.Library, o.Targets)},
		{"lua/release.lua", []byte(releaseLua)},
		{"lua_test/release.yaml", []byte(scenarioReleaseYAML)},
		{"lua_test/release_control.yaml", []byte(scenarioReleaseControlYAML)},
		{"lua_test/controls/release_unconditional.lua", []byte(releaseUnconditionalLua)},
		{".github/workflows/scriptctl.yml", githubWorkflow(ref, o.Version)},
		{".gitlab-ci.yml", gitlabCI(o.Version)},
		{"README.md", readme(o.Library)},
	}
	script := files[1].Data
	sum := &manifest.Sum{Entries: []manifest.SumEntry{{Version: 1, Script: "release", SHA: manifest.SHA1Hex(script)}}}
	files = append(files, file{manifest.SumFile, sum.Bytes()})
	if err := writeFiles(o.Dir, files, o.Force); err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	return paths, nil
}

// LibraryFromDir derives a library name from a folder's name: letters,
// digits and _ kept, anything else turned into _; "scripts" when nothing
// is left.
func LibraryFromDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	var b strings.Builder
	for _, r := range filepath.Base(abs) {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		return "scripts"
	}
	return name
}

// IsLibraryName reports whether s is a valid manifest library name.
func IsLibraryName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}

// writeFiles writes files below dir. Existing files are refused (naming all
// of them) unless force; a failure part way removes what it wrote, so the
// folder is either complete or as it was.
func writeFiles(dir string, files []file, force bool) error {
	if !force {
		var exist []string
		for _, f := range files {
			if _, err := os.Lstat(filepath.Join(dir, f.Path)); err == nil {
				exist = append(exist, f.Path)
			}
		}
		if len(exist) > 0 {
			slices.Sort(exist)
			return &ExistsError{Dir: dir, Files: exist}
		}
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := atomicfile.Write(path, f.Data); err != nil {
			for _, w := range written {
				os.Remove(w)
			}
			return err
		}
		written = append(written, path)
	}
	return nil
}
