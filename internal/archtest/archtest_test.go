package archtest

import (
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/scriptctl/scriptctl"

// room is one row of docs/architecture.md's table.
type room struct {
	name     string
	patterns []string // "verify", "internal/..."
	imports  []string // rooms it may import
}

var code = regexp.MustCompile("`([^`]+)`")

// tableRows returns the body rows (header and rule aside) of the
// three-column table between <!-- archtest:NAME --> and its closing marker,
// each as its trimmed cells and the line.
func tableRows(t *testing.T, doc, name string) (rows [][3]string, lines []string) {
	t.Helper()
	begin, end := "<!-- archtest:"+name+" -->", "<!-- /archtest:"+name+" -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/architecture.md has no table between %s and %s", begin, end)
	}
	header := true
	for _, line := range strings.Split(doc[i+len(begin):j], "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 3 {
			continue
		}
		first := strings.TrimSpace(cells[0])
		if header || strings.HasPrefix(first, "---") {
			header = false
			continue
		}
		rows = append(rows, [3]string{first, strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])})
		lines = append(lines, line)
	}
	return rows, lines
}

// readRooms parses the rooms table.
func readRooms(t *testing.T, doc string) []room {
	t.Helper()
	var rooms []room
	rows, lines := tableRows(t, doc, "rooms")
	for k, cells := range rows {
		name := cells[0]
		r := room{name: name, imports: strings.Fields(cells[2])}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			r.patterns = append(r.patterns, m[1])
		}
		if len(r.patterns) == 0 || len(r.imports) == 0 {
			t.Fatalf("docs/architecture.md: room %q: no packages or no arrows: %q", name, lines[k])
		}
		rooms = append(rooms, r)
	}
	if len(rooms) < 3 {
		t.Fatalf("docs/architecture.md: found only %d rooms: the table is malformed", len(rooms))
	}
	names := map[string]bool{}
	for _, r := range rooms {
		names[r.name] = true
	}
	for _, r := range rooms {
		for _, to := range r.imports {
			if !names[to] {
				t.Fatalf("docs/architecture.md: room %s may import %q, which is no room", r.name, to)
			}
		}
	}
	return rooms
}

// forbidden is one row of the forbidden-imports table: packages (given
// by pattern, or by room) that must not import some others.
type forbidden struct {
	packages []string // patterns, a room's expanded
	not      []string // patterns of the packages they must not import
	why      string
}

// readForbidden parses the forbidden-imports table; a bare word in the
// first column is a room of rooms, standing for its patterns.
func readForbidden(t *testing.T, doc string, rooms []room) []forbidden {
	t.Helper()
	var out []forbidden
	rows, lines := tableRows(t, doc, "forbidden")
	for k, cells := range rows {
		f := forbidden{why: cells[2]}
		for _, field := range strings.Fields(cells[0]) {
			if pat, ok := strings.CutPrefix(field, "`"); ok {
				f.packages = append(f.packages, strings.TrimSuffix(pat, "`"))
				continue
			}
			i := slices.IndexFunc(rooms, func(r room) bool { return r.name == field })
			if i < 0 {
				t.Fatalf("docs/architecture.md: forbidden imports of %q, which is no room: %q", field, lines[k])
			}
			f.packages = append(f.packages, rooms[i].patterns...)
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			f.not = append(f.not, m[1])
		}
		if len(f.packages) == 0 || len(f.not) == 0 {
			t.Fatalf("docs/architecture.md: a forbidden-imports row names no packages or nothing forbidden: %q", lines[k])
		}
		out = append(out, f)
	}
	return out
}

func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pattern == pkg
}

// pkgInfo is one package's imports of the module's own packages.
type pkgInfo struct {
	rel             string // path below the module: "verify/scenario"
	imports, tested []string
}

// listPackages walks the module as the go command sees it (testdata,
// hidden and _ folders and nested modules aside) and reads every
// package's imports with go/build.
func listPackages(t *testing.T, root string) []pkgInfo {
	t.Helper()
	own := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			if rel, ok := strings.CutPrefix(p, module+"/"); ok {
				out = append(out, rel)
			}
		}
		return out
	}
	var pkgs []pkgInfo
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		bp, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		pkgs = append(pkgs, pkgInfo{rel: filepath.ToSlash(rel), imports: own(bp.Imports),
			tested: own(append(append([]string{}, bp.TestImports...), bp.XTestImports...))})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestImportsFollowTheArchitecture: every package of the module is placed
