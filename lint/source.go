package lint

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// Pass is what every analyzer sees of one script: the source, its parse
// tree (nil when it does not parse), the manifest's declaration (nil for a
// file the manifest does not list) and the facts the value tracker found.
type Pass struct {
	File   string
	Source []byte
	Decl   *Decl

	// Chunk is the parse tree of the script with its shebang line blanked;
	// nil when ParseErr is set.
	Chunk    []ast.Stmt
	ParseErr *parse.Error

	// Shebang holds the shebang flags; HasShebang is false without one.
	Shebang    []string
	HasShebang bool
	ShebangErr error

	// Facts is what the value tracker found; nil when the script does not
	// parse.
	Facts *Facts

	// Profile is the run's Config.Profile.
	Profile string

	lines  []string        // source lines, shebang included
	tokens map[int][]token // line -> tokens on it, in order
	cursor map[int]int     // line -> index of the next token to match
	// runeAt is pos's last conversion (line, byte offset, rune count):
	// columns asked in source order on one long line are counted from
	// there, so a 100,000-operator line costs its length once.
	runeAt struct{ line, b, r int }
	ascii  []int8 // per line: 0 not looked at, 1 ASCII only, 2 not
	supps  []suppression
}

type token struct {
	typ int
	str string
	col int // byte column, 1-based
}

// newPass reads one script; with parse it also tokenizes and parses it,
// and with flow it tracks values through it (Facts), which every rule but
// syntax and the line-based ones needs.
func newPass(path string, src []byte, decl *Decl, parse, flow bool) *Pass {
	p := &Pass{File: path, Source: src, Decl: decl, cursor: map[int]int{}, tokens: map[int][]token{}}
	p.lines = splitLines(string(src))
	p.Shebang, p.HasShebang, p.ShebangErr = manifest.Shebang(src)
	body := manifest.StripShebang(src)
	if parse {
		p.tokenize(body)
		p.parse(body)
	}
	p.supps = parseSuppressions(p.lines)
	if p.Chunk != nil && flow {
		p.Facts = track(p)
	}
	return p
}

// splitLines splits src at line breaks as Lua counts them: "\n", "\r",
// "\r\n" and "\n\r" each end one line.
func splitLines(src string) []string {
	var out []string
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\n' && c != '\r' {
			continue
		}
		out = append(out, src[start:i])
		if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') && src[i+1] != c {
			i++
		}
		start = i + 1
	}
	return append(out, src[start:])
}

func (p *Pass) parse(body []byte) {
	// The engine's Lua 5.1 parser reads what Redis reads (goto as a name,
	// form feeds, hex-float numerals too), building the tree gopher-lua's
	// parser builds. What it refuses, gopher-lua's parser reads again for
	// the syntax finding's position and for Lua 5.2's goto and labels,
	// which it accepts and the rules report as such.
	chunk, err := verify.ParseLua51(body, p.File)
	if err != nil {
		chunk, err = parseChunk(body, p.File)
	}
	if err != nil {
		var pe *parse.Error
		if !errors.As(err, &pe) {
			pe = &parse.Error{Pos: ast.Position{Line: 1, Column: 1}, Message: err.Error()}
		}
		p.ParseErr = pe
		return
	}
	if chunk == nil {
		chunk = []ast.Stmt{}
	}
	if n := tooDeep(chunk); n != nil {
		// Redis's Lua refuses it; the linter walks no deeper (levels.go).
		p.ParseErr = &parse.Error{Pos: ast.Position{Line: n.Line(), Column: 1},
			Message: fmt.Sprintf("chunk has too many syntax levels (Redis's Lua 5.1 nests at most %d blocks and sub-expressions)", maxSyntaxLevels)}
		return
	}
	p.Chunk = chunk
}

// parseChunk runs gopher-lua's parser, turning any panic it lets through
// into an error.
func parseChunk(body []byte, name string) (chunk []ast.Stmt, err error) {
	defer func() {
		if r := recover(); r != nil {
			chunk, err = nil, errors.New("parse error")
		}
	}()
	chunk, err = parse.Parse(bytes.NewReader(body), name)
	if err == nil && chunk == nil && len(bytes.TrimSpace(body)) > 0 && !onlyComments(body) {
		// gopher-lua swallows panics that are not errors.
		return nil, errors.New("parse error")
	}
	return chunk, err
}

func onlyComments(body []byte) bool {
	sc := parse.NewScanner(bytes.NewReader(body), "")
	tok, err := sc.Scan(&parse.Lexer{})
	return err == nil && tok.Type == parse.EOF
}

func (p *Pass) tokenize(body []byte) {
	sc := parse.NewScanner(bytes.NewReader(body), "")
	lx := &parse.Lexer{}
	for i := 0; i < 1<<22; i++ {
		tok, err := sc.Scan(lx)
		if err != nil || tok.Type == parse.EOF || tok.Pos.Line <= 0 {
			return
		}
		lx.PrevTokenType = tok.Type
		p.tokens[tok.Pos.Line] = append(p.tokens[tok.Pos.Line], token{typ: tok.Type, str: tok.Str, col: tok.Pos.Column})
	}
}

