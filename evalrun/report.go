package evalrun

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/scriptctl/scriptctl/internal/atomicfile"
	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/rediscli"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// Result is one eval: the offline side, the live side, or both.
type Result struct {
	File    string // the script file as given ("-" for stdin)
	SHA1    string // SHA1 of the script's exact bytes, as Redis computes it
	Mode    Mode
	Keys    []string
	Args    []string
	Offline *Side
	Live    *Side
	// Differences is set by Compare when both sides ran.
	Differences []Difference
	// ClockTolerated are the parts equal only within the clock tolerance.
	ClockTolerated []Difference
}

// Difference is one way the live side differs from the offline side.
type Difference struct {
	What    string // "reply" or "key <name>"
	Offline string // the offline reply or key, one line
	Live    string
}

// Compare fills r.Differences from the two sides: the replies (a run the
// engine cannot judge differs from any reply), then every declared or
// state key: presence, type, value, and TTL (a live TTL may trail the
// offline one by up to drift ms, the real time the live run took).
func (r *Result) Compare(drift int64) { r.compare(drift, 0, scenario.ClockUnits{}) }

// compare is Compare with clock-derived numbers (units) compared within
// tol+drift ms, and TTLs trailing by up to tol+drift; what is equal only so
// goes to r.ClockTolerated.
func (r *Result) compare(drift, tol int64, units scenario.ClockUnits) {
	off, lv := r.Offline, r.Live
	r.Differences, r.ClockTolerated = nil, nil
	if off == nil || lv == nil {
		return
	}
	differ := func(what, o, l string) {
		r.Differences = append(r.Differences, Difference{What: what, Offline: o, Live: l})
	}
	near := func(what, o, l string) {
		r.ClockTolerated = append(r.ClockTolerated, Difference{What: what, Offline: o, Live: l})
	}
	if !off.HasReply() || off.Step != lv.Step {
		differ("reply", off.replyLine(), lv.replyLine())
	} else if ok, tolerated := units.SameReply(off.Reply, lv.Reply, tol, drift); !ok {
		differ("reply", off.replyLine(), lv.replyLine())
	} else if tolerated {
		near("reply", off.replyLine(), lv.replyLine())
	}
	names := map[string]bool{}
	for _, k := range off.Keys {
		names[k.Name] = true
	}
	for _, k := range lv.Keys {
		names[k.Name] = true
	}
	for _, name := range sortedKeys(names) {
		o, ook := findKey(off.Keys, name)
		l, lok := findKey(lv.Keys, name)
		what := "key " + rediscli.Quote(name)
		if ook != lok || !ook {
			if ook != lok {
				differ(what, keyLine(o, ook), keyLine(l, lok))
			}
			continue
		}
		same, tolerated := units.SameContents(o, l, tol, drift)
		switch {
		case !same || !ttlClose(o.PTTL, l.PTTL, drift+tol):
			differ(what, keyLine(o, ook), keyLine(l, lok))
		case tolerated:
			near(what, keyLine(o, ook), keyLine(l, lok))
		}
	}
}

// Differ reports whether Compare found a difference.
func (r *Result) Differ() bool { return len(r.Differences) > 0 }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func findKey(keys []scenario.Key, name string) (scenario.Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return scenario.Key{}, false
}

// ttlClose reports whether a live PTTL trails the offline one by at most
// slack ms (both without expiry also match).
func ttlClose(o, l, slack int64) bool {
	if (o < 0) != (l < 0) {
		return false
	}
	return o < 0 || (l <= o && o-l <= slack)
}

// keyLine is a key on one line: "value" (ttl 150ms), hash {"f": "v"},
// list ["a"], set {"a"}, zset {"m": 1}, or absent; texts quoted as
// redis-cli quotes them, collections in the Key's order.
func keyLine(k scenario.Key, ok bool) string {
	if !ok {
		return "absent"
	}
	var b strings.Builder
	quoted := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = rediscli.Quote(s)
		}
		return strings.Join(q, ", ")
	}
	switch k.Type {
	case "string":
		b.WriteString(rediscli.Quote(k.Value))
	case "hash":
		fields := make([]string, len(k.Hash))
		for i, f := range k.Hash {
			fields[i] = rediscli.Quote(f.Name) + ": " + rediscli.Quote(f.Value)
		}
		b.WriteString("hash {" + strings.Join(fields, ", ") + "}")
	case "list":
		b.WriteString("list [" + quoted(k.List) + "]")
	case "set":
		b.WriteString("set {" + quoted(k.Set) + "}")
	case "zset":
		members := make([]string, len(k.ZSet))
		for i, m := range k.ZSet {
			members[i] = rediscli.Quote(m.Member) + ": " + scenario.FormatScore(m.Score)
		}
		b.WriteString("zset {" + strings.Join(members, ", ") + "}")
	default:
		b.WriteString("a " + k.Type)
	}
	if k.PTTL >= 0 {
		fmt.Fprintf(&b, " (ttl %dms)", k.PTTL)
	} else {
		b.WriteString(" (no ttl)")
	}
	return b.String()
}