// in exactly one room of docs/architecture.md, every pattern there places
// some package, and no import breaks an arrow (tests may import any room
// but cmd).
func TestImportsFollowTheArchitecture(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rooms := readRooms(t, string(doc))
	pkgs := listPackages(t, root)
	if len(pkgs) < 30 {
		t.Fatalf("found only %d packages: the walk is wrong", len(pkgs))
	}
	for _, problem := range check(rooms, pkgs) {
		t.Error(problem)
	}
	for _, problem := range checkForbidden(readForbidden(t, string(doc), rooms), pkgs) {
		t.Error(problem)
	}
}

// checkForbidden returns every import (tests aside) a row of the
// forbidden-imports table rules out, and every pattern of the table that
// matches no package.
func checkForbidden(rules []forbidden, pkgs []pkgInfo) []string {
	var out []string
	some := func(pat string) bool {
		return slices.ContainsFunc(pkgs, func(p pkgInfo) bool { return matches(pat, p.rel) })
	}
	for _, f := range rules {
		for _, pat := range slices.Concat(f.packages, f.not) {
			if !some(pat) {
				out = append(out, fmt.Sprintf("docs/architecture.md: the forbidden imports name %s, which matches no package", pat))
			}
		}
		for _, p := range pkgs {
			if !slices.ContainsFunc(f.packages, func(pat string) bool { return matches(pat, p.rel) }) {
				continue
			}
			for _, imp := range p.imports {
				if slices.ContainsFunc(f.not, func(pat string) bool { return matches(pat, imp) }) {
					out = append(out, fmt.Sprintf("%s imports %s, which docs/architecture.md forbids: %s", p.rel, imp, f.why))
				}
			}
		}
	}
	return out
}

// check returns every package placed by no pattern or by several, every
// pattern that places nothing, and every import against an arrow.
func check(rooms []room, pkgs []pkgInfo) []string {
	var out []string
	roomOf := map[string]*room{}
	used := map[string]bool{}
	for _, p := range pkgs {
		var in []string
		for i := range rooms {
			for _, pat := range rooms[i].patterns {
				if matches(pat, p.rel) {
					in = append(in, rooms[i].name+" ("+pat+")")
					roomOf[p.rel] = &rooms[i]
					used[pat] = true
				}
			}
		}
		if len(in) != 1 {
			out = append(out, fmt.Sprintf("package %s is placed by %d patterns of docs/architecture.md %v: want exactly one", p.rel, len(in), in))
			delete(roomOf, p.rel)
		}
	}
	for _, r := range rooms {
		for _, pat := range r.patterns {
			if !used[pat] {
				out = append(out, fmt.Sprintf("docs/architecture.md: room %s lists %s, which matches no package", r.name, pat))
			}
		}
	}
	for _, p := range pkgs {
		from := roomOf[p.rel]
		if from == nil {
			continue
		}
		for _, imp := range p.imports {
			if to := roomOf[imp]; to != nil && !slices.Contains(from.imports, to.name) {
				out = append(out, fmt.Sprintf("%s (%s) imports %s (%s): docs/architecture.md has no arrow %s -> %s", p.rel, from.name, imp, to.name, from.name, to.name))
			}
		}
		for _, imp := range p.tested {
			if to := roomOf[imp]; to != nil && to.name == "cmd" && from.name != "cmd" {
				out = append(out, fmt.Sprintf("a test of %s (%s) imports %s: tests may import any room but cmd", p.rel, from.name, imp))
			}
		}
	}
	return out
}

