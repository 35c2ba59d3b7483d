// Package coverage turns what the offline engine recorded while scenarios
// and models ran (verify.LineCoverage) into line and branch coverage of the
// manifest's script files, and writes it as an lcov tracefile or a
// Cobertura XML report for CI coverage views. A script line counts as
// often as it ran in either form a scenario calls it in (EVAL, and FCALL
// of the generated library, whose lines map back to the script's); a
// branch is one outcome of a conditional instruction (a comparison or a
// test that skips the next instruction or not).
package coverage

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// Script is one script's coverage.
type Script struct {
	Name  string
	File  string // as the manifest resolves it
	Lines []verify.LineHits
}

// Report is the coverage of every script of a manifest, in manifest order.
type Report struct {
	Scripts []Script
}

// Collect reads c for every script of m.
func Collect(m *manifest.Manifest, c *verify.LineCoverage) *Report {
	lib := c.LibraryLines(m.FunctionsLibrary(), func(line int) (int, bool) { return line, true })
	rep := &Report{}
	for _, s := range m.Scripts {
		byLine := map[int]*verify.LineHits{}
		var order []int
		add := func(l verify.LineHits) {
			have := byLine[l.Line]
			if have == nil {
				l.Branches = append([]verify.BranchHits(nil), l.Branches...)
				byLine[l.Line] = &l
				order = append(order, l.Line)
				return
			}
			have.Count += l.Count
			for i, b := range l.Branches {
				if i < len(have.Branches) {
					have.Branches[i].Next += b.Next
					have.Branches[i].Skip += b.Skip
				} else {
					have.Branches = append(have.Branches, b)
				}
			}
		}
		for _, l := range c.ScriptLines(s.Source) {
			add(l)
		}
		for _, l := range lib {
			if sc, line, ok := m.LibraryPosition(l.Line); ok && sc == s {
				l.Line = line
				add(l)
			}
		}
		sort.Ints(order)
		sc := Script{Name: s.Name, File: s.Path}
		for _, line := range order {
			sc.Lines = append(sc.Lines, *byLine[line])
		}
		rep.Scripts = append(rep.Scripts, sc)
	}
	return rep
}

// Totals are a script's (or a report's) counts: lines with code and those
// that ran; branch outcomes and those taken.
type Totals struct {
	Lines, LinesHit       int
	Branches, BranchesHit int
}

// Add returns t plus u.
func (t Totals) Add(u Totals) Totals {
	return Totals{t.Lines + u.Lines, t.LinesHit + u.LinesHit, t.Branches + u.Branches, t.BranchesHit + u.BranchesHit}
}

// LinePercent and BranchPercent are the covered shares in percent (100
// when there is nothing to cover).
func (t Totals) LinePercent() float64   { return percent(t.LinesHit, t.Lines) }
func (t Totals) BranchPercent() float64 { return percent(t.BranchesHit, t.Branches) }

func percent(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return 100 * float64(n) / float64(of)
}

// Totals counts s.
func (s Script) Totals() Totals {
	var t Totals
	for _, l := range s.Lines {
		t.Lines++
		if l.Count > 0 {
			t.LinesHit++
		}
		for _, b := range l.Branches {
			t.Branches += 2
			if b.Next > 0 {
				t.BranchesHit++
			}
			if b.Skip > 0 {
				t.BranchesHit++
			}
		}
	}
	return t
}

// Totals counts every script.
func (r *Report) Totals() Totals {
	var t Totals
	for _, s := range r.Scripts {
		t = t.Add(s.Totals())
	}
	return t
}

// Uncalled lists the scripts none of whose lines ran.
func (r *Report) Uncalled() []Script {
	var out []Script
	for _, s := range r.Scripts {
		if t := s.Totals(); t.Lines > 0 && t.LinesHit == 0 {
			out = append(out, s)
		}
	}
	return out
}

