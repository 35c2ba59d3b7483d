package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/scriptctl/scriptctl/internal/safefile"
)

// SumFile is the name of the release ledger, kept beside the manifest.
const SumFile = "scripts.sum"

// sumHeader is the comment scriptctl writes at the top of scripts.sum.
const sumHeader = "# scripts.sum: the SHA1 of every script of every released version.\n" +
	"# Written by 'scriptctl sum'; a released version is immutable. Do not edit.\n"

// SumPath returns the path of the manifest's scripts.sum: beside the manifest.
func (m *Manifest) SumPath() string { return filepath.Join(m.Dir, SumFile) }

// SumEntry is one line of scripts.sum: the SHA1 of a script's exact file
// bytes in a released version.
type SumEntry struct {
	Version int
	Script  string
	SHA     string // lowercase hex SHA1
	Line    int    // line in the file it was read from; 0 when not read
}

func (e SumEntry) String() string { return fmt.Sprintf("%d %s %s", e.Version, e.Script, e.SHA) }

// Sum is the release ledger scripts.sum: one line per released version and
// script, "<version> <script> <sha1>", sorted by version then script. Lines
// starting with # and blank lines are comments. History is kept: a new
// version adds lines, and the lines of a released version never change
// (unless forced).
type Sum struct {
	Path    string // as given to ReadSum or ParseSum
	Entries []SumEntry
}

// MaxSumSize bounds a scripts.sum file: a line is about 120 bytes, so this
// holds over half a million lines.
const MaxSumSize = 64 << 20

// ReadSum reads and parses the ledger at path. When the file does not exist
// the error matches fs.ErrNotExist; when it is malformed it is an Errors value
// naming every bad line.
func ReadSum(path string) (*Sum, error) {
	data, err := safefile.Read(path, MaxSumSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, Errors{{File: path, Msg: "cannot read: " + unwrapPath(err).Error(), Err: err}}
	}
	return ParseSum(path, data)
}

