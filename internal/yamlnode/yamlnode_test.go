package yamlnode

import (
	"fmt"
	"slices"
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

func TestPairs(t *testing.T) {
	for _, tc := range []struct {
		src  string
		keys []string // the pairs returned, in order
		errs []string // "line field: message"
	}{
		{"a: 1\n2: x\n1.5: y\n", []string{"a", "2", "1.5"}, nil},
		{"a: 1\nb: 2\na: 3\n", []string{"a", "b"}, []string{`3 top.a: duplicate key "a" (first at line 1)`}},
		{"~: 1\ntrue: 2\n[x]: 3\nok: 4\n", []string{"ok"}, []string{
			"1 top: keys must be strings, not null",
			"2 top: keys must be strings, not bool true",
			"3 top: keys must be strings, not a list",
		}},
		{"base: &b {x: 1}\nm:\n  <<: *b\n", []string{"base", "m"}, nil},
		{"[1, 2]\n", nil, []string{"1 top: must be a mapping, not a list"}},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tc.src), &doc); err != nil {
			t.Fatal(err)
		}
		var errs []string
		report := func(at *yaml.Node, field, msg string) {
			errs = append(errs, fmt.Sprintf("%d %s: %s", at.Line, field, msg))
		}
		var keys []string
		for _, kv := range Pairs(doc.Content[0], "top", report) {
			keys = append(keys, kv[0].Value)
		}
		if !slices.Equal(keys, tc.keys) || !slices.Equal(errs, tc.errs) {
			t.Errorf("%q: keys %q errors %q, want %q %q", tc.src, keys, errs, tc.keys, tc.errs)
		}
	}
	// A merge key inside a nested mapping is refused there.
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("base: &b {x: 1}\nm:\n  <<: *b\n"), &doc); err != nil {
		t.Fatal(err)
	}
	var errs []string
	m := Pairs(doc.Content[0], "", func(*yaml.Node, string, string) {})[1][1]
	if got := Pairs(m, "m", func(at *yaml.Node, field, msg string) { errs = append(errs, field+": "+msg) }); len(got) != 0 ||
		!slices.Equal(errs, []string{"m: merge keys (<<) are not supported: write the fields out"}) {
		t.Errorf("merge key: pairs %v, errors %q", got, errs)
	}
}

func TestIndentContext(t *testing.T) {
	doc := "schema: 1\nscripts:\n  release:\n    file: a.lua\n    keys: [k]\n   args: [t]\n"
	at, col, note, ok := IndentContext([]byte(doc), 3, "did not find expected key")
	if !ok || at != 6 || col != 4 || note != "line 6 is indented 3 spaces, which matches no enclosing block (indented 0, 2 or 4)" {
		t.Fatalf("IndentContext = %d, %d, %q, %v", at, col, note, ok)
	}
	if _, _, _, ok := IndentContext([]byte(doc), 3, "found character that cannot start any token"); ok {
		t.Fatal("not an indentation error: ok")
	}
	if _, _, _, ok := IndentContext([]byte("a:\n  b: 1\nc: 2\n"), 1, "did not find expected key"); ok {
		t.Fatal("consistent indentation: ok")
	}
}
