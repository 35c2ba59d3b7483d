package mutate

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// The mutation operators, each a stable code in reports.
const (
	OpRelational = "relational"   // < <= > >= shifted at the boundary
	OpEquality   = "equality"     // == and ~= swapped
	OpLogical    = "logical"      // and and or swapped
	OpNegation   = "negation"     // a not removed
	OpArithmetic = "arithmetic"   // + and -, * and / swapped
	OpConstant   = "constant"     // an integer literal plus or minus one
	OpBoolean    = "boolean"      // true and false swapped
	OpOption     = "option"       // EX and PX, NX and XX swapped
	OpCall       = "call-deleted" // a redis.call or redis.pcall statement removed
)

// Operators lists every mutation operator, in report order.
var Operators = []string{OpRelational, OpEquality, OpLogical, OpNegation, OpArithmetic, OpConstant, OpBoolean, OpOption, OpCall}

// Mutant is one single-point change of one script: the bytes Source[Off:End]
// (From) replaced by To.
type Mutant struct {
	Script   string // the manifest's script name
	File     string // the script's file, as the manifest resolves it
	Line     int    // 1-based
	Col      int    // 1-based, in bytes
	Operator string // one of Operators
	From, To string
	Off, End int
	// Ignored is the reason of a "-- scriptctl:ignore mutant-survived
	// <reason>" comment on the mutant's line or the line above; such a
	// mutant is not run.
	Ignored string
}

// Description is the change in words: "`<` → `<=`", "deleted `redis.call(...)`".
func (m Mutant) Description() string {
	if m.Operator == OpCall || m.To == "" && m.Operator == OpNegation {
		return "deleted `" + oneLine(m.From) + "`"
	}
	return "`" + m.From + "` → `" + m.To + "`"
}

// Apply returns src with the mutant's change made.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.To))
	out = append(out, src[:m.Off]...)
	out = append(out, m.To...)
	return append(out, src[m.End:]...)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// IgnoreCode is the code a scriptctl:ignore comment names to keep a mutant
// from being run (an equivalent mutant: it cannot change behaviour).
const IgnoreCode = "mutant-survived"

var ignoreRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`--(?:\[=*\[)?\s*scriptctl:ignore[ \t]+` + IgnoreCode + `\b[ \t]*(.*?)\s*(?:\]=*\])?\s*$`)
}}

// ignores maps a line to the reason of its scriptctl:ignore
// mutant-survived comment; the comment covers its own line and the next.
func ignores(src string) map[int]string {
	out := map[int]string{}
	for i, l := range strings.Split(src, "\n") {
		if !strings.Contains(l, "scriptctl:ignore") {
			continue
		}
		if m := ignoreRe.Get().FindStringSubmatch(l); m != nil {
			reason := m[1]
			if reason == "" {
				reason = "(no reason given)"
			}
			out[i+1], out[i+2] = reason, reason
		}
	}
	return out
}

// Generate returns every mutant of one script's source, in source order.
// A source that does not lex yields none and the error.
func Generate(script, file string, src []byte) ([]Mutant, error) {
	s := string(src)
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	ign := ignores(s)
	var out []Mutant
	add := func(t token, op, from, to string, off, end int) {
		out = append(out, Mutant{Script: script, File: file, Line: t.line, Col: t.col, Operator: op, From: from, To: to, Off: off, End: end, Ignored: ign[t.line]})
	}
	swap := func(t token, op, to string) { add(t, op, t.text, to, t.off, t.off+len(t.text)) }
	for k, t := range toks {
		var prev *token
		if k > 0 {
			prev = &toks[k-1]
		}
		switch t.kind {
		case tOp:
			switch t.text {
			case "<":
				swap(t, OpRelational, "<=")
			case "<=":
				swap(t, OpRelational, "<")
			case ">":
				swap(t, OpRelational, ">=")
			case ">=":
				swap(t, OpRelational, ">")
			case "==":
				swap(t, OpEquality, "~=")
			case "~=":
				swap(t, OpEquality, "==")
			case "+", "-", "*", "/":
				if prev == nil || !endsExpr(*prev) {
					continue // unary minus
				}
				to := map[string]string{"+": "-", "-": "+", "*": "/", "/": "*"}[t.text]
				if to == "-" && k+1 < len(toks) && toks[k+1].kind == tOp && toks[k+1].text == "-" {
					to = "- " // keep "a + -b" from becoming a comment
				}
				swap(t, OpArithmetic, to)
			}
		case tName:
			switch t.text {
			case "and":
				swap(t, OpLogical, "or")
			case "or":
				swap(t, OpLogical, "and")
			case "true":
				swap(t, OpBoolean, "false")
			case "false":
				swap(t, OpBoolean, "true")
			case "not":
				end := t.off + len(t.text)
				for end < len(s) && (s[end] == ' ' || s[end] == '\t') {
					end++
				}
				add(t, OpNegation, s[t.off:end], "", t.off, end)
			case "redis", "server":
				if end, ok := callStatement(toks, k); ok {
					add(t, OpCall, s[t.off:end], "", t.off, end)
				}
			}
		case tNumber:
			n, err := strconv.ParseInt(t.text, 10, 32)
			if err != nil {
				continue // hex, fractions, exponents: left alone
			}
			swap(t, OpConstant, numText(n+1))
			swap(t, OpConstant, numText(n-1))
		case tString:
			if to, ok := optionSwap(t.text); ok {
				swap(t, OpOption, to)
			}
		}
	}
	return out, nil
}