// ParseSum parses ledger data as if read from path. Every malformed line is
// reported with its line and column.
func ParseSum(path string, data []byte) (*Sum, error) {
	s := &Sum{Path: path}
	var errs Errors
	bad := func(line, col int, format string, args ...any) {
		errs = append(errs, &Error{File: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
	}
	seen := map[[2]string]int{}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, text := range lines {
		n := i + 1
		text = strings.TrimSuffix(text, "\r")
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		fields, cols := splitFields(text)
		if len(fields) != 3 {
			bad(n, 1, "want \"<version> <script> <sha1>\", got %d field(s)", len(fields))
			continue
		}
		e := SumEntry{Script: fields[1], SHA: fields[2], Line: n}
		ok := true
		if !isDecimal(fields[0]) {
			bad(n, cols[0], "version %q is not a positive integer", fields[0])
			ok = false
		} else if v, err := strconv.ParseInt(fields[0], 10, 32); err != nil {
			bad(n, cols[0], "version %s is too large", fields[0])
			ok = false
		} else {
			e.Version = int(v)
		}
		if !isScriptName(fields[1]) {
			bad(n, cols[1], "invalid script name %q", fields[1])
			ok = false
		}
		if !isSHA1(fields[2]) {
			bad(n, cols[2], "%q is not a SHA1 (40 lowercase hex digits)", fields[2])
			ok = false
		}
		if !ok {
			continue
		}
		key := [2]string{fields[0], fields[1]}
		if first, dup := seen[key]; dup {
			bad(n, 1, "duplicate entry for version %d of script %s (first at line %d)", e.Version, e.Script, first)
			continue
		}
		seen[key] = n
		s.Entries = append(s.Entries, e)
	}
	if !utf8.Valid(data) {
		bad(1, 1, "not valid UTF-8")
	}
	if len(errs) > 0 {
		return nil, errs
	}
	s.sort()
	return s, nil
}

// splitFields splits a line on spaces and tabs and returns the 1-based
// column of each field.
func splitFields(line string) (fields []string, cols []int) {
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		fields = append(fields, line[i:j])
		cols = append(cols, i+1)
		i = j
	}
	return fields, cols
}

func isSHA1(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

func (s *Sum) sort() {
	slices.SortStableFunc(s.Entries, func(a, b SumEntry) int {
		if a.Version != b.Version {
			return a.Version - b.Version
		}
		return strings.Compare(a.Script, b.Script)
	})
}

// Bytes renders the ledger: a comment header, then the entries sorted by
// version then script, one per line.
func (s *Sum) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString(sumHeader)
	c := &Sum{Entries: slices.Clone(s.Entries)}
	c.sort()
	for _, e := range c.Entries {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Version returns the entries recorded for version v, sorted by script.
func (s *Sum) Version(v int) []SumEntry {
	var out []SumEntry
	if s == nil {
		return nil
	}
	for _, e := range s.Entries {
		if e.Version == v {
			out = append(out, e)
		}
	}
	return out
}

// Latest returns the highest version the ledger records, or 0.
func (s *Sum) Latest() int {
	v := 0
	if s == nil {
		return 0
	}
	for _, e := range s.Entries {
		v = max(v, e.Version)
	}
	return v
}

// SumChange is what recording the manifest's current version does to one
// line of the ledger.
type SumChange struct {
	Script string
	File   string // the script's file as written in the manifest; "" for a removed line
	Old    string // SHA1 recorded before; "" when the line is new
	New    string // SHA1 recorded now; "" when the line is removed
}

// State is "added", "unchanged", "changed" or "removed".
func (c SumChange) State() string {
	switch {
	case c.Old == "":
		return "added"
	case c.New == "":
		return "removed"
	case c.Old == c.New:
		return "unchanged"
	}
	return "changed"
}

// ErrReleased is matched by errors.Is when recording would change the lines
// of a version the ledger already records.
var ErrReleased = errors.New("manifest: version already released")

// ReleasedError reports that scripts.sum already records the manifest's
// version with different scripts or bytes: a released version is immutable.
type ReleasedError struct {
	Path    string // the ledger
	Version int
	Changes []SumChange // the lines that would change (state changed, added or removed)
}

func (e *ReleasedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "version %d is already released in %s and is immutable:", e.Version, e.Path)
	for _, c := range e.Changes {
		switch c.State() {
		case "changed":
			fmt.Fprintf(&b, "\n  %s: %s changed (recorded %s, now %s)", c.Script, c.File, c.Old, c.New)
		case "added":
			fmt.Fprintf(&b, "\n  %s: not in the released version (%s, %s)", c.Script, c.File, c.New)
		case "removed":
			fmt.Fprintf(&b, "\n  %s: released but no longer in the manifest", c.Script)
		}
	}
	return b.String()
}

func (e *ReleasedError) Unwrap() error { return ErrReleased }

// Record updates the ledger with the manifest's current version: one line per
// script with the SHA1 of its bytes. Lines of other versions are kept. When
// the ledger already records the version differently it returns a
// *ReleasedError and changes nothing, unless force is set, in which case the
// version's lines are replaced. The changes are returned in manifest order,
// removed lines last.
func (s *Sum) Record(m *Manifest, force bool) ([]SumChange, error) {
	old := map[string]string{}
	for _, e := range s.Version(m.Version) {
		old[e.Script] = e.SHA
	}
	var changes []SumChange
	differ := false
	for _, sc := range m.Scripts {
		c := SumChange{Script: sc.Name, File: sc.File, Old: old[sc.Name], New: sc.SHA}
		changes = append(changes, c)
		delete(old, sc.Name)
		if c.State() != "unchanged" {
			differ = true
		}
	}
	removed := make([]string, 0, len(old))
	for name := range old {
		removed = append(removed, name)
	}
	slices.Sort(removed)
	for _, name := range removed {
		changes = append(changes, SumChange{Script: name, Old: old[name]})
		differ = true
	}
	released := len(s.Version(m.Version)) > 0
	if released && differ && !force {
		re := &ReleasedError{Path: s.Path, Version: m.Version}
		for _, c := range changes {
			if c.State() != "unchanged" {
				re.Changes = append(re.Changes, c)
			}
		}
		return changes, re
	}
	kept := s.Entries[:0:0]
	for _, e := range s.Entries {
		if e.Version != m.Version {
			kept = append(kept, e)
		}
	}
	for _, sc := range m.Scripts {
		kept = append(kept, SumEntry{Version: m.Version, Script: sc.Name, SHA: sc.SHA})
	}
	s.Entries = kept
	s.sort()
	return changes, nil
}

// WriteSum writes the ledger to path atomically: a temporary file in the same
// folder, synced, then renamed over path. Either the old or the new ledger is
// on disk, never a half-written one. An existing file's permissions are kept.
func WriteSum(path string, s *Sum) (err error) {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(s.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CheckSum compares the manifest's scripts with the ledger and returns every
// problem: no line for the current version, a script whose bytes changed
// while version did not (naming the file), a released script the manifest no
// longer declares, and a version older than the latest released one. s may
// be nil when the ledger does not exist. An empty result means the ledger
// records exactly the current scripts.
func CheckSum(m *Manifest, s *Sum) []*Error {
	path := m.SumPath()
	if s != nil && s.Path != "" {
		path = s.Path
	}
	if s == nil {
		return []*Error{{File: path, Msg: fmt.Sprintf("not found: run 'scriptctl sum' to record version %d", m.Version)}}
	}
	var out []*Error
	recorded := map[string]SumEntry{}
	for _, e := range s.Version(m.Version) {
		recorded[e.Script] = e
	}
	released := len(recorded) > 0
	if latest := s.Latest(); latest > m.Version {
		out = append(out, &Error{File: m.Path, Field: "version", Msg: fmt.Sprintf("version %d is older than version %d, the latest released in %s: versions only go up", m.Version, latest, path)})
	}
	for _, sc := range m.Scripts {
		e, ok := recorded[sc.Name]
		delete(recorded, sc.Name)
		switch {
		case !ok && released:
			// sum refuses to add a script to a released version.
			out = append(out, &Error{File: path, Msg: fmt.Sprintf("no entry for script %s in version %d, which is already released (immutable): bump version in %s, then run 'scriptctl sum'", sc.Name, m.Version, m.Path)})
		case !ok:
			out = append(out, &Error{File: path, Msg: fmt.Sprintf("no entry for script %s in version %d: run 'scriptctl sum' to record it", sc.Name, m.Version)})
		case e.SHA != sc.SHA:
			out = append(out, &Error{File: sc.Path, Msg: fmt.Sprintf("changed since version %d was released (%s:%d records %s, the file is %s): bump version in %s, then run 'scriptctl sum'", m.Version, path, e.Line, e.SHA, sc.SHA, m.Path)})
		}
	}
	rest := make([]SumEntry, 0, len(recorded))
	for _, e := range recorded {
		rest = append(rest, e)
	}
	slices.SortFunc(rest, func(a, b SumEntry) int { return strings.Compare(a.Script, b.Script) })
	for _, e := range rest {
		out = append(out, &Error{File: path, Line: e.Line, Msg: fmt.Sprintf("version %d records script %s, which the manifest no longer declares: bump version in %s, then run 'scriptctl sum'", m.Version, e.Script, m.Path)})
	}
	return out
}
