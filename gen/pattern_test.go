package gen

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// patternCorpus are patterns written in manifests' placeholders (anchored,
// unanchored, classes, repeats, case folding, Perl classes, anchors,
// boundaries) and values that tell the dialects apart.
var patternCorpus = []string{
	`^[0-9]+$`, `^[a-z][a-z0-9_-]*$`, `^[^{}]+$`, `[a-z]+`, `^\w+$`, `^\d{1,3}$`, `^\s*$`, `\S`,
	`^[[:alpha:]]+$`, `^(?i)abc$`, `(?i)k`, `^a.b$`, `(?s)^a.b$`, `^(ab|cd)+$`, `^x{2,}$`, `^x{2}y?$`,
	`\bfoo\b`, `\Bfoo`, `(?m)^b$`, `^$`, `\Aab\z`, `^[^a]$`, `^\p{Greek}+$`, `^\pL+$`, `^[\x{1F600}-\x{1F64F}]$`,
	`^a*?b$`, `^\.\+\*\?\(\)\[\]\{\}\|\^\$\\/$`, `^[\-\]]$`, `x|`, `^\x00$`,
}

var patternValues = []string{
	"", "0", "42", "123", "1234", "abc", "ABC", "aBc", "a_b-c", "a}b", "{", "}", "}a{", "é", "ÉÈ", "a\nb", "a\rb", "a\u2028b",
	"b\n", "a\nb\nc", "foo", "foobar", "a foo b", "xfoo", "k", "K", "\u212a", " ", "\t", "\u00a0", "\u3000", "x", "xx", "xxy",
	"αβγ", "Ωmega", "😀", "😀😀", "aab", "ab", "abcd", "ab\n", ".+*?()[]{}|^$\\/", "-", "]", "\x00", "٣", "ａ",
}

// The TypeScript and Python bindings check a placeholder's pattern with a
// translation that accepts exactly the values Go's regexp.MatchString does:
// every pattern of the corpus against every value, in Node and in Python.
func TestPatternTranslation(t *testing.T) {
	type pat struct {
		JS, Py string
	}
	var pats []pat
	want := make([][]bool, len(patternCorpus))
	for i, p := range patternCorpus {
		re := regexp.MustCompile(p)
		js, err := translatePattern(p, patternJS)
		if err != nil {
			t.Fatal(err)
		}
		py, err := translatePattern(p, patternPython)
		if err != nil {
			t.Fatal(err)
		}
		pats = append(pats, pat{js, py})
		for _, v := range patternValues {
			want[i] = append(want[i], re.MatchString(v))
		}
	}
	input, err := json.Marshal(map[string]any{"patterns": pats, "values": patternValues})
	if err != nil {
		t.Fatal(err)
	}
	check := func(lang string, got [][]bool) {
		for i := range want {
			for j := range want[i] {
				if got[i][j] != want[i][j] {
					t.Errorf("%s: pattern %q on %q: %v, Go says %v (translated %+v)", lang, patternCorpus[i], patternValues[j], got[i][j], want[i][j], pats[i])
				}
			}
		}
	}
	ran := 0
	if _, err := exec.LookPath("node"); err == nil {
		ran++
		check("node", runMatcher(t, "node", "-e", `
const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(d.patterns.map(p => { const re = new RegExp(p.JS, "u"); return d.values.map(v => re.test(v)); })));`, input))
	}
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if _, err := exec.LookPath(py); err == nil {
			ran++
			check("python", runMatcher(t, py, "-c", `
import json, re, sys
d = json.load(sys.stdin)
print(json.dumps([[re.compile(p["Py"]).search(v) is not None for v in d["values"]] for p in d["patterns"]]))`, input))
			break
		}
	}
	if ran < 2 {
		if os.Getenv("CI") == "true" {
			t.Fatal("node and python3 are needed (CI=true)")
		}
		t.Skip("node or python3 is not on PATH")
	}
}

func runMatcher(t *testing.T, name, flag, prog string, input []byte) [][]bool {
	t.Helper()
	cmd := exec.Command(name, flag, prog)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		stdin.Write(input)
		stdin.Close()
	}()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var got [][]bool
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v: %s", name, err, out)
	}
	return got
}
