package lint

import (
	"strings"
	"testing"
)

func TestSyntaxLevels(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"local a = 'x' return #(a" + strings.Repeat("..a", 197) + ")", false},
		{"local a = 'x' return a" + strings.Repeat("..a", 198), false},
		{"local a = 'x' return a" + strings.Repeat("..a", 199), true},
		{"return " + strings.Repeat("- ", 198) + "1", false},
		{"return " + strings.Repeat("- ", 199) + "1", true},
		{strings.Repeat("do ", 199) + strings.Repeat("end ", 199), false},
		{strings.Repeat("do ", 200) + strings.Repeat("end ", 200), true},
		{"if KEYS[1] then return 1" + strings.Repeat(" elseif KEYS[1] then return 1", 1000) + " end", false},
	} {
		ds := Source("p.lua", []byte(c.src), nil)
		got := len(ds) > 0 && ds[0].Code == "syntax"
		if got != c.want {
			t.Errorf("%.40s: got %v %v", c.src, got, ds)
		}
	}
}

// TestLua51OnlySyntax: chunks Redis's Lua 5.1 reads and gopher-lua's parser
// refuses (goto as a name, a form feed, a hex-float numeral) are linted,
// not reported as syntax errors; the rules still see their code.
func TestLua51OnlySyntax(t *testing.T) {
	for _, src := range []string{
		"local goto = 1\nx = goto",
		"local y = 1\f\nx = y",
		"local y = 0x1p4\nx = y",
	} {
		codes := map[string]int{}
		for _, d := range Source("p.lua", []byte(src), nil) {
			codes[d.Code]++
		}
		if codes["syntax"] != 0 || codes["global-write"] != 1 {
			t.Errorf("%q: findings %v, want one global-write and no syntax", src, codes)
		}
	}
	// A goto statement is still Lua 5.2 syntax to Redis.
	if ds := Source("p.lua", []byte("goto done\n::done::"), nil); len(ds) == 0 || ds[0].Code != "syntax" {
		t.Errorf("goto statement: %v, want a syntax finding", ds)
	}
}
