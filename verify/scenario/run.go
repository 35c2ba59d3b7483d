package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// Mode is how scripts are invoked: EVAL of each script's source, or FCALL of
// the functions in the library generated from the manifest.
type Mode string

const (
	ModeEval     Mode = "eval"
	ModeFunction Mode = "function"
)

// Modes is every mode, in report order.
var Modes = []Mode{ModeEval, ModeFunction}

// Backend executes a scenario's steps: the offline engine or a live server.
// Keys are given as the scenario names them; a live backend maps them to
// its own prefixed keys and back.
type Backend interface {
	Put(ctx context.Context, k Key) error
	Call(ctx context.Context, script string, keys, args []string) (verify.Reply, error)
	Do(ctx context.Context, args []string) (verify.Reply, error)
	Sleep(ctx context.Context, ms int64) error
	Get(ctx context.Context, key string) (Key, bool, error)
}

// publisher is a Backend that records what PUBLISH and SPUBLISH sent: the
// offline engine (a live server's messages are not observed).
type publisher interface {
	TakePublished() []verify.Message
}

// warner is a Backend that can tell where its last call's reply may differ
// from Redis's: the offline engine.
type warner interface {
	Warnings() []string
	KeyFindings() []KeyFinding
}

// ScriptError is a script that cannot be loaded or compiled: the scenario
// cannot run, and verify exits 2.
type ScriptError struct {
	Script string // manifest script name, or "" for the whole library
	Mode   Mode
	Reply  string // the error reply of EVAL or FUNCTION LOAD
	At     string // for the library: the script file and line the error's user_function:N is, when known
}

func (e *ScriptError) Error() string {
	if e.Script == "" {
		if e.At != "" {
			return fmt.Sprintf("functions library does not load: %s (%s)", e.Reply, e.At)
		}
		return fmt.Sprintf("functions library does not load: %s", e.Reply)
	}
	return fmt.Sprintf("script %s does not compile: %s", e.Script, e.Reply)
}

var userFunctionLine = lazy.Regexp(`user_function:(\d+):`)

// libraryError is the ScriptError of a generated library that does not
// load, pointing at the script file and line behind the library line Redis
// names, so the user sees lua/x.lua:N rather than a line of generated code.
func libraryError(m *manifest.Manifest, reply string) *ScriptError {
	e := &ScriptError{Mode: ModeFunction, Reply: reply}
	if sm := userFunctionLine.Get().FindStringSubmatch(reply); sm != nil {
		n, _ := strconv.Atoi(sm[1])
		if s, line, ok := m.LibraryPosition(n); ok {
			e.At = fmt.Sprintf("%s:%d", s.File, line)
		}
	}
	return e
}

// Variant names which scripts a run uses.
const (
	VariantManifest = "manifest" // the manifest's scripts
	VariantControl  = "control"  // the scenario's unsafe variants replace some scripts
)

// Run is one execution of a scenario's steps against one backend.
type Run struct {
	Variant  string       `json:"variant"`
	Steps    []StepResult `json:"steps"`
	Failures []Failure    `json:"failures,omitempty"`
	// Error is set when the run stopped: a script that does not compile, or
	// a step the offline engine cannot judge.
	Error string `json:"error,omitempty"`

	scriptErr  bool
	clockStart int64 // live runs: the server's TIME (Unix ms) when the steps began
}

// StepResult is what one step did and the keyspace after it: the trace.
type StepResult struct {
	Index  int           `json:"step"`
	Line   int           `json:"line"`
	Action string        `json:"action"`
	Reply  *verify.Reply `json:"-"`
	State  []Key         `json:"-"` // the scenario's keys present after the step
	Error  string        `json:"error,omitempty"`
	// Warnings are the offline engine's notes on a call whose reply may
	// differ from Redis's (verify/README.md, "Known divergences").
	Warnings []string `json:"warnings,omitempty"`
	// Published are the messages the step published (offline runs only).
	Published []verify.Message `json:"-"`
	// KeyFindings are the call's undeclared key accesses (offline runs).
	KeyFindings []KeyFinding `json:"-"`

	published bool  // Published was recorded
	drift     int64 // live runs: ms the real clock ran ahead of the virtual one
}

