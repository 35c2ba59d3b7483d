package luac51

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// The lexer is llex.c: tokens with their values, the line counter the code
// generator stamps on every instruction, and Lua 5.1's lexical errors.

// Tokens: single characters are their byte value; the rest follow.
const (
	tkAnd = 257 + iota
	tkBreak
	tkDo
	tkElse
	tkElseif
	tkEnd
	tkFalse
	tkFor
	tkFunction
	tkIf
	tkIn
	tkLocal
	tkNil
	tkNot
	tkOr
	tkRepeat
	tkReturn
	tkThen
	tkTrue
	tkUntil
	tkWhile
	tkConcat
	tkDots
	tkEq
	tkGe
	tkLe
	tkNe
	tkNumber
	tkName
	tkString
	tkEOS
)

var tokenNames = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
	"if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true",
	"until", "while", "..", "...", "==", ">=", "<=", "~=", "<number>", "<name>",
	"<string>", "<eof>",
}

var keywords = func() map[string]int {
	m := map[string]int{}
	for i := tkAnd; i <= tkWhile; i++ {
		m[tokenNames[i-tkAnd]] = i
	}
	return m
}()

func token2str(t int) string {
	if t < 257 {
		if t < 32 || t == 127 {
			return fmt.Sprintf("char(%d)", t)
		}
		return string([]byte{byte(t)})
	}
	return tokenNames[t-257]
}

// token is a token and its semantic value.
type token struct {
	tok int
	s   string  // a name's or string's value
	raw string  // the text as an error message quotes it
	n   float64 // a number's value
}

type lexer struct {
	src   []byte
	pos   int
	line  int
	chunk string

	t        token
	ahead    token
	hasAhead bool
	lastLine int // line of the last token consumed
}

// Error is a compile error: "chunk:line: message".
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func (lx *lexer) cur() int {
	if lx.pos < len(lx.src) {
		return int(lx.src[lx.pos])
	}
	return -1
}

func (lx *lexer) errorf(msg string, tok int, raw string) {
	s := fmt.Sprintf("%s:%d: %s", lx.chunk, lx.line, msg)
	if tok != 0 {
		switch tok {
		case tkName, tkString, tkNumber:
			s += fmt.Sprintf(" near '%s'", raw)
		default:
			s += fmt.Sprintf(" near '%s'", token2str(tok))
		}
	}
	panic(&Error{s})
}

func isNewline(c int) bool { return c == '\n' || c == '\r' }

func isAlpha(c int) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isDigit(c int) bool { return c >= '0' && c <= '9' }

func (lx *lexer) incLine() {
	old := lx.cur()
	lx.pos++
	if c := lx.cur(); isNewline(c) && c != old {
		lx.pos++
	}
	lx.line++
}

func (lx *lexer) next() {
	lx.lastLine = lx.line
	if lx.hasAhead {
		lx.t, lx.hasAhead = lx.ahead, false
		return
	}
	lx.t = lx.scan()
}

func (lx *lexer) lookahead() int {
	if !lx.hasAhead {
		lx.ahead = lx.scan()
		lx.hasAhead = true
	}
	return lx.ahead.tok
}

func (lx *lexer) scan() token {
	for {
		c := lx.cur()
		switch {
		case c < 0:
			return token{tok: tkEOS}
		case isNewline(c):
			lx.incLine()
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			lx.pos++
		case c == '-':
			lx.pos++
			if lx.cur() != '-' {
				return token{tok: '-'}
			}
			lx.pos++
			if lx.cur() == '[' {
				start := lx.pos
				if sep := lx.skipSep(); sep >= 0 {
					lx.readLongString(sep, false)
					continue
				}
				lx.pos = start
			}
			for c := lx.cur(); c >= 0 && !isNewline(c); c = lx.cur() {
				lx.pos++
			}
		case c == '[':
			start := lx.pos
			sep := lx.skipSep()
			if sep >= 0 {
				s := lx.readLongString(sep, true)
				return token{tok: tkString, s: s, raw: string(lx.src[start:lx.pos])}
			}
			if sep == -1 {
				return token{tok: '['}
			}
			lx.errorf("invalid long string delimiter", tkString, string(lx.src[start:lx.pos]))
		case c == '=':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return token{tok: tkEq}
			}
			return token{tok: '='}
		case c == '<':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return token{tok: tkLe}
			}
			return token{tok: '<'}
		case c == '>':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return token{tok: tkGe}
			}
			return token{tok: '>'}
		case c == '~':
			lx.pos++
			if lx.cur() == '=' {
				lx.pos++
				return token{tok: tkNe}
			}
			return token{tok: '~'}
		case c == '"' || c == '\'':
			s, raw := lx.readString(c)
			return token{tok: tkString, s: s, raw: raw}
		case c == '.':
			// check_next(ls, ".") takes a NUL byte for the dot too.
			lx.pos++
			if c := lx.cur(); c == '.' || c == 0 {
				lx.pos++
				if c := lx.cur(); c == '.' || c == 0 {
					lx.pos++
					return token{tok: tkDots}
				}
				return token{tok: tkConcat}
			}
			if !isDigit(lx.cur()) {
				return token{tok: '.'}
			}
			lx.pos--
			return lx.readNumeral()
		case isDigit(c):
			return lx.readNumeral()
		case isAlpha(c):
			start := lx.pos
			for c := lx.cur(); isAlpha(c) || isDigit(c); c = lx.cur() {
				lx.pos++
			}
			word := string(lx.src[start:lx.pos])
			if k, ok := keywords[word]; ok {
				return token{tok: k}
			}
			return token{tok: tkName, s: word, raw: word}
		default:
			lx.pos++
			return token{tok: c}
		}
	}
}

