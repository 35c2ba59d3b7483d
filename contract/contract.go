// Package contract owns the reply type language of the manifest's reply:
// field: parsing a type, printing it, and checking a reply against it. It
// knows nothing of manifests, scenarios or servers: callers convert their
// replies to a Value. Code generators read the parsed Type.
//
// The language (docs/manifest.md, "Reply contracts"):
//
//	integer            an integer reply
//	string             a bulk string
//	nil                a nil bulk string or nil array
//	status             a status reply (status("OK") for one text)
//	error              any error reply; error("ERR empty token") an error
//	                   whose text starts with that prefix
//	boolean            RESP3 boolean; in RESP2 Lua's true is 1, false nil
//	double             RESP3 double; in RESP2 a bulk string holding a number
//	any                any reply
//	array(T)           an array whose every element is a T (also empty)
//	[T1, T2, ...]      a fixed tuple: exactly these elements in order
//	42, -1             that integer
//	"cached"           that bulk string
//	A | B              either
//
// A tuple element and an alternative may carry a label (value: string,
// published: 1) that names it for generated code; labels do not change what
// a reply matches.
package contract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Kind is the kind of a Type node.
type Kind int

const (
	Integer Kind = iota + 1
	String
	Nil
	Status
	Error
	Boolean
	Double
	Any
	Array   // Elem is the element type
	Tuple   // Elems are the elements
	IntLit  // Int is the value
	StrLit  // Str is the value
	Union   // Alts are the alternatives (at least two)
	StatLit // status("OK"): Str is the text
)

// Type is a parsed reply type.
type Type struct {
	Kind  Kind
	Label string  // the element's or alternative's label, "" when none
	Int   int64   // IntLit
	Str   string  // StrLit, StatLit; Error: the prefix ("" for any error)
	Elem  *Type   // Array
	Elems []*Type // Tuple
	Alts  []*Type // Union
}

// String prints t in the language's canonical form, which Parse reads back
// to an equal type.
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

// Plain prints t without labels: the type a reply is matched against.
func (t *Type) Plain() string {
	var b strings.Builder
	t.print(&b, false)
	return b.String()
}

func (t *Type) write(b *strings.Builder) { t.print(b, true) }

func (t *Type) print(b *strings.Builder, labels bool) {
	if labels && t.Label != "" {
		b.WriteString(t.Label + ": ")
	}
	switch t.Kind {
	case Integer:
		b.WriteString("integer")
	case String:
		b.WriteString("string")
	case Nil:
		b.WriteString("nil")
	case Status:
		b.WriteString("status")
	case StatLit:
		b.WriteString("status(" + quote(t.Str) + ")")
	case Error:
		b.WriteString("error")
		if t.Str != "" {
			b.WriteString("(" + quote(t.Str) + ")")
		}
	case Boolean:
		b.WriteString("boolean")
	case Double:
		b.WriteString("double")
	case Any:
		b.WriteString("any")
	case IntLit:
		b.WriteString(strconv.FormatInt(t.Int, 10))
	case StrLit:
		b.WriteString(quote(t.Str))
	case Array:
		b.WriteString("array(")
		t.Elem.print(b, labels)
		b.WriteString(")")
	case Tuple:
		b.WriteString("[")
		for i, e := range t.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.print(b, labels)
		}
		b.WriteString("]")
	case Union:
		for i, a := range t.Alts {
			if i > 0 {
				b.WriteString(" | ")
			}
			if a.Kind == Union { // only from a hand-built Type
				b.WriteString("(")
				a.print(b, labels)
				b.WriteString(")")
				continue
			}
			a.print(b, labels)
		}
	}
}

// Alternatives returns t's alternatives: t itself when it is not a union.
func (t *Type) Alternatives() []*Type {
	if t.Kind == Union {
		return t.Alts
	}
	return []*Type{t}
}