// Failure is an expectation that did not hold.
type Failure struct {
	Step int `json:"step"`
	Line int `json:"line"`
	// Code names the kind of failure when it has one: "reply-contract"
	// for a reply that breaks the script's reply contract.
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// ErrControlMissed is the failure of a negative control whose unsafe variant
// did not produce the regression the scenario declares.
const ErrControlMissed = "control did not reach the dangerous interleaving"

// variant returns m with the scenario's control sources swapped in.
func variant(m *manifest.Manifest, controls map[string][]byte) *manifest.Manifest {
	if len(controls) == 0 {
		return m
	}
	c := *m
	c.Scripts = make([]*manifest.Script, len(m.Scripts))
	for i, s := range m.Scripts {
		if src, ok := controls[s.Name]; ok {
			cp := *s
			cp.Source = src
			cp.SHA = manifest.SHA1Hex(src)
			cp.File = s.File + " (control)"
			s = &cp
		}
		c.Scripts[i] = s
	}
	return &c
}

// execute runs the bound scenario's steps on be. The returned error is an
// environment failure (a live server that stopped answering); everything the
// scripts do is in the Run.
func (s *Scenario) execute(ctx context.Context, be Backend, control bool) (*Run, error) {
	b := s.bound
	if b == nil {
		return nil, errors.New("scenario: run before Bind")
	}
	run := &Run{Variant: VariantManifest}
	if control {
		run.Variant = VariantControl
	}
	for _, k := range b.initial {
		if err := be.Put(ctx, k); err != nil {
			return nil, fmt.Errorf("set up key %q: %w", k.Name, err)
		}
	}
	for i, st := range s.Steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bs := b.steps[i]
		sr := StepResult{Index: i + 1, Line: st.Line, Action: describe(st, bs)}
		var reply verify.Reply
		var err error
		switch st.Kind {
		case StepCall:
			reply, err = be.Call(ctx, st.Script, bs.keys, bs.args)
			if w, ok := be.(warner); ok && err == nil {
				sr.Warnings = w.Warnings()
				sr.KeyFindings = w.KeyFindings()
			}
		case StepDo:
			reply, err = be.Do(ctx, bs.cmd)
		case StepSleep:
			err = be.Sleep(ctx, st.SleepMS)
		}
		if err != nil {
			var re *verify.RunError
			var se *ScriptError
			switch {
			case errors.As(err, &se):
				run.scriptErr = true
				run.Error = err.Error()
			case errors.As(err, &re):
				run.Error = fmt.Sprintf("%s:%d: step %d cannot be judged offline: %v", s.File, st.Line, i+1, err)
			default:
				return nil, fmt.Errorf("step %d: %w", i+1, err)
			}
			sr.Error = err.Error()
			run.Steps = append(run.Steps, sr)
			return run, nil
		}
		if st.Kind != StepSleep {
			r := reply
			sr.Reply = &r
			if st.Kind == StepCall && r.Kind == verify.Error && strings.HasPrefix(r.Str, "ERR Error compiling script") {
				run.scriptErr = true
				run.Error = (&ScriptError{Script: st.Script, Reply: r.Str}).Error()
				run.Steps = append(run.Steps, sr)
				return run, nil
			}
		}
		for _, k := range b.universe {
			got, ok, err := be.Get(ctx, k)
			if err != nil {
				return nil, fmt.Errorf("step %d: read key %q: %w", i+1, k, err)
			}
			if ok {
				sr.State = append(sr.State, got)
			}
		}
		if p, ok := be.(publisher); ok {
			sr.Published, sr.published = p.TakePublished(), true
		}
		if d, ok := be.(interface{ Drift() int64 }); ok {
			sr.drift = d.Drift()
		}
		run.Steps = append(run.Steps, sr)
		fail := func(line int, msg string) {
			run.Failures = append(run.Failures, Failure{Step: i + 1, Line: line, Message: msg})
		}
		if st.Kind == StepCall && !control && sr.Reply != nil {
			if sc := b.m.Script(st.Script); sc != nil {
				if msg := ContractProblem(st.Script, sc.Reply, *sr.Reply); msg != "" {
					run.Failures = append(run.Failures, Failure{Step: i + 1, Line: st.Line, Code: CodeReplyContract, Message: msg})
				}
			}
		}
		if bs.expect != nil {
			for _, m := range bs.expect.check(sr) {
				fail(m.line, m.msg)
			}
		}
		if bs.regression != nil {
			ms := bs.regression.check(sr)
			switch {
			case control && len(ms) > 0:
				whys := make([]string, len(ms))
				for i, m := range ms {
					whys[i] = m.msg
				}
				fail(bs.regression.line, ErrControlMissed+": "+strings.Join(whys, "; "))
			case !control && len(ms) == 0:
				fail(bs.regression.line, "the manifest's scripts also reach the regression the control declares: the scenario cannot tell safe from unsafe")
			}
		}
	}
	return run, nil
}

func describe(st *Step, bs boundStep) string {
	var b strings.Builder
	if st.Worker != "" {
		b.WriteString(st.Worker + ": ")
	}
	switch st.Kind {
	case StepCall:
		fmt.Fprintf(&b, "call %s keys=%s args=%s", st.Script, quoteList(bs.keys), quoteList(bs.args))
	case StepDo:
		fmt.Fprintf(&b, "do %s", quoteList(bs.cmd))
	case StepSleep:
		fmt.Fprintf(&b, "sleep %dms", st.SleepMS)
	}
	if st.Name != "" {
		b.WriteString("  # " + st.Name)
	}
	return b.String()
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, " ") + "]"
}

// mismatch is one way an expectation does not hold, at the line of the
// expected reply or key.
type mismatch struct {
	line int
	msg  string
}

