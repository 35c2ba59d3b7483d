package luac51

import (
	"fmt"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// The lexer is llex.c: tokens with their values, the line counter the code
// generator stamps on every instruction, and Lua 5.1's lexical errors. The
// engine's Lua 5.1 parser (verify's syntax51.go) reads the same tokens.

// Tokens: single characters are their byte value; the rest follow.
const (
	TkAnd = 257 + iota
	TkBreak
	TkDo
	TkElse
	TkElseif
	TkEnd
	TkFalse
	TkFor
	TkFunction
	TkIf
	TkIn
	TkLocal
	TkNil
	TkNot
	TkOr
	TkRepeat
	TkReturn
	TkThen
	TkTrue
	TkUntil
	TkWhile
	TkConcat
	TkDots
	TkEq
	TkGe
	TkLe
	TkNe
	TkNumber
	TkName
	TkString
	TkEOS
)

var tokenNames = []string{
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
	"if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true",
	"until", "while", "..", "...", "==", ">=", "<=", "~=", "<number>", "<name>",
	"<string>", "<eof>",
}

// keyword returns the reserved word w's token (a switch: no map to build
// at start, no hashing per name).
func keyword(w []byte) (int, bool) {
	switch string(w) {
	case "and":
		return TkAnd, true
	case "break":
		return TkBreak, true
	case "do":
		return TkDo, true
	case "else":
		return TkElse, true
	case "elseif":
		return TkElseif, true
	case "end":
		return TkEnd, true
	case "false":
		return TkFalse, true
	case "for":
		return TkFor, true
	case "function":
		return TkFunction, true
	case "if":
		return TkIf, true
	case "in":
		return TkIn, true
	case "local":
		return TkLocal, true
	case "nil":
		return TkNil, true
	case "not":
		return TkNot, true
	case "or":
		return TkOr, true
	case "repeat":
		return TkRepeat, true
	case "return":
		return TkReturn, true
	case "then":
		return TkThen, true
	case "true":
		return TkTrue, true
	case "until":
		return TkUntil, true
	case "while":
		return TkWhile, true
	}
	return 0, false
}

// TokenString is llex.c's luaX_token2str: how an error message names token t.
func TokenString(t int) string {
	if t < 257 {
		if t < 32 || t == 127 {
			return fmt.Sprintf("char(%d)", t)
		}
		return string([]byte{byte(t)})
	}
	return tokenNames[t-257]
}

// Token is a token and its semantic value.
type Token struct {
	Tok int
	S   string  // a name's or string's value
	Raw string  // the text as an error message quotes it
	N   float64 // a number's value
	// Line is the line the token starts on (a long string may end on a
	// later one, where Lexer.Line then is).
	Line int
}

// Lexer reads the tokens of a chunk (llex.c's LexState).
type Lexer struct {
	src   []byte
	pos   int
	chunk string

	T        Token // the current token
	Line     int   // the line the lexer is on (ls->linenumber)
	LastLine int   // line of the last token consumed (ls->lastline)
	ahead    Token
	hasAhead bool
	tokLine  int // the line the token being scanned starts on
	// words holds each name and numeral text read so far, so that a
	// chunk that repeats one (most do) allocates it once.
	words map[string]string
}

// NewLexer returns a lexer of src whose errors name chunk (a chunk id,
// ChunkID); Next reads its first token.
func NewLexer(src []byte, chunk string) *Lexer {
	return &Lexer{src: src, Line: 1, chunk: chunk}
}

// Error is a compile error: "chunk:line: message".
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func (lx *Lexer) cur() int {
	if lx.pos < len(lx.src) {
		return int(lx.src[lx.pos])
	}
	return -1
}

// Errorf panics with the *Error "chunk:line: msg", followed by "near" and
// token tok (raw: its text) unless tok is 0 (llex.c's luaX_lexerror).
func (lx *Lexer) Errorf(msg string, tok int, raw string) {
	s := fmt.Sprintf("%s:%d: %s", lx.chunk, lx.Line, msg)
	if tok != 0 {
		switch tok {
		case TkName, TkString, TkNumber:
			s += fmt.Sprintf(" near '%s'", raw)
		default:
			s += fmt.Sprintf(" near '%s'", TokenString(tok))
		}
	}
	panic(&Error{s})
}

func isNewline(c int) bool { return c == '\n' || c == '\r' }

func isAlpha(c int) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isDigit(c int) bool { return c >= '0' && c <= '9' }

func (lx *Lexer) incLine() {
	old := lx.cur()
	lx.pos++
	if c := lx.cur(); isNewline(c) && c != old {
		lx.pos++
	}
	lx.Line++
}

// Next reads the next token into T (luaX_next).
func (lx *Lexer) Next() {
	lx.LastLine = lx.Line
	if lx.hasAhead {
		lx.T, lx.hasAhead = lx.ahead, false
		return
	}
	lx.scan(&lx.T)
}

// Lookahead reads the token after T and returns it (luaX_lookahead).
func (lx *Lexer) Lookahead() int {
	if !lx.hasAhead {
		lx.scan(&lx.ahead)
		lx.hasAhead = true
	}
	return lx.ahead.Tok
}

// scan reads the next token into t, with the line it starts on.
func (lx *Lexer) scan(t *Token) {
	lx.scanToken(t)
	t.Line = lx.tokLine
}

func (lx *Lexer) scanToken(t *Token) {
	for {
		lx.tokLine = lx.Line
		c := lx.cur()
		switch {
		case c < 0:
			*t = Token{Tok: TkEOS}
			return
		case isNewline(c):
			lx.incLine()
		case c == ' ' || c == '\t':
			lx.pos++
		case c == '\f' || c == '\v':
			lx.pos++
		case c == '-':
			lx.pos++
			if lx.cur() != '-' {
				*t = Token{Tok: '-'}
				return
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
				// Lua's buffer holds the brackets around the value, the
				// first newline skipped and line ends as '\n'.
				eq := strings.Repeat("=", sep)
				*t = Token{Tok: TkString, S: s, Raw: "[" + eq + "[" + s + "]" + eq + "]"}
				return
			}
			if sep == -1 {
				*t = Token{Tok: '['}
				return
			}
			lx.Errorf("invalid long string delimiter", TkString, string(lx.src[start:lx.pos]))
		case c == '=':
			*t = lx.twoChar('=', '=', TkEq)
			return
		case c == '<':
			*t = lx.twoChar('<', '=', TkLe)
			return
		case c == '>':
			*t = lx.twoChar('>', '=', TkGe)
			return
		case c == '~':
			*t = lx.twoChar('~', '=', TkNe)
			return
		case c == '"' || c == '\'':
			s, raw := lx.readString(c)
			*t = Token{Tok: TkString, S: s, Raw: raw}
			return
		case c == '.':
			// check_next(ls, ".") takes a NUL byte for the dot too (strchr
			// finds the set's terminator): the compiler sees a dot there.
			lx.pos++
			if c := lx.cur(); c == '.' || c == 0 {
				lx.pos++
				if c := lx.cur(); c == '.' || c == 0 {
					lx.pos++
					*t = Token{Tok: TkDots}
					return
				}
				*t = Token{Tok: TkConcat}
				return
			}
			if !isDigit(lx.cur()) {
				*t = Token{Tok: '.'}
				return
			}
			lx.pos--
			*t = lx.readNumeral()
			return
		case isDigit(c):
			*t = lx.readNumeral()
			return
		case isAlpha(c):
			start := lx.pos
			for c := lx.cur(); isAlpha(c) || isDigit(c); c = lx.cur() {
				lx.pos++
			}
			if k, ok := keyword(lx.src[start:lx.pos]); ok {
				*t = Token{Tok: k}
				return
			}
			word := lx.word(lx.src[start:lx.pos])
			*t = Token{Tok: TkName, S: word, Raw: word}
			return
		default:
			lx.pos++
			*t = Token{Tok: c}
			return
		}
	}
}

// word returns b as a string, the same string for the same bytes.
func (lx *Lexer) word(b []byte) string {
	if len(b) <= 1 {
		return string(b) // Go's one-byte strings are static
	}
	if w, ok := lx.words[string(b)]; ok {
		return w
	}
	if lx.words == nil {
		lx.words = map[string]string{}
	}
	w := string(b)
	lx.words[w] = w
	return w
}

// twoChar reads c, or c followed by next as the token two.
func (lx *Lexer) twoChar(c, next, two int) Token {
	lx.pos++
	if lx.cur() == next {
		lx.pos++
		return Token{Tok: two}
	}
	return Token{Tok: c}
}

func (lx *Lexer) readNumeral() Token {
	start := lx.pos
	for c := lx.cur(); isDigit(c) || c == '.'; c = lx.cur() {
		lx.pos++
	}
	// check_next(ls, "Ee") and check_next(ls, "+-") test with strchr,
	// which also finds the set's terminating NUL: a NUL byte there is
	// taken as the exponent mark or sign ("1\0 + 2" is 3).
	if c := lx.cur(); c == 'e' || c == 'E' || c == 0 {
		lx.pos++
		if c := lx.cur(); c == '+' || c == '-' || c == 0 {
			lx.pos++
		}
	}
	for c := lx.cur(); isAlpha(c) || isDigit(c); c = lx.cur() {
		lx.pos++
	}
	text := lx.word(lx.src[start:lx.pos])
	n, ok := cnum.Str2d(text)
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i] // Lua reads the number as a C string
	}
	if !ok {
		lx.Errorf("malformed number", TkNumber, text)
	}
	return Token{Tok: TkNumber, N: n, Raw: text}
}

// skipSep reads [===[ or ]===]: the count of '=' when the bracket repeats,
// -1 for a lone bracket, -(count)-1 for "[=" not followed by '['.
func (lx *Lexer) skipSep() int {
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

func (lx *Lexer) readLongString(sep int, isString bool) string {
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
			lx.Errorf(what, TkEOS, "")
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
func (lx *Lexer) readString(del int) (string, string) {
	var b strings.Builder
	b.WriteByte(byte(del))
	lx.pos++
	for lx.cur() != del {
		c := lx.cur()
		switch {
		case c < 0:
			lx.Errorf("unfinished string", TkEOS, "")
		case isNewline(c):
			lx.Errorf("unfinished string", TkString, b.String())
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
					lx.Errorf("escape sequence too large", TkString, b.String())
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