// TestCheckCanFail: check reports an unplaced package, a package placed
// twice, a pattern placing nothing, an import against an arrow and a test
// importing cmd, and nothing for a graph that keeps the rule.
func TestCheckCanFail(t *testing.T) {
	doc := "<!-- archtest:rooms -->\n| room | packages | may import |\n|---|---|---|\n" +
		"| ground | `internal/...` | ground |\n| model | `manifest` `slot` | model ground |\n| cmd | `cmd/...` | cmd model ground |\n<!-- /archtest:rooms -->\n"
	rooms := readRooms(t, doc)
	if len(rooms) != 3 || !slices.Equal(rooms[1].patterns, []string{"manifest", "slot"}) || !slices.Equal(rooms[1].imports, []string{"model", "ground"}) {
		t.Fatalf("parsed %+v", rooms)
	}
	good := []pkgInfo{
		{rel: "internal/diag"},
		{rel: "manifest", imports: []string{"internal/diag"}},
		{rel: "slot", imports: []string{"manifest"}, tested: []string{"internal/diag"}},
		{rel: "cmd/scriptctl", imports: []string{"manifest", "internal/diag"}},
	}
	if got := check(rooms, good); len(got) != 0 {
		t.Errorf("a graph that keeps the rule: %q", got)
	}
	bad := []pkgInfo{
		{rel: "internal/diag", imports: []string{"manifest"}},
		{rel: "manifest", tested: []string{"cmd/scriptctl"}},
		{rel: "cmd/scriptctl"},
		{rel: "gen"},
	}
	got := strings.Join(check(rooms, bad), "\n")
	for _, want := range []string{
		"internal/diag (ground) imports manifest (model): docs/architecture.md has no arrow ground -> model",
		"a test of manifest (model) imports cmd/scriptctl",
		"package gen is placed by 0 patterns",
		"room model lists slot, which matches no package",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("check does not report %q; it reports:\n%s", want, got)
		}
	}
	if !matches("internal/...", "internal/cmdtable/record") || !matches("internal/...", "internal") || matches("internal/...", "internalx") || matches("verify", "verify/scenario") {
		t.Error("pattern matching is wrong")
	}
}

// TestCheckForbiddenCanFail: checkForbidden reports an import a row rules
// out (by pattern or by room), a pattern naming no package, and nothing
// for a test's import or a graph that keeps the rows.
func TestCheckForbiddenCanFail(t *testing.T) {
	doc := "<!-- archtest:rooms -->\n| room | packages | may import |\n|---|---|---|\n" +
		"| ground | `internal/...` | ground |\n| model | `manifest` `slot` | model ground |\n| cmd | `cmd/...` | cmd model ground |\n<!-- /archtest:rooms -->\n" +
		"<!-- archtest:forbidden -->\n| packages | must not import | why |\n|---|---|---|\n" +
		"| model | `internal/term` | no terminal |\n| `internal/diag` | `internal/net` `internal/gone` | no network |\n<!-- /archtest:forbidden -->\n"
	rules := readForbidden(t, doc, readRooms(t, doc))
	if len(rules) != 2 || !slices.Equal(rules[0].packages, []string{"manifest", "slot"}) || !slices.Equal(rules[1].not, []string{"internal/net", "internal/gone"}) || rules[0].why != "no terminal" {
		t.Fatalf("parsed %+v", rules)
	}
	good := []pkgInfo{
		{rel: "internal/term"}, {rel: "internal/net"}, {rel: "internal/gone"},
		{rel: "internal/diag", tested: []string{"internal/net"}},
		{rel: "manifest", imports: []string{"internal/diag"}, tested: []string{"internal/term"}},
		{rel: "slot"},
	}
	if got := checkForbidden(rules, good); len(got) != 0 {
		t.Errorf("a graph that keeps the rows: %q", got)
	}
	bad := []pkgInfo{
		{rel: "internal/term"}, {rel: "internal/net"},
		{rel: "internal/diag", imports: []string{"internal/net"}},
		{rel: "manifest"},
		{rel: "slot", imports: []string{"internal/term"}},
	}
	got := strings.Join(checkForbidden(rules, bad), "\n")
	for _, want := range []string{
		"slot imports internal/term, which docs/architecture.md forbids: no terminal",
		"internal/diag imports internal/net, which docs/architecture.md forbids: no network",
		"the forbidden imports name internal/gone, which matches no package",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("checkForbidden does not report %q; it reports:\n%s", want, got)
		}
	}
}