// check returns how e does not hold after step sr, or nothing.
func (e *boundExpect) check(sr StepResult) []mismatch {
	var out []mismatch
	if e.reply != nil {
		if sr.Reply == nil {
			out = append(out, mismatch{e.reply.Line, "reply: the step has no reply"})
		} else if !replyMatches(e.reply, *sr.Reply) {
			out = append(out, mismatch{e.reply.Line, fmt.Sprintf("reply: want %s, got %s", e.reply, sr.Reply)})
		}
	}
	if e.publishedSet && sr.published && !samePublished(e.published, sr.Published) {
		out = append(out, mismatch{e.line, fmt.Sprintf("published: want %s, got %s", publishedString(e.published), MessagesString(sr.Published))})
	}
	for _, ke := range e.keys {
		got, ok := find(sr.State, ke.key)
		if why := ke.check(got, ok); why != "" {
			out = append(out, mismatch{ke.Line, fmt.Sprintf("key %q: %s", ke.key, why)})
		}
	}
	return out
}

func find(state []Key, name string) (Key, bool) {
	for _, k := range state {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// replyMatches reports whether r is the reply spec describes.
func replyMatches(spec *ReplySpec, r verify.Reply) bool {
	switch spec.Kind {
	case RNil:
		return r.Kind == verify.Nil
	case RInt:
		return r.Kind == verify.Int && r.Int == spec.Int
	case RTTL:
		return r.Kind == verify.Int && spec.TTL.Match(r.Int)
	case RBulk:
		return r.Kind == verify.Bulk && r.Str == spec.Str
	case RStatus:
		return r.Kind == verify.Status && r.Str == spec.Str
	case RError:
		return r.Kind == verify.Error && r.Str == spec.Str
	case RErrorPrefix:
		return r.Kind == verify.Error && strings.HasPrefix(r.Str, spec.Str)
	case RArray:
		if r.Kind != verify.Array || len(r.Elems) != len(spec.Elems) {
			return false
		}
		for i, e := range spec.Elems {
			if !replyMatches(e, r.Elems[i]) {
				return false
			}
		}
		return true
	}
	return false
}

func (ke boundKeyExpect) check(got Key, present bool) string {
	if ke.Absent {
		if present {
			return "want absent, got " + KeyString(got)
		}
		return ""
	}
	if !present {
		return "want present, got absent"
	}
	var whys []string
	want := ke.Want
	if want.Type != "" && got.Type != want.Type {
		return fmt.Sprintf("want a %s, got a %s: %s", want.Type, got.Type, KeyString(got))
	}
	if want.Type != "" && (!SameContents(want, got) || (want.Type == "stream" && !sameStream(want.Stream, got.Stream, true))) {
		whys = append(whys, fmt.Sprintf("%s: want %s, got %s", typeField(want.Type), contentsString(want), contentsString(got)))
	}
	if ke.TTL != nil && !ke.TTL.Match(got.PTTL) {
		whys = append(whys, fmt.Sprintf("ttl_ms: want %s, got %s", ke.TTL, pttlString(got.PTTL)))
	}
	for _, f := range slices.Sorted(maps.Keys(ke.FieldTTL)) {
		ms, ok := got.FieldTTL[f]
		if !ok {
			ms = -1
		}
		if spec := ke.FieldTTL[f]; !spec.Match(ms) {
			whys = append(whys, fmt.Sprintf("field_ttl_ms.%s: want %s, got %s", f, spec, pttlString(ms)))
		}
	}
	return strings.Join(whys, ", ")
}

// typeField is the field of the keyspace format that holds a type's
// contents.
func typeField(typ string) string {
	if typ == "string" {
		return "value"
	}
	return typ
}

func pttlString(p int64) string {
	if p < 0 {
		return "none"
	}
	return fmt.Sprint(p)
}

// KeyString is a key's state for traces and diffs: "tok" (ttl 150ms),
// hash {"f": "v"} (no ttl).
func KeyString(k Key) string {
	v := contentsString(k)
	if len(k.FieldTTL) > 0 {
		var ft []string
		for _, f := range slices.Sorted(maps.Keys(k.FieldTTL)) {
			ft = append(ft, fmt.Sprintf("%q %dms", f, k.FieldTTL[f]))
		}
		v += " (field ttl " + strings.Join(ft, ", ") + ")"
	}
	if k.PTTL >= 0 {
		return fmt.Sprintf("%s (ttl %dms)", v, k.PTTL)
	}
	return v + " (no ttl)"
}

func samePublished(want []Published, got []verify.Message) bool {
	if len(want) != len(got) {
		return false
	}
	for i, w := range want {
		if w.Channel != got[i].Channel || w.Message != got[i].Message {
			return false
		}
	}
	return true
}

func publishedString(ps []Published) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%q: %q", p.Channel, p.Message)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// MessagesString is published messages for traces and failures:
// ["channel": "message", ...].
func MessagesString(ms []verify.Message) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%q: %q", m.Channel, m.Message)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
