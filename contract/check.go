package contract

import (
	"fmt"
	"strconv"
	"strings"
)

// ValueKind is the kind of a reply as a client receives it.
type ValueKind int

const (
	VNil ValueKind = iota
	VInt
	VBulk
	VStatus
	VError
	VArray
	VBool   // RESP3 only
	VDouble // RESP3 only
)

// Value is one reply, converted by the caller from its own representation.
type Value struct {
	Kind  ValueKind
	Int   int64
	Str   string // VBulk, VStatus, VError (the full text, code included)
	Bool  bool
	Float float64
	Elems []Value
}

// Mismatch is how a reply breaks a contract: Path is where inside the reply
// ("" for the reply itself, "[1]", "[2][0]"), Want the type expected there,
// Got the part of the reply found there.
type Mismatch struct {
	Path string
	Want string
	Got  string
}

func (m *Mismatch) String() string {
	at := "reply"
	if m.Path != "" {
		at = "reply" + m.Path
	}
	return fmt.Sprintf("%s: want %s, got %s", at, m.Want, m.Got)
}

// Check reports how v breaks t, or nil when it conforms. Errors: an error
// reply conforms when it starts with the prefix of an error alternative (a
// bare error takes any). An error reply whose code (its first word) no error
// alternative declares is an error the server raised inside the script
// (WRONGTYPE, OOM, BUSY...): it conforms too, since any command a script
// calls can fail so. An error whose code the contract declares but whose
// text no alternative's prefix starts (ERR user_script:1: ... when only
// ERR empty token is declared) breaks the contract.
func Check(t *Type, v Value) *Mismatch {
	if v.Kind == VError {
		errs := t.Errors()
		code := ErrorCode(v.Str)
		declared := false
		for _, e := range errs {
			if e.Str == "" || strings.HasPrefix(v.Str, e.Str) {
				return nil
			}
			if ErrorCode(e.Str) == code {
				declared = true
			}
		}
		if !declared {
			return nil
		}
		return &Mismatch{Want: describeErrors(errs), Got: Show(v)}
	}
	succ := t.Success()
	if succ == nil {
		return &Mismatch{Want: describeErrors(t.Errors()), Got: Show(v)}
	}
	return check(succ, v, "")
}

func describeErrors(errs []*Type) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Plain()
	}
	return strings.Join(parts, " | ")
}

// Matches reports whether v conforms to t.
func Matches(t *Type, v Value) bool { return Check(t, v) == nil }

func bare(t *Type) string { return t.Plain() }

func check(t *Type, v Value, path string) *Mismatch {
	miss := func() *Mismatch { return &Mismatch{Path: path, Want: bare(t), Got: Show(v)} }
	switch t.Kind {
	case Any:
		return nil
	case Integer:
		if v.Kind != VInt {
			return miss()
		}
	case IntLit:
		if v.Kind != VInt || v.Int != t.Int {
			return miss()
		}
	case String:
		if v.Kind != VBulk {
			return miss()
		}
	case StrLit:
		if v.Kind != VBulk || v.Str != t.Str {
			return miss()
		}
	case Nil:
		if v.Kind != VNil {
			return miss()
		}
	case Status:
		if v.Kind != VStatus {
			return miss()
		}
	case StatLit:
		if v.Kind != VStatus || v.Str != t.Str {
			return miss()
		}
	case Error:
		if v.Kind != VError || !strings.HasPrefix(v.Str, t.Str) {
			return miss()
		}
	case Boolean:
		// RESP2: Lua true converts to 1 and false to nil.
		if v.Kind != VBool && !(v.Kind == VInt && v.Int == 1) && v.Kind != VNil {
			return miss()
		}
	case Double:
		if v.Kind == VDouble {
			return nil
		}
		if v.Kind != VBulk {
			return miss()
		}
		if _, err := strconv.ParseFloat(v.Str, 64); err != nil && !isInfNaN(v.Str) {
			return miss()
		}
	case Array:
		if v.Kind != VArray {
			return miss()
		}
		for i, e := range v.Elems {
			if m := check(t.Elem, e, fmt.Sprintf("%s[%d]", path, i)); m != nil {
				return m
			}
		}
	case Tuple:
		if v.Kind != VArray {
			return miss()
		}
		if len(v.Elems) != len(t.Elems) {
			m := miss()
			m.Want = fmt.Sprintf("%s (%d elements)", m.Want, len(t.Elems))
			m.Got = fmt.Sprintf("%s (%d elements)", m.Got, len(v.Elems))
			return m
		}
		for i, e := range v.Elems {
			if m := check(t.Elems[i], e, fmt.Sprintf("%s[%d]", path, i)); m != nil {
				return m
			}
		}
	case Union:
		// The deepest mismatch of the alternative that matched longest
		// names the problem best: a tagged tuple whose tag matched.
		var best *Mismatch
		for _, a := range t.Alts {
			m := check(a, v, path)
			if m == nil {
				return nil
			}
			if a.Kind == Tuple && len(a.Elems) > 0 && (a.Elems[0].Kind == StrLit || a.Elems[0].Kind == IntLit) && m.Path == path+"[0]" {
				continue // the tag differs: this alternative made no progress
			}
			if best == nil || len(m.Path) > len(best.Path) {
				best = m
			}
		}
		if best == nil || best.Path == path {
			return miss()
		}
		return best
	}
	return nil
}

func isInfNaN(s string) bool {
	switch strings.ToLower(s) {
	case "inf", "-inf", "+inf", "nan", "-nan":
		return true
	}
	return false
}

// Show prints a reply in one line: 1, "bulk", (nil), +OK, -ERR ...,
// [a, b], (true), (double) 1.5.
func Show(v Value) string {
	var b strings.Builder
	show(&b, v)
	return b.String()
}

func show(b *strings.Builder, v Value) {
	switch v.Kind {
	case VNil:
		b.WriteString("(nil)")
	case VInt:
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case VBulk:
		b.WriteString(strconv.Quote(v.Str))
	case VStatus:
		b.WriteString("+" + v.Str)
	case VError:
		b.WriteString("-" + v.Str)
	case VBool:
		b.WriteString("(" + strconv.FormatBool(v.Bool) + ")")
	case VDouble:
		b.WriteString("(double) " + strconv.FormatFloat(v.Float, 'g', -1, 64))
	case VArray:
		b.WriteString("[")
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			show(b, e)
		}
		b.WriteString("]")
	}
}