// Errors returns the error alternatives of t's top level, in order.
func (t *Type) Errors() []*Type {
	var out []*Type
	for _, a := range t.Alternatives() {
		if a.Kind == Error {
			out = append(out, a)
		}
	}
	return out
}

// Success returns t without its top-level error alternatives, or nil when
// every alternative is an error.
func (t *Type) Success() *Type {
	var out []*Type
	for _, a := range t.Alternatives() {
		if a.Kind != Error {
			out = append(out, a)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return &Type{Kind: Union, Alts: out}
}

// ErrorCode is the code of an error reply text: its first word ("ERR",
// "WRONGTYPE"), or "" when the text is empty.
func ErrorCode(text string) string {
	code, _, _ := strings.Cut(text, " ")
	return code
}

// SyntaxError is a problem in a type's text at a 1-based column.
type SyntaxError struct {
	Col int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.Col, e.Msg) }

// MaxDepth bounds the nesting of arrays, tuples and parentheses in a type.
const MaxDepth = 32

// MaxLen bounds the length of a type's text.
const MaxLen = 4096

// Parse reads a type. The error is a *SyntaxError.
func Parse(text string) (*Type, error) {
	if len(text) > MaxLen {
		return nil, &SyntaxError{Col: 1, Msg: fmt.Sprintf("the type is longer than %d bytes", MaxLen)}
	}
	p := &parser{s: text}
	p.next()
	if p.tok.kind == tEOF {
		return nil, &SyntaxError{Col: 1, Msg: "empty type: want integer, string, nil, status, error, boolean, double, any, array(T), [T, ...], a literal or A | B"}
	}
	t := p.union(0)
	if p.err == nil && p.tok.kind != tEOF {
		p.fail("unexpected %s after the type", p.tok.describe())
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := checkUnion(t); err != nil {
		return nil, err
	}
	return t, nil
}

// checkUnion rejects alternatives that are the same type and errors below
// the top level (an error reply is never an element of an array).
func checkUnion(t *Type) error {
	var walk func(t *Type, top bool) error
	walk = func(t *Type, top bool) error {
		switch t.Kind {
		case Error:
			if !top {
				return &SyntaxError{Col: 1, Msg: "an error reply cannot be inside an array or tuple: write error alternatives at the top level"}
			}
		case Array:
			return walk(t.Elem, false)
		case Tuple:
			for _, e := range t.Elems {
				if err := walk(e, false); err != nil {
					return err
				}
			}
		case Union:
			seen := map[string]bool{}
			for _, a := range t.Alts {
				lab := a.Label
				a.Label = ""
				s := a.String()
				a.Label = lab
				if seen[s] {
					return &SyntaxError{Col: 1, Msg: fmt.Sprintf("alternative %s is listed twice", s)}
				}
				seen[s] = true
				if err := walk(a, top); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(t, true)
}

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tStr
	tPunct
	tBad
)

type token struct {
	kind tokKind
	text string // ident, punctuation, raw int
	str  string // decoded string literal
	col  int
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of type"
	case tStr:
		return strconv.Quote(t.str)
	}
	return strconv.Quote(t.text)
}

type parser struct {
	s   string
	pos int
	tok token
	err *SyntaxError
}

func (p *parser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = &SyntaxError{Col: p.tok.col, Msg: fmt.Sprintf(format, args...)}
	}
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

func (p *parser) next() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
	start := p.pos
	col := start + 1
	if p.pos >= len(p.s) {
		p.tok = token{kind: tEOF, col: col}
		return
	}
	c := p.s[p.pos]
	switch {
	case isIdentByte(c, true):
		for p.pos < len(p.s) && isIdentByte(p.s[p.pos], false) {
			p.pos++
		}
		p.tok = token{kind: tIdent, text: p.s[start:p.pos], col: col}
	case c == '-' || c >= '0' && c <= '9':
		p.pos++
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		p.tok = token{kind: tInt, text: p.s[start:p.pos], col: col}
	case c == '"' || c == '\'':
		p.pos++
		var b strings.Builder
		for {
			if p.pos >= len(p.s) {
				p.tok = token{kind: tBad, text: p.s[start:], col: col}
				p.err = &SyntaxError{Col: col, Msg: "unterminated string literal"}
				return
			}
			d := p.s[p.pos]
			if d == c {
				p.pos++
				break
			}
			if d == '\\' && p.pos+1 < len(p.s) {
				switch e := p.s[p.pos+1]; e {
				case '\\', '"', '\'':
					b.WriteByte(e)
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					p.tok = token{kind: tBad, col: p.pos + 1}
					p.err = &SyntaxError{Col: p.pos + 1, Msg: fmt.Sprintf("unknown escape \\%c in a string literal: use \\\\, \\\", \\', \\n or \\t", e)}
					return
				}
				p.pos += 2
				continue
			}
			b.WriteByte(d)
			p.pos++
		}
		p.tok = token{kind: tStr, text: p.s[start:p.pos], str: b.String(), col: col}
	case strings.IndexByte("[](),|:", c) >= 0:
		p.pos++
		p.tok = token{kind: tPunct, text: string(c), col: col}
	default:
		p.pos++
		p.tok = token{kind: tBad, text: p.s[start:p.pos], col: col}
		p.fail("unexpected character %q", c)
	}
}

func (p *parser) is(punct string) bool { return p.tok.kind == tPunct && p.tok.text == punct }

func (p *parser) expect(punct, what string) bool {
	if !p.is(punct) {
		p.fail("want %q %s, found %s", punct, what, p.tok.describe())
		return false
	}
	p.next()
	return true
}

// union reads alternatives separated by |.
func (p *parser) union(depth int) *Type {
	first := p.labelled(depth)
	if p.err != nil || !p.is("|") {
		return first
	}
	u := &Type{Kind: Union, Alts: []*Type{first}}
	if first.Kind == Union { // (A | B) | C flattens
		u.Alts = first.Alts
	}
	for p.err == nil && p.is("|") {
		p.next()
		a := p.labelled(depth)
		if a == nil {
			break
		}
		if a.Kind == Union { // (A | B) | C flattens
			u.Alts = append(u.Alts, a.Alts...)
			continue
		}
		u.Alts = append(u.Alts, a)
	}
	return u
}

// label reads "name:" when it comes next, and returns name (or "").
func (p *parser) label() string {
	if p.tok.kind != tIdent || isKeyword(p.tok.text) {
		return ""
	}
	save := *p
	name := p.tok
	p.next()
	if p.is(":") {
		p.next()
		return name.text
	}
	*p = save
	return ""
}

// labelled reads [label:] primary.
func (p *parser) labelled(depth int) *Type {
	label := p.label()
	t := p.primary(depth)
	if t != nil && label != "" {
		if t.Kind == Union {
			p.err = &SyntaxError{Col: 1, Msg: fmt.Sprintf("label %q names a parenthesised union: label each alternative instead", label)}
			return nil
		}
		t.Label = label
	}
	return t
}

var keywords = []string{"integer", "string", "nil", "status", "error", "boolean", "double", "any", "array"}

func isKeyword(s string) bool {
	for _, k := range keywords {
		if s == k {
			return true
		}
	}
	return false
}

// synonyms are names a reader may reach for; the error suggests the keyword.
var synonyms = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"int": "integer", "bulk": "string", "str": "string", "bool": "boolean",
		"float": "double", "number": "integer", "null": "nil", "list": "array(T)",
		"tuple": "[T, ...]", "simple": "status", "err": "error",
	}
}}