// WriteLCOV writes r as an lcov tracefile (geninfo's format: SF, DA,
// BRDA, LF, LH, BRF, BRH per script), file paths relative to dir (the
// manifest's folder, which CI tools resolve them against).
func (r *Report) WriteLCOV(w io.Writer, dir string) error {
	for _, s := range r.Scripts {
		t := s.Totals()
		if _, err := fmt.Fprintf(w, "TN:\nSF:%s\n", rel(dir, s.File)); err != nil {
			return err
		}
		for _, l := range s.Lines {
			for i, b := range l.Branches {
				fmt.Fprintf(w, "BRDA:%d,%d,0,%s\n", l.Line, i, taken(l.Count, b.Next))
				fmt.Fprintf(w, "BRDA:%d,%d,1,%s\n", l.Line, i, taken(l.Count, b.Skip))
			}
		}
		for _, l := range s.Lines {
			fmt.Fprintf(w, "DA:%d,%d\n", l.Line, l.Count)
		}
		if _, err := fmt.Fprintf(w, "LF:%d\nLH:%d\nBRF:%d\nBRH:%d\nend_of_record\n", t.Lines, t.LinesHit, t.Branches, t.BranchesHit); err != nil {
			return err
		}
	}
	return nil
}

// taken is an lcov branch count: "-" for a branch whose line never ran.
func taken(line, n uint32) string {
	if line == 0 {
		return "-"
	}
	return strconv.FormatUint(uint64(n), 10)
}

func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

func rate(n, of int) string {
	if of == 0 {
		return "1"
	}
	return strconv.FormatFloat(float64(n)/float64(of), 'f', 4, 64)
}

// WriteCobertura writes r as a Cobertura XML report: one package (the
// library), one class per script; paths relative to dir, which is the
// report's source. now is its timestamp (Unix ms; 0 for none).
func (r *Report) WriteCobertura(w io.Writer, dir, library string, now time.Time) error {
	t := r.Totals()
	lineRate, branchRate := rate(t.LinesHit, t.Lines), rate(t.BranchesHit, t.Branches)
	var timestamp int64
	if !now.IsZero() {
		timestamp = now.UnixMilli()
	}
	// Cobertura's XML, the subset CI coverage views read.
	var x diag.XMLWriter
	x.Start("coverage", diag.StrAttr("line-rate", lineRate), diag.StrAttr("branch-rate", branchRate),
		diag.IntAttr("lines-covered", int64(t.LinesHit)), diag.IntAttr("lines-valid", int64(t.Lines)),
		diag.IntAttr("branches-covered", int64(t.BranchesHit)), diag.IntAttr("branches-valid", int64(t.Branches)),
		diag.StrAttr("complexity", "0"), diag.StrAttr("version", "scriptctl"), diag.IntAttr("timestamp", timestamp))
	x.Start("sources")
	x.Element("source", ".")
	x.End("sources")
	x.Start("packages")
	x.Start("package", diag.StrAttr("name", library), diag.StrAttr("line-rate", lineRate), diag.StrAttr("branch-rate", branchRate),
		diag.StrAttr("complexity", "0"))
	x.Start("classes")
	for _, s := range r.Scripts {
		st := s.Totals()
		x.Start("class", diag.StrAttr("name", s.Name), diag.StrAttr("filename", rel(dir, s.File)),
			diag.StrAttr("line-rate", rate(st.LinesHit, st.Lines)), diag.StrAttr("branch-rate", rate(st.BranchesHit, st.Branches)),
			diag.StrAttr("complexity", "0"))
		x.Start("methods")
		x.End("methods")
		x.Start("lines")
		for _, l := range s.Lines {
			attrs := []diag.Attr{diag.IntAttr("number", int64(l.Line)), diag.IntAttr("hits", int64(l.Count)), diag.BoolAttr("branch", false)}
			if cc, ok := conditionCoverage(l); ok {
				attrs[2] = diag.BoolAttr("branch", true)
				attrs = append(attrs, diag.StrAttr("condition-coverage", cc))
			}
			x.Start("line", attrs...)
			x.End("line")
		}
		x.End("lines")
		x.End("class")
	}
	x.End("classes")
	x.End("package")
	x.End("packages")
	x.End("coverage")
	if _, err := io.WriteString(w, diag.XMLHeader); err != nil {
		return err
	}
	if _, err := w.Write(x.Bytes()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// conditionCoverage is a line's Cobertura condition-coverage, "P% (hit/n)"
// over both ways of each of its branches; false for a line without any.
func conditionCoverage(l verify.LineHits) (string, bool) {
	n := 2 * len(l.Branches)
	if n == 0 {
		return "", false
	}
	hit := 0
	for _, b := range l.Branches {
		if b.Next > 0 {
			hit++
		}
		if b.Skip > 0 {
			hit++
		}
	}
	return fmt.Sprintf("%d%% (%d/%d)", 100*hit/n, hit, n), true
}
