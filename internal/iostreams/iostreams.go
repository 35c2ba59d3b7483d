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
	// StdinTTY: stdin is a terminal, so a command may ask (deploy's
	// confirmation).
	StdinTTY bool
	Color    bool

	// Quiet drops progress lines (--quiet); notices still print.
	Quiet bool
	// TableFormat prints tables aligned with a header even when stdout is
	// not a terminal (--format table).
	TableFormat bool
	// Verbose prints progress lines even when stderr is not a terminal,
	// and Detail lines (--verbose).
	Verbose bool

	// transient is set while a progress line that the next output erases
	// is on the terminal (stderr a terminal only).
	transient *bool
}

// System returns the process's streams.
func System() *IOStreams {
	out := term.IsTerminal(int(os.Stdout.Fd()))
	errTTY := term.IsTerminal(int(os.Stderr.Fd()))
	_, noColor := os.LookupEnv("NO_COLOR")
	s := &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdoutTTY: out, StderrTTY: errTTY, StdinTTY: term.IsTerminal(int(os.Stdin.Fd())),
		Color: out && !noColor && os.Getenv("TERM") != "dumb",
	}
	if errTTY && os.Getenv("TERM") != "dumb" {
		s.EnableTransientProgress()
	}
	return s
}

// EnableTransientProgress makes progress lines transient: each one replaces
// the previous on the same terminal line, and the next output on Out or
// ErrOut erases it first, so a finished run leaves no "Running ..." lines
// behind. System enables it when stderr is a terminal.
func (s *IOStreams) EnableTransientProgress() {
	if s.transient != nil {
		return
	}
	shown := false
	s.transient = &shown
	s.Out = &eraser{w: s.Out, shown: s.transient, errOut: s.ErrOut}
	s.ErrOut = &eraser{w: s.ErrOut, shown: s.transient, errOut: s.ErrOut}
}

// eraseLine returns the cursor to the line's start and clears the line.
const eraseLine = "\r\x1b[2K"

// eraser erases a transient progress line before passing a write on.
type eraser struct {
	w      io.Writer
	errOut io.Writer // where the progress line is
	shown  *bool
}

func (e *eraser) Write(p []byte) (int, error) {
	if *e.shown && len(p) > 0 {
		*e.shown = false
		if _, err := io.WriteString(e.errOut, eraseLine); err != nil {
			return 0, err
		}
	}
	return e.w.Write(p)
}

// ClearProgress erases a transient progress line still shown.
func (s *IOStreams) ClearProgress() {
	if s.transient != nil && *s.transient {
		*s.transient = false
		if e, ok := s.ErrOut.(*eraser); ok {
			io.WriteString(e.w, eraseLine)
		}
	}
}

// Test returns streams backed by buffers, as if piped.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// Progress prints a progress line on stderr: only when stderr is a terminal
// (or with Verbose), never with Quiet. On a terminal with transient progress
// the line replaces the previous progress line and is erased by the next
// output.
func (s *IOStreams) Progress(format string, args ...any) {
	if s.Quiet || !s.StderrTTY && !s.Verbose {
		return
	}
	line := Safe(fmt.Sprintf(format, args...), false)
	if s.transient != nil {
		e := s.ErrOut.(*eraser)
		fmt.Fprint(e.w, eraseLine+line)
		*s.transient = true
		return
	}
	fmt.Fprintln(s.ErrOut, line)
}

// Detail prints a line on stderr only with Verbose: what a run did step by
// step (each node contacted, each file read).
func (s *IOStreams) Detail(format string, args ...any) {
	if s.Verbose && !s.Quiet {
		fmt.Fprintln(s.ErrOut, Safe(fmt.Sprintf(format, args...), true))
	}
}

// Notice prints a notice on stderr whatever stderr is: something the user
// must learn even in a pipeline (a skipped step, a warning).
func (s *IOStreams) Notice(format string, args ...any) {
	fmt.Fprintln(s.ErrOut, Safe(fmt.Sprintf(format, args...), true))
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

// Table prints rows as an aligned table with a header row when stdout is a
// terminal (or TableFormat is set); piped, it prints one tab-separated line
// per row and no header, so `cut -f1` and `while read` take it apart. A cell
// never holds a tab or a newline (Row escapes them).
type Table struct {
	s      *IOStreams
	header []string
	rows   [][]string
}

// NewTable starts a table with the given header.
func (s *IOStreams) NewTable(header ...string) *Table {
	return &Table{s: s, header: header}
}

// Row adds a row. Control characters in a cell are escaped (Safe), so text a
// server supplied (an error, a lock holder, a library or node name) cannot
// drive the terminal; a cell Paint colored keeps its color.
func (t *Table) Row(fields ...string) {
	row := make([]string, len(fields))
	for i, f := range fields {
		row[i] = safeCell(f)
	}
	t.rows = append(t.rows, row)
}

// Safe returns s with every control character (C0 but newline, DEL, C1, and
// the escape that starts terminal sequences) written as a Go escape: \x1b,
// \r, \u0085. keepNewlines false escapes newlines too.
func Safe(s string, keepNewlines bool) string {
	if !needsEscape(s, keepNewlines) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' && keepNewlines:
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(s string, keepNewlines bool) bool {
	for _, r := range s {
		if r < 0x20 && !(r == '\n' && keepNewlines) || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return true
		}
	}
	return false
}

// safeCell escapes a table cell, keeping the color of a cell that Paint
// wrapped whole.
func safeCell(c string) string {
	if strings.HasPrefix(c, "\x1b[") && strings.HasSuffix(c, colorReset) {
		if end := strings.IndexByte(c, 'm'); end > 0 && isSGRCode(c[2:end]) {
			return c[:end+1] + Safe(c[end+1:len(c)-len(colorReset)], false) + colorReset
		}
	}
	return Safe(c, false)
}

const colorReset = "\x1b[0m"

func isSGRCode(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == ';') {
			return false
		}
	}
	return s != ""
}

// Len returns the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// Render writes the table to stdout: aligned with a header on a terminal or
// with TableFormat, else tab-separated rows without a header. The table
// goes out in one write: a reader at the other end of a pipe (a CI log, a
// script) is woken once, not once a row.
func (t *Table) Render() error {
	var b bytes.Buffer
	if !t.s.StdoutTTY && !t.s.TableFormat {
		for _, r := range t.rows {
			b.WriteString(strings.Join(r, "\t"))
			b.WriteByte('\n')
		}
	} else {
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.header, "\t"))
		for _, r := range t.rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		_ = tw.Flush() // a bytes.Buffer does not fail
	}
	if b.Len() == 0 {
		return nil
	}
	_, err := t.s.Out.Write(b.Bytes())
	return err
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
