package diag

import (
	"bytes"
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

// WriteJUnit writes suites as a JUnit XML report (the <testsuites> form
// GitHub, GitLab and Jenkins read).
func WriteJUnit(w io.Writer, name string, suites []Suite) error {
	var tests, failures, errs, skipped int
	type counts struct{ failures, errs, skipped int }
	per := make([]counts, len(suites))
	for i, s := range suites {
		for _, c := range s.Cases {
			switch {
			case c.Error != nil:
				per[i].errs++
			case c.Failure != nil:
				per[i].failures++
			case c.Skipped != "":
				per[i].skipped++
			}
		}
		tests += len(s.Cases)
		failures += per[i].failures
		errs += per[i].errs
		skipped += per[i].skipped
	}
	var x XMLWriter
	x.Start("testsuites", StrAttr("name", name), IntAttr("tests", int64(tests)), IntAttr("failures", int64(failures)),
		IntAttr("errors", int64(errs)), IntAttr("skipped", int64(skipped)))
	for i, s := range suites {
		x.Start("testsuite", StrAttr("name", s.Name), IntAttr("tests", int64(len(s.Cases))), IntAttr("failures", int64(per[i].failures)),
			IntAttr("errors", int64(per[i].errs)), IntAttr("skipped", int64(per[i].skipped)))
		for _, c := range s.Cases {
			attrs := []Attr{StrAttr("name", c.Name), StrAttr("classname", c.ClassName)}
			if c.File != "" {
				attrs = append(attrs, StrAttr("file", c.File))
			}
			x.Start("testcase", attrs...)
			switch {
			case c.Error != nil:
				x.Element("error", c.Error.Text, StrAttr("message", c.Error.Message), StrAttr("type", "error"))
			case c.Failure != nil:
				x.Element("failure", c.Failure.Text, StrAttr("message", c.Failure.Message), StrAttr("type", "failure"))
			case c.Skipped != "":
				x.Element("skipped", "", StrAttr("message", c.Skipped))
			}
			if c.SystemOut != "" {
				x.Element("system-out", c.SystemOut)
			}
			x.End("testcase")
		}
		x.End("testsuite")
	}
	x.End("testsuites")
	if _, err := io.WriteString(w, XMLHeader); err != nil {
		return err
	}
	if _, err := w.Write(x.Bytes()); err != nil {
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