func (p *parser) primary(depth int) *Type {
	if depth >= MaxDepth {
		p.fail("the type nests deeper than %d levels", MaxDepth)
		return nil
	}
	tok := p.tok
	switch tok.kind {
	case tInt:
		n, err := strconv.ParseInt(tok.text, 10, 64)
		if err != nil || tok.text == "-" || tok.text == "-0" || len(tok.text) > 1 && (tok.text[0] == '0' || strings.HasPrefix(tok.text, "-0")) {
			p.fail("invalid integer literal %s: write a decimal integer without leading zeros that fits in 64 bits", tok.text)
			return nil
		}
		p.next()
		return &Type{Kind: IntLit, Int: n}
	case tStr:
		p.next()
		return &Type{Kind: StrLit, Str: tok.str}
	case tPunct:
		switch tok.text {
		case "[":
			p.next()
			t := &Type{Kind: Tuple}
			if p.is("]") {
				p.fail("an empty tuple matches nothing useful: write array(T) for a list that may be empty")
				return nil
			}
			for p.err == nil {
				label := p.label()
				e := p.union(depth + 1)
				if e == nil {
					return nil
				}
				if label != "" {
					if e.Label != "" {
						p.fail("element has two labels, %q and %q", label, e.Label)
						return nil
					}
					e.Label = label
				}
				t.Elems = append(t.Elems, e)
				if p.is(",") {
					p.next()
					continue
				}
				p.expect("]", "to close the tuple (or \",\" before the next element)")
				break
			}
			if p.err != nil {
				return nil
			}
			seen := map[string]bool{}
			for _, e := range t.Elems {
				if e.Label != "" && seen[e.Label] {
					p.err = &SyntaxError{Col: tok.col, Msg: fmt.Sprintf("label %q is used twice in one tuple", e.Label)}
					return nil
				}
				seen[e.Label] = true
			}
			return t
		case "(":
			p.next()
			t := p.union(depth + 1)
			if p.err != nil {
				return nil
			}
			if !p.expect(")", "to close the parenthesis") {
				return nil
			}
			return t
		}
		p.fail("want a type, found %s", tok.describe())
		return nil
	case tIdent:
		p.next()
		switch tok.text {
		case "integer":
			return &Type{Kind: Integer}
		case "string":
			return &Type{Kind: String}
		case "nil":
			return &Type{Kind: Nil}
		case "boolean":
			return &Type{Kind: Boolean}
		case "double":
			return &Type{Kind: Double}
		case "any":
			return &Type{Kind: Any}
		case "status", "error":
			t := &Type{Kind: Status}
			if tok.text == "error" {
				t.Kind = Error
			}
			if !p.is("(") {
				return t
			}
			p.next()
			if p.tok.kind != tStr {
				p.fail("%s(...) takes a quoted text, such as %s(%q); found %s", tok.text, tok.text, map[string]string{"status": "OK", "error": "ERR invalid"}[tok.text], p.tok.describe())
				return nil
			}
			t.Str = p.tok.str
			switch {
			case t.Kind == Error && (t.Str == "" || strings.TrimSpace(t.Str) != t.Str):
				p.fail("an error prefix must be a code such as \"ERR\" or a text such as \"ERR empty token\", without leading or trailing spaces")
				return nil
			case t.Kind == Status:
				t.Kind = StatLit
			}
			p.next()
			if !p.expect(")", "to close "+tok.text+"(...)") {
				return nil
			}
			return t
		case "array":
			if !p.expect("(", "after array: write array(T)") {
				return nil
			}
			e := p.union(depth + 1)
			if p.err != nil {
				return nil
			}
			if !p.expect(")", "to close array(...)") {
				return nil
			}
			return &Type{Kind: Array, Elem: e}
		}
		if s, ok := synonyms.Get()[strings.ToLower(tok.text)]; ok {
			p.err = &SyntaxError{Col: tok.col, Msg: fmt.Sprintf("unknown type %q (did you mean %s?)", tok.text, s)}
			return nil
		}
		p.err = &SyntaxError{Col: tok.col, Msg: fmt.Sprintf("unknown type %q: want integer, string, nil, status, error, boolean, double, any, array(T), [T, ...], a literal or A | B", tok.text)}
		return nil
	}
	p.fail("want a type, found %s", tok.describe())
	return nil
}

// quote writes s as a string literal Parse reads back: only \\, \", newline
// and tab are escaped.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
