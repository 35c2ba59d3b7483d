package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// gofmtDiff returns "" when src is its own gofmt form, else what differs:
// the first differing line of each.
func gofmtDiff(src []byte) string {
	want, err := format.Source(src)
	if err != nil {
		return "does not format: " + err.Error()
	}
	if bytes.Equal(src, want) {
		return ""
	}
	got, exp := strings.Split(string(src), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(got) && i < len(exp); i++ {
		if got[i] != exp[i] {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, got[i], exp[i])
		}
	}
	return fmt.Sprintf("%d lines, gofmt writes %d", len(got), len(exp))
}

// Every Go file of every test binding, with both client adapters, is
// exactly what gofmt makes of it: the generator writes gofmt's layout
// itself (the binary does not link go/format).
func TestGoBindingsAreGofmt(t *testing.T) {
	for folder, path := range bindings {
		m, sum := loadWithSum(t, path)
		files, err := Generate("go", m, sum, Options{})
		if err != nil {
			t.Fatalf("%s: %v", folder, err)
		}
		if len(files) != 1+len(GoClients) {
			t.Fatalf("%s: %d files", folder, len(files))
		}
		for _, f := range files {
			if d := gofmtDiff(f.Data); d != "" {
				t.Errorf("%s/%s is not in gofmt's layout: %s", folder, f.Name, d)
			}
		}
	}
}

// alignRows pads each column to its widest cell in runes over the run of
// rows that have a cell in it; a row's last cell is not padded.
func TestAlignRows(t *testing.T) {
	var b bytes.Buffer
	alignRows(&b, "\t", [][]string{
		{"A", "string", "// a"},
		{"LongName", "string"},
		{"Été", "int", "// b"},
		{"B", "[]int", "// c"},
	})
	want := "\tA        string // a\n\tLongName string\n\tÉté      int   // b\n\tB        []int // c\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// A tab in a cell is text (gofmt escapes comments), not a column.
	b.Reset()
	alignRows(&b, "\t", [][]string{{"X", "int", "// a\tb"}, {"LongY", "string"}})
	if want := "\tX     int // a\tb\n\tLongY string\n"; b.String() != want {
		t.Errorf("a tab in a comment: got %q, want %q", b.String(), want)
	}
}

