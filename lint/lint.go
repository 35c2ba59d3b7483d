// Package lint owns the static analysis of Redis Lua scripts: it parses a
// script the way Redis 7 would (gopher-lua's parser, shebang stripped, Lua 5.1
// rules), tracks values through locals, and reports what would break in a
// cluster or in Redis's Lua sandbox. Every rule is an Analyzer with a stable
// code, registered once. It does not run scripts (package verify does) and
// does not talk to Redis; manifest declarations arrive as a Decl.
package lint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/internal/safefile"
	"github.com/scriptctl/scriptctl/manifest"
)

// Severity of a diagnostic.
type Severity string

// Severities, from the most to the least severe.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	// Info is a suggestion (native-alternative): it is reported, but no
	// --fail-on level counts it.
	Info Severity = "info"
)

// AtLeast reports whether s is as severe as min or more. Info findings
// are never counted against --fail-on (which takes error or warning).
func (s Severity) AtLeast(min Severity) bool {
	switch min {
	case Warning:
		return s == Error || s == Warning
	case Info:
		return true
	}
	return s == Error
}

// ParseSeverity parses "error" or "warning".
func ParseSeverity(s string) (Severity, error) {
	switch Severity(s) {
	case Error, Warning:
		return Severity(s), nil
	}
	return "", fmt.Errorf("lint: unknown severity %q: want error or warning", s)
}

// Pos is a position in a script. Line and Col are 1-based; Col counts
// Unicode characters. Col is 0 when only the line is known.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Diagnostic is one finding, reported once at the position of its cause.
type Diagnostic struct {
	Pos      Pos
	Code     string
	Severity Severity
	Message  string
	// Related are the call paths through which the cause is reached when
	// it lies in a local function: one per path, at the outermost call.
	Related []Related
	// also is a second place whose scriptctl:ignore comment silences the
	// finding: the helper's argument when a dynamic-key is reported at the
	// caller's expression. Zero when there is none.
	also Pos
}

// Related is another location of a finding: the call of a local function
// through which the finding's cause is reached.
type Related struct {
	Pos     Pos
	Message string // "reached from 12:3", "reached from 12:3, then 5:7"
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s %s: %s", d.Pos, d.Severity, d.Code, d.Message)
}

// Decl is what the manifest declares about one script.
type Decl struct {
	Script string   // the script's name in the manifest
	Keys   []string // names of KEYS[1], KEYS[2], ...
	Args   []string // names of ARGV[1], ARGV[2], ...
	Flags  []string // the manifest's flags for the script
	// FunctionsOnly is set when the script is deployed only as a Function
	// (manifest deploy: functions): FCALL applies the manifest's flags, and
	// no EVAL runs the script, so it needs no shebang to carry them.
	FunctionsOnly bool
	// Targets are the server lines the manifest proves the script on
	// ("redis-7.0", "valkey-8.1"); nil means redis-7.0.
	Targets []string
	// Callers are the manifest's callers of the script; HasReply reports
	// whether the manifest gives it a reply contract (reply:).
	Callers  []string
	HasReply bool
}

// File is one script to lint.
type File struct {
	// Path is where the script is read from when Source is nil, and the
	// name diagnostics carry (use a path relative to the repository).
	Path   string
	Source []byte
	// Decl is the manifest's declaration; nil for a file the manifest does
	// not list, which gets every rule that does not need a manifest.
	Decl *Decl
}

// Config is one lint run.
type Config struct {
	Files []File
	// Profile turns on the rules that are off by default for one kind of
	// deployment: "strict-proxy" (see Profiles). Empty runs the default rules.
	Profile string
	// Only, when not empty, limits the run to these rule codes (what a
	// pre-flight gate needs), default-off rules of the profile included.
	Only []string
	// StrictKeys makes the key rules errors (dynamic-key): a key not passed
	// in KEYS is refused, as by the proxies that demand declared keys
	// (manifest strict_keys: true, --strict-keys). Without it such a key
	// is a warning: a standalone server runs the script, and a cluster
	// node does while the key hashes to the declared keys' slot. The
	// strict-proxy profile implies it.
	StrictKeys bool
}

