// Package iostreams owns where scriptctl writes and how: whether stdout and
// stderr are terminals, whether color is on (NO_COLOR honoured), and the table
// printer every command uses. It knows nothing of the commands.
package iostreams

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"
)

// IOStreams are a command's input and outputs.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdoutTTY bool
	StderrTTY bool
	Color     bool
}

// System returns the process's streams.
func System() *IOStreams {
	out := term.IsTerminal(int(os.Stdout.Fd()))
	errTTY := term.IsTerminal(int(os.Stderr.Fd()))
	_, noColor := os.LookupEnv("NO_COLOR")
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdoutTTY: out, StderrTTY: errTTY,
		Color: out && !noColor && os.Getenv("TERM") != "dumb",
	}
}

// Test returns streams backed by buffers, as if piped.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// Progress prints a progress line or notice on stderr, only when stderr is a
// terminal.
func (s *IOStreams) Progress(format string, args ...any) {
	if s.StderrTTY {
		fmt.Fprintf(s.ErrOut, format+"\n", args...)
	}
}

// Notice prints a notice on stderr whatever stderr is: something the user
// must learn even in a pipeline (a skipped step, a warning).
func (s *IOStreams) Notice(format string, args ...any) {
	fmt.Fprintf(s.ErrOut, format+"\n", args...)
}

// Color names.
const (
	Red    = "31"
	Green  = "32"
	Yellow = "33"
	Bold   = "1"
)

// Paint wraps text in an ANSI color when color is on.
func (s *IOStreams) Paint(code, text string) string {
	if !s.Color || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Table prints rows: on a terminal an aligned table with a header; piped,
// tab-separated rows without a header.
type Table struct {
	s      *IOStreams
	header []string
	rows   [][]string
}

// NewTable starts a table with the given header.
func (s *IOStreams) NewTable(header ...string) *Table {
	return &Table{s: s, header: header}
}

// Row adds a row.
func (t *Table) Row(fields ...string) { t.rows = append(t.rows, fields) }

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Render writes the table to stdout.
func (t *Table) Render() error {
	if !t.s.StdoutTTY {
		for _, r := range t.rows {
			if _, err := fmt.Fprintln(t.s.Out, strings.Join(r, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(t.s.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.header, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// Printer writes formatted text to W and keeps the first write error, so a
// report prints line after line and checks Err once at the end.
type Printer struct {
	W   io.Writer
	Err error
}

// Printf writes unless an earlier write failed.
func (p *Printer) Printf(format string, args ...any) {
	if p.Err == nil {
		_, p.Err = fmt.Fprintf(p.W, format, args...)
	}
}