// locate returns the position of the next token on line with type typ and
// text str (str "" matches any text), scanning forward from the line's
// cursor so repeated names on one line resolve in source order. When no
// such token follows the cursor, the first one on the line is used; when the
// line has none, the column is that of the line's first token.
func (p *Pass) locate(line, typ int, str string) Pos {
	toks := p.tokens[line]
	match := func(t token) bool { return t.typ == typ && (str == "" || t.str == str) }
	for i := p.cursor[line]; i < len(toks); i++ {
		if match(toks[i]) {
			p.cursor[line] = i + 1
			return p.pos(line, toks[i].col)
		}
	}
	if i := slices.IndexFunc(toks, match); i >= 0 {
		return p.pos(line, toks[i].col)
	}
	if len(toks) > 0 {
		return p.pos(line, toks[0].col)
	}
	return p.pos(line, 1)
}

// pos converts a byte column to a character column.
func (p *Pass) pos(line, byteCol int) Pos {
	line = max(1, min(line, len(p.lines)))
	col := byteCol
	if line <= len(p.lines) {
		l := p.lines[line-1]
		if byteCol-1 <= len(l) && byteCol >= 1 && p.isASCII(line) {
			col = byteCol
		} else if byteCol-1 <= len(l) && byteCol >= 1 {
			b, r := 0, 0
			if at := p.runeAt; at.line == line && at.b <= byteCol-1 {
				b, r = at.b, at.r
			}
			r += utf8.RuneCountInString(l[b : byteCol-1])
			p.runeAt.line, p.runeAt.b, p.runeAt.r = line, byteCol-1, r
			col = r + 1
		}
	}
	if col < 1 {
		col = 1
	}
	return Pos{File: p.File, Line: line, Col: col}
}

// isASCII reports whether line (1-based) is ASCII only, when a byte
// column is its character column; each line is looked at once.
func (p *Pass) isASCII(line int) bool {
	if p.ascii == nil {
		p.ascii = make([]int8, len(p.lines))
	}
	if p.ascii[line-1] == 0 {
		p.ascii[line-1] = 1
		for i := 0; i < len(p.lines[line-1]); i++ {
			if p.lines[line-1][i] >= utf8.RuneSelf {
				p.ascii[line-1] = 2
				break
			}
		}
	}
	return p.ascii[line-1] == 1
}

// Readonly reports whether the script is flagged no-writes, in the manifest
// or in its shebang.
func (p *Pass) Readonly() bool {
	if p.Decl != nil && slices.Contains(p.Decl.Flags, "no-writes") {
		return true
	}
	return p.HasShebang && slices.Contains(p.Shebang, "no-writes")
}

// suppression is one "-- scriptctl:ignore <code> <reason>" comment.
type suppression struct {
	line   int
	col    int
	code   string
	reason string
}

// suppressRe matches the comment in a line comment or a one-line block
// comment (--[[ scriptctl:ignore <code> <reason> ]]).
var suppressRe = lazy.Regexp(`--(?:\[(=*)\[)?\s*scriptctl:ignore\b[ \t]*([^ \t]*)[ \t]*(.*?)\s*$`)

func parseSuppressions(lines []string) []suppression {
	var out []suppression
	for i, l := range lines {
		if !strings.Contains(l, "scriptctl:ignore") {
			continue
		}
		m := suppressRe.Get().FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		s := suppression{line: i + 1, col: utf8.RuneCountInString(l[:m[0]]) + 1, code: l[m[4]:m[5]], reason: l[m[6]:m[7]]}
		if m[2] >= 0 { // a block comment: drop its closing bracket
			end := "]" + l[m[2]:m[3]] + "]"
			if s.reason == "" {
				s.code = strings.TrimSuffix(s.code, end)
			}
			s.reason = strings.TrimSpace(strings.TrimSuffix(s.reason, end))
		}
		out = append(out, s)
	}
	return out
}

// suppress drops the diagnostics that a well-formed suppression on their
// line or the line above covers.
func (p *Pass) suppress(ds []Diagnostic) []Diagnostic {
	if len(p.supps) == 0 {
		return ds
	}
	out := ds[:0]
	for _, d := range ds {
		if !p.suppressed(d) {
			out = append(out, d)
		}
	}
	return out
}

// covers reports whether s, on pos's line or the line above, silences a
// finding at pos.
func covers(s suppression, pos Pos) bool {
	return s.line == pos.Line || s.line == pos.Line-1
}

func (p *Pass) suppressed(d Diagnostic) bool {
	if d.Code == "bad-suppression" {
		return false
	}
	for _, s := range p.supps {
		if s.reason != "" && s.code == d.Code && (covers(s, d.Pos) || d.also.Line > 0 && covers(s, d.also)) {
			return true
		}
	}
	return false
}