// replyLine is the side's outcome on one line.
func (s *Side) replyLine() string {
	if s.RunErr != nil {
		return "no reply offline: " + s.RunErr.Msg
	}
	line := strings.TrimSuffix(rediscli.Format(s.Reply), "\n")
	if strings.Contains(line, "\n") {
		line = s.Reply.String()
	}
	if s.Step == StepFunctionLoad {
		line = "FUNCTION LOAD: " + line
	}
	return line
}

// Text is the side's reply as redis-cli --no-raw prints it, or, for a run
// the engine cannot judge, "" (the caller reports RunErr).
func (s *Side) Text() string {
	if s.RunErr != nil {
		return ""
	}
	return rediscli.Format(s.Reply)
}

// WriteText writes the report redis-cli's way. One side: its reply exactly
// as redis-cli --no-raw prints it (nothing for a run the engine cannot
// judge). Both sides and no difference: the reply once. Both sides that
// differ: each side under a heading, then the differences.
func (r *Result) WriteText(w io.Writer) error {
	ew := &iostreams.Printer{W: w}
	switch {
	case r.Offline != nil && r.Live != nil && r.Differ():
		ew.Printf("offline:\n%s", sideText(r.Offline))
		ew.Printf("live %s:\n%s", r.Live.Addr, sideText(r.Live))
		ew.Printf("differences:\n")
		for _, d := range r.Differences {
			if d.What == "reply" {
				ew.Printf("  reply (above)\n")
				continue
			}
			ew.Printf("  %s: offline %s, live %s\n", d.What, d.Offline, d.Live)
		}
	case r.Offline != nil:
		ew.Printf("%s", r.Offline.Text())
	case r.Live != nil:
		ew.Printf("%s", r.Live.Text())
	}
	return ew.Err
}

func sideText(s *Side) string {
	if s.RunErr != nil {
		return "no reply offline: " + s.RunErr.Msg + " (" + s.RunErr.Code + ")\n"
	}
	t := s.Text()
	if s.Step == StepFunctionLoad {
		t = "FUNCTION LOAD " + t
	}
	return t
}

// JSONFormatVersion is the format_version of the JSON report: "2" since
// it carries its findings as shared diagnostics.
const JSONFormatVersion = diag.FormatVersion

// Diagnostic codes of eval besides the RunError codes (not-implemented,
// undeclared-key, timeout, ...).
const (
	CodeApproximation = "offline-approximation"
	CodeLiveDiffers   = "live-differs"
)

// Diagnostics are the run's findings at the script file, in the order text
// mode prints them: the offline warnings (known approximations the run
// hit), then either the difference between the sides (live-differs) or the
// run the engine could not judge (its RunError's code, at the script's
// line when the engine knows it). Both of the latter exit 1.
func (r *Result) Diagnostics() []diag.Diagnostic {
	var out []diag.Diagnostic
	off := r.Offline
	if off != nil {
		for _, w := range off.Warnings {
			out = append(out, diag.Diagnostic{File: r.File, Severity: diag.Warning, Code: CodeApproximation, Message: w})
		}
		for _, f := range off.Findings {
			out = append(out, r.findingDiagnostic(f))
		}
	}
	switch {
	case r.Differ():
		out = append(out, diag.Diagnostic{File: r.File, Severity: diag.Error, Code: CodeLiveDiffers, Message: fmt.Sprintf("offline and %s differ", r.Live.Addr)})
	case off != nil && off.RunErr != nil:
		out = append(out, r.runErrorDiagnostic(off.RunErr))
	}
	return out
}

// findingDiagnostic is an undeclared key access as a warning at the
// script's line (function mode's lines are the library's, two below the
// file's).
func (r *Result) findingDiagnostic(f verify.Finding) diag.Diagnostic {
	d := diag.Diagnostic{File: r.File, Severity: diag.Warning, Code: f.Code, Message: f.Message()}
	switch {
	case f.Chunk == "user_script" && r.Mode != ModeFunction:
		d.Line = f.Line
	case f.Chunk == "user_function" && r.Mode == ModeFunction && f.Line > libraryHeader:
		d.Line = f.Line - libraryHeader
	}
	return d
}

