// Package scenario owns scriptctl's scenario tests: the YAML format of
// lua_test/*.yaml (and its keyspace section, reused by "scriptctl eval
// --state"), strict parsing with file:line:col errors, running a scenario offline
// in the verify engine or live on a real server, the step-by-step
// expectations on replies, stored values and TTLs, the differential between
// an offline and a live run, and the report's problems and diagnostics. It
// does not implement Redis itself (package verify does), does not parse
// manifests (package manifest does), does not dial a server (it runs on a
// Conn the caller dials) and does not render for a terminal: package
// scenario/render writes a report as text and JSON.
package scenario

import (
	"errors"
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/verify"
)

// Scenario is one parsed scenario file. Parse fills it from YAML; Bind
// resolves it against a manifest (script names, arg names, key templates).
type Scenario struct {
	File        string // path as given to Parse
	Name        string // "name:" or the file's base name without .yaml
	Description string
	Caller      string            // manifest caller whose key templates "keys" refer to
	Vars        map[string]string // placeholder values for templates and ${var}
	Keys        []Key             // initial keyspace
	// Subscribers is how many clients receive a message on each channel:
	// what PUBLISH and SPUBLISH answer offline (0 for a channel not named).
	Subscribers map[string]int64
	Workers     []Worker  // in file order
	Controls    []Control // unsafe variants; empty for an ordinary scenario
	Steps       []*Step
	Line        int // line of the document
	// LiveOnly marks a scenario the offline engine cannot run (a command
	// it refuses): offline it is skipped with the reason, never passed;
	// verify --against runs it live and checks its expectations there.
	LiveOnly bool

	callerLine int
	bound      *binding // set by Bind
}

// Worker is a named actor of the scenario with its ownership token. A call
// step naming the worker passes the token as the script's "token" arg unless
// the step sets that arg itself, and ${token} in the step reads it.
type Worker struct {
	Name  string
	Token string
	Line  int
}

// Control replaces a manifest script by an unsafe variant for a negative
// control run.
type Control struct {
	Script string // manifest script name
	File   string // path relative to the scenario file's folder
	Line   int
	Source []byte // filled by Load
}

// StepKind says what a step does.
type StepKind int

const (
	StepCall  StepKind = iota // call a manifest script
	StepSleep                 // advance the clock
	StepDo                    // run one raw command
)

// Step is one step of a scenario.
type Step struct {
	Line   int
	Name   string
	Worker string
	Kind   StepKind

	Script   string            // StepCall
	KeyArgs  []string          // StepCall: literal keys (raw text) when "keys:" is a list
	KeyMap   map[string]string // StepCall: key name -> literal key (raw text) when "keys:" is a mapping
	ArgList  []string          // StepCall: positional args (raw text) when "args:" is a list
	ArgMap   map[string]string // StepCall: arg name -> value (raw text) when "args:" is a mapping
	argLines map[string]int
	callLine int
	keysSet  bool
	argsList bool

	SleepMS int64    // StepSleep
	Command []string // StepDo, raw text

	Expect     *Expect // checked in every run
	Regression *Expect // control scenarios only: must hold under the control, must not under the manifest's script
}

// Expect is what must hold after a step.
type Expect struct {
	Line  int
	Reply *ReplySpec // nil: the reply is not checked
	Keys  []KeyExpect
	// Published are the messages the step must have published, in order
	// (raw text); checked only when PublishedSet, and offline only.
	Published    []Published
	PublishedSet bool
	// Clock marks parts of the step's outcome as clock-dependent for live
	// comparisons: "reply", or a key (a caller key name or a literal key).
	// Their numbers compare within the clock tolerance, in milliseconds,
	// whatever the clock probes found.
	Clock []ClockRef
}

// ClockRef is one entry of an expectation's clock: list.
type ClockRef struct {
	Ref  string // "reply" or a key reference (raw text)
	Line int
}

// Published is one expected PUBLISH or SPUBLISH message.
type Published struct {
	Channel, Message string
	Line             int
}