func (lx *lexer) readNumeral() token {
	start := lx.pos
	for c := lx.cur(); isDigit(c) || c == '.'; c = lx.cur() {
		lx.pos++
	}
	// check_next(ls, "Ee") and check_next(ls, "+-") test with strchr,
	// which also finds the set's terminating NUL: a NUL byte there is
	// taken as the exponent mark or sign.
	if c := lx.cur(); c == 'e' || c == 'E' || c == 0 {
		lx.pos++
		if c := lx.cur(); c == '+' || c == '-' || c == 0 {
			lx.pos++
		}
	}
	for c := lx.cur(); isAlpha(c) || isDigit(c); c = lx.cur() {
		lx.pos++
	}
	text := string(lx.src[start:lx.pos])
	n, ok := lualib.ToNumber(lua.LString(text))
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i] // Lua reads the number as a C string
	}
	if !ok {
		lx.errorf("malformed number", tkNumber, text)
	}
	return token{tok: tkNumber, n: n, raw: text}
}

// skipSep reads [===[ or ]===]: the count of '=' when the bracket repeats,
// -1 for a lone bracket, -(count)-1 for "[=" not followed by '['.
func (lx *lexer) skipSep() int {
	s := lx.cur()
	lx.pos++
	count := 0
	for lx.cur() == '=' {
		lx.pos++
		count++
	}
	if lx.cur() == s {
		lx.pos++
		return count
	}
	return -count - 1
}

func (lx *lexer) readLongString(sep int, isString bool) string {
	var b strings.Builder
	if isNewline(lx.cur()) {
		lx.incLine()
	}
	for {
		c := lx.cur()
		switch {
		case c < 0:
			what := "unfinished long comment"
			if isString {
				what = "unfinished long string"
			}
			lx.errorf(what, tkEOS, "")
		case c == ']':
			start := lx.pos
			if lx.skipSep() == sep {
				return b.String()
			}
			// skipSep consumed the ']' and the '='; Lua saves them and
			// goes on at the character after them.
			b.Write(lx.src[start:lx.pos])
		case isNewline(c):
			b.WriteByte('\n')
			lx.incLine()
		default:
			b.WriteByte(byte(c))
			lx.pos++
		}
	}
}

// readString returns a quoted string's value and its text as errors quote it.
func (lx *lexer) readString(del int) (string, string) {
	var b strings.Builder
	b.WriteByte(byte(del))
	lx.pos++
	for lx.cur() != del {
		c := lx.cur()
		switch {
		case c < 0:
			lx.errorf("unfinished string", tkEOS, "")
		case isNewline(c):
			lx.errorf("unfinished string", tkString, b.String())
		case c == '\\':
			lx.pos++
			e := lx.cur()
			switch e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'v':
				b.WriteByte('\v')
			case '\n', '\r':
				b.WriteByte('\n')
				lx.incLine()
				continue
			case -1:
				continue // unfinished string, reported above
			default:
				if !isDigit(e) {
					b.WriteByte(byte(e))
					break
				}
				n := 0
				for i := 0; i < 3 && isDigit(lx.cur()); i++ {
					n = n*10 + lx.cur() - '0'
					lx.pos++
				}
				if n > 255 {
					lx.errorf("escape sequence too large", tkString, b.String())
				}
				b.WriteByte(byte(n))
				continue
			}
			lx.pos++
		default:
			b.WriteByte(byte(c))
			lx.pos++
		}
	}
	lx.pos++
	b.WriteByte(byte(del))
	s := b.String()
	return s[1 : len(s)-1], s
}
