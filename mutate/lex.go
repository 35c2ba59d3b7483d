package mutate

import (
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// tokKind is the class of a Lua token.
type tokKind int

const (
	tName   tokKind = iota // a name or a keyword
	tNumber                // a numeric literal
	tString                // a quoted or long string literal
	tOp                    // an operator or punctuation
)

// token is one Lua 5.1 token: its class, its exact text and where it
// starts (byte offset, 1-based line and column in bytes).
type token struct {
	kind      tokKind
	text      string
	off       int
	line, col int
}

func (t token) is(kind tokKind, text string) bool { return t.kind == kind && t.text == text }

// keywords are Lua 5.1's reserved words.
var keywords = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
		"false": true, "for": true, "function": true, "if": true, "in": true, "local": true,
		"nil": true, "not": true, "or": true, "repeat": true, "return": true, "then": true,
		"true": true, "until": true, "while": true,
	}
}}

// lex splits src into Lua 5.1 tokens, skipping whitespace, comments and a
// first line starting with '#' (a shebang such as "#!lua flags=no-writes").
// An error names the line and column of a token it cannot finish; a script
// that fails to lex yields no mutants.
func lex(src string) ([]token, error) {
	var toks []token
	i, line, lineStart := 0, 1, 0
	if strings.HasPrefix(src, "#") {
		for i < len(src) && src[i] != '\n' {
			i++
		}
	}
	errorf := func(off int, format string, args ...any) error {
		return fmt.Errorf("line %d, column %d: %s", line, off-lineStart+1, fmt.Sprintf(format, args...))
	}
	// newlines counts the newlines of src[from:to], for tokens that span
	// lines (long strings and comments, escaped newlines in strings).
	newlines := func(from, to int) {
		for j := from; j < to; j++ {
			if src[j] == '\n' {
				line++
				lineStart = j + 1
			}
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			lineStart = i
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			i++
			continue
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			j := i + 2
			if lvl, ok := longBracket(src, j); ok {
				stop, ok := closeLong(src, j, lvl)
				if !ok {
					return toks, errorf(i, "unfinished long comment")
				}
				newlines(i, stop)
				i = stop
				continue
			}
			for j < len(src) && src[j] != '\n' {
				j++
			}
			i = j
			continue
		}
		start, startLine, startCol := i, line, i-lineStart+1
		var kind tokKind
		switch {
		case isNameStart(c):
			for i < len(src) && isNameChar(src[i]) {
				i++
			}
			kind = tName
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			// llex's read_numeral: digits, dots, exponents with a sign,
			// and any name characters (hex digits, 'x').
			for i < len(src) {
				d := src[i]
				if (d == '+' || d == '-') && (src[i-1] == 'e' || src[i-1] == 'E') && !strings.HasPrefix(strings.ToLower(src[start:i]), "0x") {
					i++
					continue
				}
				if !isNameChar(d) && d != '.' {
					break
				}
				i++
			}
			kind = tNumber
		case c == '"' || c == '\'':
			j := i + 1
			for {
				if j >= len(src) || src[j] == '\n' {
					return toks, errorf(i, "unfinished string")
				}
				if src[j] == '\\' && j+1 < len(src) {
					j += 2
					continue
				}
				if src[j] == c {
					j++
					break
				}
				j++
			}
			newlines(i, j)
			i = j
			kind = tString
		case c == '[':
			if lvl, ok := longBracket(src, i); ok {
				stop, ok := closeLong(src, i, lvl)
				if !ok {
					return toks, errorf(i, "unfinished long string")
				}
				newlines(i, stop)
				i = stop
				kind = tString
				break
			}
			i++
			kind = tOp
		default:
			kind = tOp
			n := 1
			for _, op := range []string{"...", "==", "~=", "<=", ">=", ".."} {
				if strings.HasPrefix(src[i:], op) {
					n = len(op)
					break
				}
			}
			if n == 1 && !strings.ContainsRune("+-*/%^#<>=(){}[];:,.", rune(c)) {
				return toks, errorf(i, "unexpected symbol %q", string(c))
			}
			i += n
		}
		toks = append(toks, token{kind: kind, text: src[start:i], off: start, line: startLine, col: startCol})
	}
	return toks, nil
}

// longBracket reports whether src[i:] opens a long bracket ([[ or [=*[),
// and its level.
func longBracket(src string, i int) (int, bool) {
	if i >= len(src) || src[i] != '[' {
		return 0, false
	}
	j := i + 1
	for j < len(src) && src[j] == '=' {
		j++
	}
	if j < len(src) && src[j] == '[' {
		return j - i - 1, true
	}
	return 0, false
}

// closeLong returns the offset just past the closing bracket of the long
// bracket of level lvl that opens at src[i].
func closeLong(src string, i, lvl int) (int, bool) {
	end := strings.Index(src[i+lvl+2:], "]"+strings.Repeat("=", lvl)+"]")
	if end < 0 {
		return 0, false
	}
	return i + lvl + 2 + end + lvl + 2, true
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameChar(c byte) bool  { return isNameStart(c) || isDigit(c) }
