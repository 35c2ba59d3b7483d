package luac51

import "testing"

// TestKeyword: every reserved word is its token, and nothing else is a
// reserved word.
func TestKeyword(t *testing.T) {
	for tok := TkAnd; tok <= TkWhile; tok++ {
		w := tokenNames[tok-TkAnd]
		if got, ok := keyword([]byte(w)); !ok || got != tok {
			t.Errorf("keyword(%q) = %d, %v; want %d", w, got, ok, tok)
		}
	}
	for _, w := range []string{"", "goto", "And", "ends", "el", "functio", "self", "x"} {
		if got, ok := keyword([]byte(w)); ok {
			t.Errorf("keyword(%q) = %d, want none", w, got)
		}
	}
}

// TestTokenLine: a token's Line is the line it starts on, also for a long
// string that ends lines later; the lexer's Line is where it ended.
func TestTokenLine(t *testing.T) {
	lx := NewLexer([]byte("a\n\n[[x\ny\n]] --c\n  b 'q\\\nr' c"), "x")
	want := []struct{ tok, line, end int }{{TkName, 1, 1}, {TkString, 3, 5}, {TkName, 6, 6}, {TkString, 6, 7}, {TkName, 7, 7}}
	for i, w := range want {
		lx.Next()
		if lx.T.Tok != w.tok || lx.T.Line != w.line || lx.Line != w.end {
			t.Errorf("token %d: %s on line %d, lexer on %d; want %s, %d, %d", i, TokenString(lx.T.Tok), lx.T.Line, lx.Line, TokenString(w.tok), w.line, w.end)
		}
	}
}