// userPos finds a Lua position ("user_script:3:") in an error text.
var userPos = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\buser_(script|function):(\d+):`) }}

// runErrorDiagnostic is a run the engine cannot judge (no reply) as a
// diagnostic whose code is the RunError's. Its line is where the script
// stood when the run stopped, from the engine or, failing that, a position
// in the error text; function mode's lines are the generated library's,
// two below the file's (Library).
func (r *Result) runErrorDiagnostic(re *verify.RunError) diag.Diagnostic {
	d := diag.Diagnostic{File: r.File, Severity: diag.Error, Code: re.Code, Message: "no reply offline: " + re.Msg}
	chunk, line := re.Chunk, re.Line
	if line == 0 {
		if m := userPos.Get().FindStringSubmatch(re.Msg); m != nil {
			chunk = "user_" + m[1]
			line, _ = strconv.Atoi(m[2])
		}
	}
	switch {
	case chunk == "user_script" && r.Mode != ModeFunction:
		d.Line = line
	case chunk == "user_function" && r.Mode == ModeFunction && line > libraryHeader:
		d.Line = line - libraryHeader
	}
	if re.Code == verify.CodeNotImplemented || re.Code == verify.CodeServerState {
		d.Detail = []string{"hint: run it on a test server with --against redis://host:port"}
	}
	return d
}

type jsonResult struct {
	FormatVersion string       `json:"format_version"`
	File          string       `json:"file"`
	SHA1          string       `json:"sha1"`
	Mode          Mode         `json:"mode"`
	Keys          []string     `json:"keys"`
	Args          []string     `json:"args"`
	Offline       *jsonSide    `json:"offline,omitempty"`
	Live          *jsonSide    `json:"live,omitempty"`
	Differ        *bool        `json:"differ,omitempty"`
	Differences   []Difference `json:"differences,omitempty"`
	// ClockTolerated: equal only within the clock tolerance.
	ClockTolerated []Difference `json:"clock_tolerated,omitempty"`
	// Diagnostics are the findings (Diagnostics); [] when none.
	Diagnostics []diag.Diagnostic `json:"diagnostics"`
}

type jsonSide struct {
	Addr     string        `json:"addr,omitempty"`
	Step     string        `json:"step"`
	Reply    *JSONReply    `json:"reply,omitempty"`
	Text     string        `json:"text,omitempty"`
	RunError *jsonRunError `json:"run_error,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
	Keys     []jsonKey     `json:"keys"`
}

type jsonRunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type jsonKey struct {
	Key         string               `json:"key"`
	Type        string               `json:"type"`
	Value       *string              `json:"value,omitempty"`
	ValueBase64 string               `json:"value_base64,omitempty"`
	Hash        scenario.JSONHash    `json:"hash,omitempty"`
	List        []string             `json:"list,omitempty"`
	Set         []string             `json:"set,omitempty"`
	ZSet        [][2]string          `json:"zset,omitempty"`
	Stream      *scenario.JSONStream `json:"stream,omitempty"`
	PTTL        int64                `json:"pttl_ms"`
	FieldTTL    map[string]int64     `json:"field_ttl_ms,omitempty"`
}

// MarshalJSON uses the field names of the table in docs/json.md.
func (d Difference) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		What    string `json:"what"`
		Offline string `json:"offline"`
		Live    string `json:"live"`
	}{d.What, d.Offline, d.Live})
}

// JSONReply is a typed reply: {"type": "integer", "value": 1},
// {"type": "bulk", "value": "text"} (or "base64" for bytes that are not
// UTF-8), {"type": "status", ...}, {"type": "error", ...}, {"type": "nil"},
// {"type": "array", "elements": [...]}.
type JSONReply struct {
	Type     string      `json:"type"`
	Value    any         `json:"value,omitempty"`
	Base64   string      `json:"base64,omitempty"`
	Elements []JSONReply `json:"elements,omitempty"`
}

// ReplyJSON converts a reply to its JSON form.
func ReplyJSON(r verify.Reply) JSONReply {
	j := JSONReply{Type: r.Kind.String()}
	switch r.Kind {
	case verify.Int:
		j.Value = r.Int
	case verify.Bulk, verify.Status, verify.Error:
		if utf8.ValidString(r.Str) {
			j.Value = r.Str
		} else {
			j.Base64 = base64.StdEncoding.EncodeToString([]byte(r.Str))
		}
	case verify.Array:
		j.Elements = make([]JSONReply, len(r.Elems))
		for i, e := range r.Elems {
			j.Elements[i] = ReplyJSON(e)
		}
	}
	return j
}

