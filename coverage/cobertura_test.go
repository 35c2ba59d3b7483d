package coverage

import (
	"bytes"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/verify"
)

// refCobertura is WriteCobertura as encoding/xml wrote it, before the
// report had a writer of its own: WriteCobertura must write the same
// bytes.
func refCobertura(r *Report, w io.Writer, dir, library string, now time.Time) error {
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
			if cc, ok := conditionCoverage(l); ok {
				cl2.Branch = true
				cl2.ConditionCoverage = cc
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

// The report's structure for encoding/xml.
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

// coverText is a name or path drawn from what XML escapes or cannot hold.
func coverText(r *rand.Rand) string {
	pieces := []string{"", "a", "lib/x.lua", "<", ">", "&", `"`, "'", "\t", "\n", "\r", "\x00", "\x1f", "\xff",
		"\uFFFD", "\uFFFE", "\U0001F642", "é", " "}
	var sb strings.Builder
	for range r.IntN(5) {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return sb.String()
}

func TestWriteCoberturaMatchesEncodingXML(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		rep := &Report{}
		for range r.IntN(4) {
			s := Script{Name: coverText(r), File: "/repo/" + coverText(r)}
			for l := range r.IntN(5) {
				lh := verify.LineHits{Line: l + 1 + r.IntN(3), Count: uint32(r.IntN(3))}
				for range r.IntN(3) {
					lh.Branches = append(lh.Branches, verify.BranchHits{Next: uint32(r.IntN(2)), Skip: uint32(r.IntN(2))})
				}
				s.Lines = append(s.Lines, lh)
			}
			rep.Scripts = append(rep.Scripts, s)
		}
		now := time.Time{}
		if i%2 == 1 {
			now = time.UnixMilli(1700000000000 + int64(i))
		}
		lib := coverText(r)
		var got, want bytes.Buffer
		if err := rep.WriteCobertura(&got, "/repo", lib, now); err != nil {
			t.Fatal(err)
		}
		if err := refCobertura(rep, &want, "/repo", lib, now); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("WriteCobertura:\n%s\nencoding/xml:\n%s", got.String(), want.String())
		}
	}
}
