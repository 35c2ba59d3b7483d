package yamlnode

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`x`, `the string "x"`},
		{`"1"`, `the string "1"`},
		{`1`, `int 1`},
		{`1.5`, `float 1.5`},
		{`true`, `bool true`},
		{`~`, `null`},
		{`[1]`, `a list`},
		{`{a: 1}`, `a mapping`},
		{`!foo x`, `a value tagged !foo`},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tc.src), &doc); err != nil {
			t.Fatal(err)
		}
		if got := Describe(doc.Content[0]); got != tc.want {
			t.Errorf("Describe(%s) = %q, want %q", tc.src, got, tc.want)
		}
	}
	var doc yaml.Node
	yaml.Unmarshal([]byte("a: &x 5\nb: *x\n"), &doc)
	if got := Describe(doc.Content[0].Content[3]); got != "int 5" {
		t.Errorf("alias: got %q, want int 5", got)
	}
}

func TestJoin(t *testing.T) {
	if got := Join("", "a"); got != "a" {
		t.Errorf("Join(\"\", a) = %q", got)
	}
	if got := Join("a.b", "c"); got != "a.b.c" {
		t.Errorf("Join(a.b, c) = %q", got)
	}
}