// MarshalJSON keeps "elements": [] on an empty array.
func (j JSONReply) MarshalJSON() ([]byte, error) {
	type plain JSONReply
	if j.Type == "array" {
		if j.Elements == nil {
			j.Elements = []JSONReply{}
		}
		return json.Marshal(struct {
			Type     string      `json:"type"`
			Elements []JSONReply `json:"elements"`
		}{j.Type, j.Elements})
	}
	return json.Marshal(plain(j))
}

func sideJSON(s *Side) *jsonSide {
	if s == nil {
		return nil
	}
	j := &jsonSide{Addr: s.Addr, Step: s.Step, Warnings: s.Warnings, Keys: []jsonKey{}}
	if s.RunErr != nil {
		j.RunError = &jsonRunError{Code: s.RunErr.Code, Message: s.RunErr.Msg}
	} else {
		rj := ReplyJSON(s.Reply)
		j.Reply = &rj
		j.Text = s.Text()
	}
	for _, k := range s.Keys {
		jk := jsonKey{Key: k.Name, Type: k.Type, Hash: k.Hash, List: k.List, Set: k.Set, ZSet: scenario.JSONZSet(k.ZSet), Stream: scenario.ToJSONStream(k.Stream), PTTL: k.PTTL, FieldTTL: k.FieldTTL}
		if k.Type == "string" {
			if utf8.ValidString(k.Value) {
				v := k.Value
				jk.Value = &v
			} else {
				jk.ValueBase64 = base64.StdEncoding.EncodeToString([]byte(k.Value))
			}
		}
		j.Keys = append(j.Keys, jk)
	}
	return j
}

// WriteJSON writes the report as one JSON document (docs/json.md).
func (r *Result) WriteJSON(w io.Writer) error {
	j := jsonResult{
		FormatVersion:  JSONFormatVersion,
		File:           r.File,
		SHA1:           r.SHA1,
		Mode:           r.Mode,
		Keys:           nonNil(r.Keys),
		Args:           nonNil(r.Args),
		Offline:        sideJSON(r.Offline),
		Live:           sideJSON(r.Live),
		Differences:    r.Differences,
		ClockTolerated: r.ClockTolerated,
		Diagnostics:    diag.Normalize(r.Diagnostics()),
	}
	if r.Offline != nil && r.Live != nil {
		d := r.Differ()
		j.Differ = &d
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(j)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SaveKeys writes keys to path in the scenario keyspace format
// (scenario.WriteKeys) atomically (atomicfile), so a reader never sees half
// a file.
func SaveKeys(path string, keys []scenario.Key) error {
	for _, k := range keys {
		if err := textOnly(k); err != nil {
			return err
		}
	}
	if keys == nil {
		keys = []scenario.Key{}
	}
	// --save names a file, not a place to make: a missing folder (a typo)
	// fails rather than being created.
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := scenario.WriteKeys(&b, keys); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}

// textOnly checks that a key fits the state format, which holds UTF-8 text
// only (YAML strings).
func textOnly(k scenario.Key) error {
	bad := func(what string) error {
		return fmt.Errorf("key %s: %s is not UTF-8 text, which a state file cannot hold", rediscli.Quote(k.Name), what)
	}
	if !utf8.ValidString(k.Name) {
		return bad("the name")
	}
	if !utf8.ValidString(k.Value) {
		return bad("the value")
	}
	for _, f := range k.Hash {
		if !utf8.ValidString(f.Name) {
			return bad("a field name")
		}
		if !utf8.ValidString(f.Value) {
			return bad("the value of field " + rediscli.Quote(f.Name))
		}
	}
	for _, s := range append(append([]string(nil), k.List...), k.Set...) {
		if !utf8.ValidString(s) {
			return bad("an element " + rediscli.Quote(s))
		}
	}
	for _, m := range k.ZSet {
		if !utf8.ValidString(m.Member) {
			return bad("a member " + rediscli.Quote(m.Member))
		}
	}
	if k.Stream != nil {
		if err := utf8Stream(*k.Stream, bad); err != nil {
			return err
		}
	}
	return nil
}

// utf8Stream checks a stream's texts for textOnly: its entries' fields and
// values, group and consumer names.
func utf8Stream(st verify.StreamState, bad func(string) error) error {
	for _, e := range st.Entries {
		for _, f := range e.Fields {
			if !utf8.ValidString(f) {
				return bad("a field or value of entry " + e.ID.String())
			}
		}
	}
	for _, g := range st.Groups {
		if !utf8.ValidString(g.Name) {
			return bad("a group name")
		}
		for _, c := range g.Consumers {
			if !utf8.ValidString(c.Name) {
				return bad("a consumer name")
			}
		}
	}
	return nil
}
