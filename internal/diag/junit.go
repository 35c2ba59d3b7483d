package diag

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"

	"github.com/scriptctl/scriptctl/internal/atomicfile"
)

// Suite is one JUnit <testsuite>: for scriptctl, one per target (verify)
// or per check step.
type Suite struct {
	Name  string
	Cases []Case
}

// Case is one <testcase>. Failure set means it failed; Skipped means it did
// not run.
type Case struct {
	Name      string
	ClassName string
	File      string
	Failure   *Failure
	Error     *Failure // it could not run (invalid input, an engine error)
	Skipped   string
	// SystemOut is what the case reported without failing: its warnings,
	// one diagnostic a line (<system-out>).
	SystemOut string
}

// Failure is a <failure> or <error>: a one-line message and the full text
// (the diagnostics with their detail, the diff).
type Failure struct {
	Message string
	Text    string
}

type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Error     *junitFailure `xml:"error,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// WriteJUnit writes suites as a JUnit XML report (the <testsuites> form
// GitHub, GitLab and Jenkins read).
func WriteJUnit(w io.Writer, name string, suites []Suite) error {
	doc := junitSuites{Name: name}
	for _, s := range suites {
		js := junitSuite{Name: s.Name, Tests: len(s.Cases)}
		for _, c := range s.Cases {
			jc := junitCase{Name: c.Name, ClassName: c.ClassName, File: c.File, SystemOut: c.SystemOut}
			switch {
			case c.Error != nil:
				jc.Error = &junitFailure{Message: c.Error.Message, Type: "error", Text: c.Error.Text}
				js.Errors++
			case c.Failure != nil:
				jc.Failure = &junitFailure{Message: c.Failure.Message, Type: "failure", Text: c.Failure.Text}
				js.Failures++
			case c.Skipped != "":
				jc.Skipped = &junitSkipped{Message: c.Skipped}
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

// WriteJUnitFile writes the report to path atomically (a temporary file
// renamed over it), so a CI step never reads half a report.
func WriteJUnitFile(path, name string, suites []Suite) error {
	var b bytes.Buffer
	if err := WriteJUnit(&b, name, suites); err != nil {
		return err
	}
	if err := atomicfile.Write(path, b.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// FailureOf builds a Failure from diagnostics: the first message, and every
// diagnostic in text form (detail lines included).
func FailureOf(ds []Diagnostic) *Failure {
	if len(ds) == 0 {
		return nil
	}
	f := &Failure{Message: ds[0].Message}
	for i, d := range ds {
		if i > 0 {
			f.Text += "\n"
		}
		f.Text += d.String()
	}
	return f
}

// Lines is ds one diagnostic a line (a Case's SystemOut); "" for none.
func Lines(ds []Diagnostic) string {
	if f := FailureOf(ds); f != nil {
		return f.Text
	}
	return ""
}
