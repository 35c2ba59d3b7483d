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
