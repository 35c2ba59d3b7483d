package diag

import (
	"bytes"
	"encoding/xml"
	"math/rand/v2"
	"strings"
	"testing"
)

// The JUnit report as encoding/xml marshals it: WriteJUnit wrote it so
// before it had a writer of its own, and must write the same bytes.
type (
	refSuites struct {
		XMLName  xml.Name   `xml:"testsuites"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Errors   int        `xml:"errors,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Suites   []refSuite `xml:"testsuite"`
	}
	refSuite struct {
		Name     string    `xml:"name,attr"`
		Tests    int       `xml:"tests,attr"`
		Failures int       `xml:"failures,attr"`
		Errors   int       `xml:"errors,attr"`
		Skipped  int       `xml:"skipped,attr"`
		Cases    []refCase `xml:"testcase"`
	}
	refCase struct {
		Name      string      `xml:"name,attr"`
		ClassName string      `xml:"classname,attr"`
		File      string      `xml:"file,attr,omitempty"`
		Failure   *refFailure `xml:"failure,omitempty"`
		Error     *refFailure `xml:"error,omitempty"`
		Skipped   *refSkipped `xml:"skipped,omitempty"`
		SystemOut string      `xml:"system-out,omitempty"`
	}
	refFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	refSkipped struct {
		Message string `xml:"message,attr"`
	}
)

func refJUnit(t *testing.T, name string, suites []Suite) string {
	t.Helper()
	doc := refSuites{Name: name}
	for _, s := range suites {
		js := refSuite{Name: s.Name, Tests: len(s.Cases)}
		for _, c := range s.Cases {
			jc := refCase{Name: c.Name, ClassName: c.ClassName, File: c.File, SystemOut: c.SystemOut}
			switch {
			case c.Error != nil:
				jc.Error = &refFailure{Message: c.Error.Message, Type: "error", Text: c.Error.Text}
				js.Errors++
			case c.Failure != nil:
				jc.Failure = &refFailure{Message: c.Failure.Message, Type: "failure", Text: c.Failure.Text}
				js.Failures++
			case c.Skipped != "":
				jc.Skipped = &refSkipped{Message: c.Skipped}
				js.Skipped++
			}
			js.Cases = append(js.Cases, jc)
		}
		doc.Tests += js.Tests
		doc.Failures += js.Failures
		doc.Errors += js.Errors
		doc.Skipped += js.Skipped
		doc.Suites = append(doc.Suites, js)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	return b.String()
}

// xmlText is a string drawn from the characters XML escapes or cannot
// hold: markup, quotes, whitespace, control characters, invalid UTF-8,
// U+FFFD, surrogates' and noncharacters' neighbours, and plain text.
func xmlText(r *rand.Rand) string {
	pieces := []string{"", "a", "plain text", "<", ">", "&", `"`, "'", "\t", "\n", "\r", "\x00", "\x01", "\x1f",
		"\x7f", "\xff", "\xc3", "\uFFFD", "\uFFFE", "\U0001F642", "é", "\u2028", "]]>", "&amp;", "--", " "}
	var sb strings.Builder
	for range r.IntN(6) {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return sb.String()
}

func TestWriteJUnitMatchesEncodingXML(t *testing.T) {
	check := func(name string, suites []Suite) {
		t.Helper()
		var got bytes.Buffer
		if err := WriteJUnit(&got, name, suites); err != nil {
			t.Fatal(err)
		}
		if want := refJUnit(t, name, suites); got.String() != want {
			t.Fatalf("WriteJUnit:\n%s\nencoding/xml:\n%s", got.String(), want)
		}
	}
	check("empty", nil)
	check("", []Suite{{Name: "no cases"}})
	check("one of each", []Suite{{Name: "s", Cases: []Case{
		{Name: "ok", ClassName: "c"},
		{Name: "fail", ClassName: "c", File: "a.lua", Failure: &Failure{Message: "m", Text: "line 1\nline 2"}},
		{Name: "err", ClassName: "c", Error: &Failure{Message: "e"}},
		{Name: "skip", ClassName: "c", Skipped: "why"},
		{Name: "out", ClassName: "c", SystemOut: "w1\nw2"},
		{Name: "both", ClassName: "c", Failure: &Failure{Text: "t"}, Error: &Failure{Text: "e"}, Skipped: "s", SystemOut: "o"},
	}}})
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var suites []Suite
		for range r.IntN(3) {
			s := Suite{Name: xmlText(r)}
			for range r.IntN(4) {
				c := Case{Name: xmlText(r), ClassName: xmlText(r), File: xmlText(r), SystemOut: xmlText(r)}
				switch r.IntN(4) {
				case 0:
					c.Failure = &Failure{Message: xmlText(r), Text: xmlText(r)}
				case 1:
					c.Error = &Failure{Message: xmlText(r), Text: xmlText(r)}
				case 2:
					c.Skipped = xmlText(r)
				}
				s.Cases = append(s.Cases, c)
			}
			suites = append(suites, s)
		}
		check(xmlText(r), suites)
	}
}