// strictKeys reports whether the run treats the key rules as errors.
func (cfg Config) strictKeys() bool { return cfg.StrictKeys || cfg.Profile == "strict-proxy" }

// Profiles lists the known values of Config.Profile.
var Profiles = []string{"strict-proxy"}

// ErrProfile is matched by errors.Is for an unknown Config.Profile.
var ErrProfile = errors.New("lint: unknown profile")

// ErrUnreadable is matched by errors.Is when a file cannot be linted at all
// (missing, unreadable, binary).
var ErrUnreadable = errors.New("lint: unreadable input")

// InputError is a file that cannot be linted.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string        { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *InputError) Unwrap() error        { return e.Err }
func (e *InputError) Is(target error) bool { return target == ErrUnreadable }

// Run lints every file of cfg and returns the diagnostics sorted by file,
// line, column and code. The error is an *InputError for a file that cannot
// be read; the context stops the run between files.
func Run(ctx context.Context, cfg Config) ([]Diagnostic, error) {
	if cfg.Profile != "" && !slices.Contains(Profiles, cfg.Profile) {
		return nil, fmt.Errorf("%w %q: want %s", ErrProfile, cfg.Profile, strings.Join(Profiles, ", "))
	}
	var out []Diagnostic
	for _, f := range cfg.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := f.Source
		if src == nil {
			data, err := safefile.Read(f.Path, manifest.MaxScriptSize)
			if err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return nil, &InputError{Path: f.Path, Err: err}
			}
			src = data
		}
		if bytes.IndexByte(src, 0) >= 0 {
			return nil, &InputError{Path: f.Path, Err: errors.New("binary file (contains a NUL byte), not a Lua script")}
		}
		if !utf8.Valid(src) {
			return nil, &InputError{Path: f.Path, Err: errors.New("not valid UTF-8, not a Lua script")}
		}
		out = append(out, source(f.Path, src, f.Decl, cfg)...)
	}
	Sort(out)
	return out, nil
}

// Source lints one script held in memory with the default rules. It never
// fails: a script that does not parse yields a syntax diagnostic.
func Source(path string, src []byte, decl *Decl) []Diagnostic {
	return source(path, src, decl, Config{})
}

func source(path string, src []byte, decl *Decl, cfg Config) []Diagnostic {
	loadRules()
	var rules []*rule
	parse, flow := false, false
	for _, a := range registry {
		r := a.(*rule)
		if r.needsManifest && decl == nil {
			continue
		}
		if r.profile != "" && r.profile != cfg.Profile {
			continue // off by default
		}
		if len(cfg.Only) > 0 && !slices.Contains(cfg.Only, r.code) {
			continue
		}
		rules = append(rules, r)
		parse = parse || !r.linesOnly
		flow = flow || !r.withoutParse
	}
	// Only the rules that need no flow analysis (deploy's shebang-flags
	// pre-flight): the costly part is left out, and the parse too when
	// they read only lines.
	p := newPass(path, src, decl, parse, flow)
	p.Profile = cfg.Profile
	var out []Diagnostic
	for _, r := range rules {
		if p.Facts == nil && !r.withoutParse {
			continue // the script does not parse: only syntax and the line-based rules run
		}
		ds := r.Analyze(p)
		if sev := r.severityIn(cfg); sev != r.severity {
			for i := range ds {
				ds[i].Severity = sev
			}
		}
		out = append(out, ds...)
	}
	out = p.suppress(out)
	Sort(out)
	return once(out)
}