// KeyExpect is the expected state of one key after a step.
type KeyExpect struct {
	Ref    string // caller key name or literal key (raw text)
	Line   int
	Absent bool
	// Want is the expected type and contents (raw text) in its Type, Value,
	// Hash, List, Set and ZSet; Type "" checks neither.
	Want Key
	TTL  *TTLSpec // nil: not checked
	// FieldTTL checks the TTLs of a hash's fields, by field (a field
	// without a TTL, or not there, reads as none).
	FieldTTL map[string]*TTLSpec
}

// TTLSpec is an expected remaining time to live in milliseconds: exact
// (Min == Max), a range, or None for a key without expiry.
type TTLSpec struct {
	None     bool
	Min, Max int64
}

func (t TTLSpec) String() string {
	switch {
	case t.None:
		return "none"
	case t.Min == t.Max:
		return fmt.Sprintf("%d", t.Min)
	}
	return fmt.Sprintf("%d..%d", t.Min, t.Max)
}

// Match reports whether pttl (-1 for no expiry) satisfies t.
func (t TTLSpec) Match(pttl int64) bool {
	if t.None {
		return pttl == -1
	}
	return pttl >= t.Min && pttl <= t.Max
}

// ReplyKind is the kind of an expected reply.
type ReplyKind int

const (
	RNil ReplyKind = iota
	RInt
	RBulk
	RStatus
	RError
	RArray
	RTTL         // an integer that is a remaining TTL in ms: exact or a range
	RErrorPrefix // an error reply whose text starts with Str
)

// ReplySpec is an expected reply.
type ReplySpec struct {
	Kind  ReplyKind
	Int   int64
	Str   string // raw text for RBulk, RStatus, RError (${...} expanded by Bind)
	Elems []*ReplySpec
	TTL   TTLSpec
	Line  int
}

func (r *ReplySpec) String() string {
	var b strings.Builder
	r.write(&b)
	return b.String()
}

func (r *ReplySpec) write(b *strings.Builder) {
	switch r.Kind {
	case RNil:
		b.WriteString("(nil)")
	case RInt:
		fmt.Fprintf(b, "%d", r.Int)
	case RBulk:
		fmt.Fprintf(b, "%q", r.Str)
	case RStatus:
		b.WriteString("+" + r.Str)
	case RError:
		b.WriteString("-" + r.Str)
	case RErrorPrefix:
		b.WriteString("-" + r.Str + "...")
	case RTTL:
		b.WriteString("ttl " + r.TTL.String())
	case RArray:
		b.WriteString("[")
		for i, e := range r.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteString("]")
	}
}

// Key is one key of a keyspace: the initial keys of a scenario, the state
// file of "scriptctl eval --state", a snapshot of a run. Exactly one of
// Value, Hash, List, Set, ZSet and Stream holds its contents, by Type.
type Key struct {
	Name  string
	Type  string           // "string", "hash", "list", "set", "zset" or "stream"
	Value string           // Type "string"
	Hash  []verify.Field   // Type "hash": in the order written, or HGETALL's
	List  []string         // Type "list": head first
	Set   []string         // Type "set": no order (Redis gives a large set none)
	ZSet  []verify.ZMember // Type "zset": as written, or ascending as ZRANGE answers
	// Stream is Type "stream"; a delivery or seen time of -1 is one the
	// file does not give.
	Stream *verify.StreamState
	PTTL   int64 // remaining ms; -1 means no expiry
	// FieldTTL is Type "hash": the remaining ms of the fields that expire
	// (hash-field expiry, Redis 7.4+); nil when none does.
	FieldTTL map[string]int64
	Line     int // where it was declared; 0 for a snapshot
}

// Error is one problem in a scenario file, at a position.
type Error struct {
	File  string
	Line  int
	Col   int // 1-based; 0 when the problem has no single column
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one scenario file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// ErrInvalid is matched by errors.Is for any scenario validation error.
var ErrInvalid = errors.New("scenario: invalid")

func (es Errors) Is(target error) bool { return target == ErrInvalid }
