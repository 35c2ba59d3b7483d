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
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"time"

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

// Cobertura's XML, the subset CI coverage views read.
type (
	cobCoverage struct {
		XMLName         xml.Name     `xml:"coverage"`
		LineRate        string       `xml:"line-rate,attr"`
		BranchRate      string       `xml:"branch-rate,attr"`
		LinesCovered    int          `xml:"lines-covered,attr"`
		LinesValid      int          `xml:"lines-valid,attr"`
		BranchesCovered int          `xml:"branches-covered,attr"`
		BranchesValid   int          `xml:"branches-valid,attr"`
		Complexity      string       `xml:"complexity,attr"`
		Version         string       `xml:"version,attr"`
		Timestamp       int64        `xml:"timestamp,attr"`
		Sources         []string     `xml:"sources>source"`
		Packages        []cobPackage `xml:"packages>package"`
	}
	cobPackage struct {
		Name       string     `xml:"name,attr"`
		LineRate   string     `xml:"line-rate,attr"`
		BranchRate string     `xml:"branch-rate,attr"`
		Complexity string     `xml:"complexity,attr"`
		Classes    []cobClass `xml:"classes>class"`
	}
	cobClass struct {
		Name       string    `xml:"name,attr"`
		Filename   string    `xml:"filename,attr"`
		LineRate   string    `xml:"line-rate,attr"`
		BranchRate string    `xml:"branch-rate,attr"`
		Complexity string    `xml:"complexity,attr"`
		Methods    struct{}  `xml:"methods"`
		Lines      []cobLine `xml:"lines>line"`
	}
	cobLine struct {
		Number            int    `xml:"number,attr"`
		Hits              uint32 `xml:"hits,attr"`
		Branch            bool   `xml:"branch,attr"`
		ConditionCoverage string `xml:"condition-coverage,attr,omitempty"`
	}
)

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
	doc := cobCoverage{
		LineRate: rate(t.LinesHit, t.Lines), BranchRate: rate(t.BranchesHit, t.Branches),
		LinesCovered: t.LinesHit, LinesValid: t.Lines, BranchesCovered: t.BranchesHit, BranchesValid: t.Branches,
		Complexity: "0", Version: "scriptctl", Sources: []string{"."},
	}
	if !now.IsZero() {
		doc.Timestamp = now.UnixMilli()
	}
	pkg := cobPackage{Name: library, LineRate: doc.LineRate, BranchRate: doc.BranchRate, Complexity: "0"}
	for _, s := range r.Scripts {
		st := s.Totals()
		cl := cobClass{Name: s.Name, Filename: rel(dir, s.File), LineRate: rate(st.LinesHit, st.Lines), BranchRate: rate(st.BranchesHit, st.Branches), Complexity: "0"}
		for _, l := range s.Lines {
			cl2 := cobLine{Number: l.Line, Hits: l.Count}
			if n := 2 * len(l.Branches); n > 0 {
				hit := 0
				for _, b := range l.Branches {
					if b.Next > 0 {
						hit++
					}
					if b.Skip > 0 {
						hit++
					}
				}
				cl2.Branch = true
				cl2.ConditionCoverage = fmt.Sprintf("%d%% (%d/%d)", 100*hit/n, hit, n)
			}
			cl.Lines = append(cl.Lines, cl2)
		}
		pkg.Classes = append(pkg.Classes, cl)
	}
	doc.Packages = []cobPackage{pkg}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