// numText writes n where a literal stood; a negative value is
// parenthesised so that it never joins a preceding '-' into a comment or
// binds differently.
func numText(n int64) string {
	if n < 0 {
		return "(" + strconv.FormatInt(n, 10) + ")"
	}
	return strconv.FormatInt(n, 10)
}

// optionSwap swaps the expiry units and the conditions of SET and EXPIRE
// written as string literals: EX and PX, NX and XX, in the literal's case.
func optionSwap(lit string) (string, bool) {
	if len(lit) != 4 || lit[0] != lit[3] || lit[0] != '\'' && lit[0] != '"' {
		return "", false
	}
	body := lit[1:3]
	var to string
	switch strings.ToUpper(body) {
	case "EX":
		to = "PX"
	case "PX":
		to = "EX"
	case "NX":
		to = "XX"
	case "XX":
		to = "NX"
	default:
		return "", false
	}
	if body == strings.ToLower(body) {
		to = strings.ToLower(to)
	}
	return lit[:1] + to + lit[3:], true
}

// endsExpr reports whether an expression can end with t, so that a '-' or
// a name after it starts a binary operation or a new statement.
func endsExpr(t token) bool {
	switch t.kind {
	case tNumber, tString:
		return true
	case tName:
		return !keywords.Get()[t.text] || t.text == "true" || t.text == "false" || t.text == "nil" || t.text == "end"
	}
	return t.text == ")" || t.text == "]" || t.text == "}" || t.text == "..."
}

// startsStatement reports whether a statement can start after prev.
func startsStatement(prev *token) bool {
	if prev == nil || prev.text == ";" {
		return true
	}
	if prev.kind == tName {
		switch prev.text {
		case "then", "do", "else", "repeat":
			return true
		}
	}
	return endsExpr(*prev) && prev.text != "..."
}

// callStatement reports whether toks[k] starts a statement that is only
// redis.call(...) or redis.pcall(...) (server.* too), and the byte offset
// where it ends.
func callStatement(toks []token, k int) (int, bool) {
	var prev *token
	if k > 0 {
		prev = &toks[k-1]
	}
	if !startsStatement(prev) || k+3 >= len(toks) {
		return 0, false
	}
	if !toks[k+1].is(tOp, ".") || !(toks[k+2].is(tName, "call") || toks[k+2].is(tName, "pcall")) || !toks[k+3].is(tOp, "(") {
		return 0, false
	}
	depth := 0
	for j := k + 3; j < len(toks); j++ {
		switch toks[j].text {
		case "(", "[", "{":
			if toks[j].kind == tOp {
				depth++
			}
		case ")", "]", "}":
			if toks[j].kind == tOp {
				depth--
			}
		}
		if depth == 0 {
			if j+1 < len(toks) {
				switch next := toks[j+1]; {
				case next.kind == tOp && strings.Contains(".[:(", next.text), next.kind == tString, next.is(tOp, "{"):
					return 0, false // the call's reply is used: not a statement
				}
			}
			return toks[j].off + 1, true
		}
	}
	return 0, false
}