// once merges the diagnostics of one cause, reached on several paths, into
// one that lists every path. A cause is a position and a code: when the
// paths word it differently (a helper's key reached as LPUSH from one call
// and as LPUSH/RPUSH from another), the message covers them all (see
// mergeMessages). Findings with no call path at one position and code but
// different messages are distinct causes a rule reports at one place
// (unused-key at 1:1 for KEYS[1] and for KEYS[3]) and stay apart. ds is
// sorted.
func once(ds []Diagnostic) []Diagnostic {
	out := ds[:0]
	var msgs [][]string // the distinct messages of each out[i]
	for _, d := range ds {
		if n := len(out); n > 0 && out[n-1].Pos == d.Pos && out[n-1].Code == d.Code &&
			(out[n-1].Message == d.Message || len(out[n-1].Related) > 0 || len(d.Related) > 0) {
			for _, r := range d.Related {
				if !slices.Contains(out[n-1].Related, r) {
					out[n-1].Related = append(out[n-1].Related, r)
				}
			}
			if !slices.Contains(msgs[n-1], d.Message) {
				msgs[n-1] = append(msgs[n-1], d.Message)
			}
			continue
		}
		out = append(out, d)
		msgs = append(msgs, []string{d.Message})
	}
	for i := range out {
		if len(msgs[i]) > 1 {
			out[i].Message = mergeMessages(msgs[i])
		}
		rel := out[i].Related
		sort.SliceStable(rel, func(a, b int) bool {
			if rel[a].Pos != rel[b].Pos {
				return rel[a].Pos.Line < rel[b].Pos.Line || rel[a].Pos.Line == rel[b].Pos.Line && rel[a].Pos.Col < rel[b].Pos.Col
			}
			return rel[a].Message < rel[b].Message
		})
	}
	return out
}

// mergeMessages words one finding from the messages its paths gave, in
// sorted order. Messages of the same words but a few are one message in
// which each differing word lists its variants: command names as their
// union ("LPUSH" and "LPUSH/RPUSH" give "LPUSH/RPUSH"), other words joined
// with "or" ("ARGV[1] or ARGV[2]"). Messages worded differently are kept
// whole, the first, then the others "on another path".
func mergeMessages(msgs []string) string {
	words := make([][]string, len(msgs))
	for i, m := range msgs {
		words[i] = strings.Split(m, " ")
		if len(words[i]) != len(words[0]) {
			return msgs[0] + " (on another path: " + strings.Join(msgs[1:], "; on another path: ") + ")"
		}
	}
	out := slices.Clone(words[0])
	for j := range out {
		var alts []string
		for _, w := range words {
			if !slices.Contains(alts, w[j]) {
				alts = append(alts, w[j])
			}
		}
		if len(alts) > 1 {
			out[j] = mergeWord(alts)
		}
	}
	return strings.Join(out, " ")
}

// mergeWord merges the variants of one word of a message, keeping a
// trailing punctuation mark they share.
func mergeWord(alts []string) string {
	tail := ""
	if a := alts[0]; a != "" && strings.ContainsAny(a[len(a)-1:], ",.:;") {
		tail = a[len(a)-1:]
	}
	for _, a := range alts {
		if !strings.HasSuffix(a, tail) {
			tail = ""
		}
	}
	var parts []string
	commands := true
	for _, a := range alts {
		a = strings.TrimSuffix(a, tail)
		commands = commands && commandWordRe.Get().MatchString(a)
		parts = append(parts, a)
	}
	sep := " or "
	if commands {
		// Command names: their union, "LPUSH" and "LPUSH/RPUSH" give
		// "LPUSH/RPUSH".
		parts, sep = strings.Split(strings.Join(parts, "/"), "/"), "/"
	}
	slices.Sort(parts)
	return strings.Join(slices.Compact(parts), sep) + tail
}

// commandWordRe matches a command name or names as messages print them:
// "LPUSH", "LPUSH/RPUSH", "CLIENT|KILL".
var commandWordRe = lazy.Regexp(`^[A-Z][A-Z0-9_|-]*(/[A-Z][A-Z0-9_|-]*)*$`)

// Sort orders diagnostics by file, line, column, code and message.
func Sort(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}

// Count returns how many diagnostics are at min severity or above.
func Count(ds []Diagnostic, min Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity.AtLeast(min) {
			n++
		}
	}
	return n
}