// genName is a random lowercase snake_case name of 1 to max bytes.
func genName(r *rand.Rand, max int) string {
	n := 1 + r.IntN(max)
	if r.IntN(4) == 0 {
		n = 1 + r.IntN(3)
	}
	var b strings.Builder
	b.WriteByte(byte('a' + r.IntN(26)))
	for b.Len() < n {
		switch c := r.IntN(10); {
		case c == 0 && b.String()[b.Len()-1] != '_' && b.Len() < n-1:
			b.WriteByte('_')
		case c == 1:
			b.WriteByte(byte('0' + r.IntN(10)))
		default:
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()
}

// genNames is up to n distinct names.
func genNames(r *rand.Rand, n, max int) []string {
	var out []string
	for range n {
		if s := genName(r, max); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// genText is random text for a string literal or a key template: words,
// punctuation, spaces, non-ASCII letters, control characters.
func genText(r *rand.Rand, max int) string {
	parts := []string{"a", "word", " ", ":", "-", "é", "日本", "x9", "{", "}", "Ω", ".", "ß", "a", "word", "\t", "\r", "\f", "\v", "\"", "\\"}
	var b strings.Builder
	for n := 1 + r.IntN(max); b.Len() < n; {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// yamlQuote is s as a double-quoted YAML scalar (Go's escapes are YAML's).
func yamlQuote(s string) string { return strconv.Quote(s) }

// contractQuote is s as a string literal of a reply contract.
func contractQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`).Replace(s) + `"`
}

// genLabel is "" or a label and its colon.
func genLabel(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return ""
	}
	return genName(r, 60) + ": "
}

// genReply is a random reply contract (or "" for none): scalars, integer
// and string enums, tuples, tagged alternatives, optionals, declared
// errors, labelled or not, with names of 1 to 60 bytes.
func genReply(r *rand.Rand) string {
	var alts []string
	switch r.IntN(8) {
	case 0:
		return ""
	case 1:
		alts = append(alts, []string{"integer", "string", "status", "boolean", "double", "any", "array(integer)"}[r.IntN(7)])
	case 2:
		for _, v := range r.Perm(9)[:1+r.IntN(5)] {
			alts = append(alts, fmt.Sprintf("%s%d", genLabel(r), v*7-20))
		}
	case 3:
		var seen []string
		for range 1 + r.IntN(4) {
			if s := genText(r, 40); !slices.Contains(seen, s) {
				seen = append(seen, s)
				alts = append(alts, genLabel(r)+contractQuote(s))
			}
		}
	case 4:
		alts = append(alts, genTuple(r, ""))
	case 5:
		for i := range 1 + r.IntN(3) {
			alts = append(alts, genLabel(r)+genTuple(r, fmt.Sprintf("%q", fmt.Sprint("t", i))))
		}
	case 6:
		alts = append(alts, genLabel(r)+"string", "nil")
	case 7:
		// errors only
	}
	var seen []string
	for range r.IntN(4) {
		text := strings.TrimSpace("ERR " + strings.TrimSpace(genText(r, 60)))
		if r.IntN(2) == 0 {
			text = "ERR " + strings.Join(genNames(r, 1+r.IntN(5), 12), " ")
		}
		if !slices.Contains(seen, text) {
			seen = append(seen, text)
			alts = append(alts, genLabel(r)+"error("+contractQuote(text)+")")
		}
	}
	if len(alts) == 0 {
		return "integer"
	}
	return strings.Join(alts, " | ")
}

// genTuple is a tuple of labelled elements of varied types, after tag.
func genTuple(r *rand.Rand, tag string) string {
	var elems []string
	if tag != "" {
		elems = append(elems, tag)
	}
	for i, l := range genNames(r, 1+r.IntN(5), 60) {
		typ := []string{"integer", "string", "array(string)", "string | nil", "double", "7", `"lit"`, "[integer, string]", contractQuote(genText(r, 10)) + " | nil"}[r.IntN(9)]
		if i%3 == 2 {
			elems = append(elems, typ)
			continue
		}
		elems = append(elems, l+": "+typ)
	}
	return "[" + strings.Join(elems, ", ") + "]"
}

// genSource is a random script body: one line or several, raw or (with a
// backquote or a carriage return) quoted, with a form feed.
func genSource(r *rand.Rand) string {
	return []string{
		"return 1\n",
		"return 1",
		"-- `quoted`\nreturn 1\n",
		"return 1 -- `one line, quoted`",
		"return 1\f",
		"-- é 日本\r\nreturn 1\r\n",
		"local a = 1\n\tif a then\n\t\treturn a\n\tend\nreturn 0\n",
	}[r.IntN(7)]
}

// genManifest writes a random manifest into dir and returns its text.
func genManifest(t *testing.T, r *rand.Rand, dir string) string {
	var b strings.Builder
	lib := genName(r, 60)
	if r.IntN(3) == 0 {
		lib = strings.ToUpper(lib[:1]) + lib[1:]
	}
	fmt.Fprintf(&b, "schema: 1\nlibrary: %s\nversion: %d\n", lib, 1+r.IntN(100000))
	if d := []string{"", "scripts", "functions", "both"}[r.IntN(4)]; d != "" {
		fmt.Fprintf(&b, "deploy: %s\n", d)
	}
	b.WriteString("scripts:\n")
	scripts := genNames(r, 1+r.IntN(4), 60)
	keysOf := map[string][]string{}
	for i, s := range scripts {
		file := fmt.Sprintf("s%d.lua", i)
		writeFile(t, filepath.Join(dir, file), []byte(genSource(r)))
		keys, args := genNames(r, r.IntN(6), 60), genNames(r, r.IntN(6), 60)
		keysOf[s] = keys
		fmt.Fprintf(&b, "  %s:\n    file: %s\n    keys: [%s]\n    args: [%s]\n", s, file, strings.Join(keys, ", "), strings.Join(args, ", "))
		var flags []string
		for _, f := range []string{"no-writes", "no-cluster"} {
			if r.IntN(3) == 0 {
				flags = append(flags, f)
			}
		}
		fmt.Fprintf(&b, "    flags: [%s]\n", strings.Join(flags, ", "))
		if r.IntN(3) == 0 {
			b.WriteString("    idempotent: true\n")
		}
		if reply := genReply(r); reply != "" {
			fmt.Fprintf(&b, "    reply: %s\n", yamlQuote(reply))
		}
	}
	callers := genNames(r, r.IntN(3), 60)
	if len(callers) > 0 {
		b.WriteString("callers:\n")
	}
	for _, c := range callers {
		var cs []string
		for _, s := range scripts {
			if len(cs) == 0 || r.IntN(2) == 0 {
				cs = append(cs, s)
			}
		}
		fmt.Fprintf(&b, "  %s:\n    scripts: [%s]\n", c, strings.Join(cs, ", "))
		params := genNames(r, 1+r.IntN(3), 60)
		var keys []string
		for _, s := range cs {
			for _, k := range keysOf[s] {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
		if len(keys) > 0 {
			b.WriteString("    keys:\n")
		}
		var used []string
		for _, k := range keys {
			p := params[r.IntN(len(params))]
			used = append(used, p)
			tmpl := strings.Trim(genText(r, 20), "{}") + ":{<" + p + ">}"
			if r.IntN(2) == 0 {
				tmpl += ":<" + p + ">" + strings.ReplaceAll(strings.ReplaceAll(genText(r, 10), "{", ""), "}", "")
			}
			fmt.Fprintf(&b, "      %s: %s\n", k, yamlQuote(tmpl))
		}
		if len(used) > 0 && r.IntN(2) == 0 {
			fmt.Fprintf(&b, "    placeholders:\n      %s: {pattern: '^[a-z0-9]+$'}\n", used[0])
		}
	}
	writeFile(t, filepath.Join(dir, "manifest.yaml"), []byte(b.String()))
	return b.String()
}

// Random manifests (names and labels of 1 to 60 bytes, declared errors,
// enums, tuples, tagged alternatives, callers with key templates, bodies of
// one line and of several): every Go file generated is its own gofmt form.
func TestGoLayoutRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const cases = 300
	generated, longMarker, oneLineBody, ctrlComment := 0, 0, 0, 0
	for i := range cases {
		dir := t.TempDir()
		text := genManifest(t, r, dir)
		m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, text)
		}
		sum := &manifest.Sum{}
		if _, err := sum.Record(m, false); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		files, err := Generate("go", m, sum, Options{Clients: []string{}})
		if err != nil {
			if strings.Contains(err.Error(), "both need the Go name") {
				continue // two random names meet in one Go name
			}
			t.Fatalf("case %d: %v\n%s", i, err, text)
		}
		generated++
		src := string(files[0].Data)
		for _, line := range strings.Split(src, "\n") {
			if strings.HasPrefix(line, "func (") && strings.Contains(line, ") is") && strings.HasSuffix(line, "() {") {
				longMarker++
			}
			if c := strings.Index(line, "//"); c >= 0 && strings.Contains(line[c:], "\v") {
				ctrlComment++
			}
			if strings.HasPrefix(line, "\tbody:  ") {
				oneLineBody++ // aligned with the keys before it
			}
		}
		if d := gofmtDiff(files[0].Data); d != "" {
			t.Errorf("case %d: %s\n%s", i, d, text)
			os.WriteFile(filepath.Join(os.TempDir(), "golayout-fail.go"), files[0].Data, 0o644)
			break
		}
	}
	// The cases reach the rules they test: marker methods too long for one
	// line, bodies of one line aligned with the other keys, comments with
	// control characters.
	if generated < cases*3/4 || longMarker == 0 || oneLineBody == 0 || ctrlComment == 0 {
		t.Errorf("%d of %d cases generated, %d long marker methods, %d one-line bodies, %d comments with a vertical tab", generated, cases, longMarker, oneLineBody, ctrlComment)
	}
	t.Logf("%d of %d cases generated, %d long marker methods, %d one-line bodies, %d comments with a vertical tab", generated, cases, longMarker, oneLineBody, ctrlComment)
}

// A key: value entry of one line longer than a million bytes is not
// aligned with the keys before it (gofmt does not measure it).
func TestGoLayoutLongBody(t *testing.T) {
	// "body: " and the quoted "return 1 -- `x...x" are 21+n bytes.
	for _, n := range []int{1e6 - 21, 1e6 - 20} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "a.lua"), []byte("return 1 -- `"+strings.Repeat("x", n)))
		writeFile(t, filepath.Join(dir, "manifest.yaml"), []byte("schema: 1\nlibrary: x\nversion: 1\nscripts:\n  a:\n    file: a.lua\n    keys: []\n    args: []\n"))
		m, sum := loadRecorded(t, filepath.Join(dir, "manifest.yaml"))
		files, err := Generate("go", m, sum, Options{Clients: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		aligned := strings.Contains(string(files[0].Data), "\n\tbody:     \"return 1")
		if aligned != (21+n <= 1e6) {
			t.Errorf("a body of %d bytes: aligned %v", n, aligned)
		}
		if d := gofmtDiff(files[0].Data); d != "" {
			t.Errorf("a body of %d bytes: %s", n, d)
		}
	}
}
