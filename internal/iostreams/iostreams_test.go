package iostreams

import (
	"bytes"
	"fmt"
	"testing"
)

// TestTablePiped: off a terminal a table is tab-separated rows without a
// header, and a tab or newline inside a cell is escaped, so every row is
// one line of exactly as many fields as the header.
func TestTablePiped(t *testing.T) {
	ios, _, out, _ := Test()
	tb := ios.NewTable("NODE", "STATE")
	tb.Row("127.0.0.1:7000", "loaded")
	tb.Row("127.0.0.1:7001", "missing\tnow\nreally")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "127.0.0.1:7000\tloaded\n127.0.0.1:7001\tmissing\\tnow\\nreally\n"
	if out.String() != want {
		t.Fatalf("piped table:\n%q\nwant\n%q", out.String(), want)
	}
	if tb.Len() != 2 {
		t.Fatalf("Len = %d, want 2", tb.Len())
	}
}

// TestTableFormat: --format table (TableFormat) prints the aligned table
// with its header even when piped.
func TestTableFormat(t *testing.T) {
	ios, _, out, _ := Test()
	ios.TableFormat = true
	tb := ios.NewTable("NODE", "STATE")
	tb.Row("127.0.0.1:7000", "loaded")
	tb.Row("127.0.0.1:7001", "missing")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "NODE            STATE\n127.0.0.1:7000  loaded\n127.0.0.1:7001  missing\n"
	if out.String() != want {
		t.Fatalf("--format table:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestTableTerminal(t *testing.T) {
	ios, _, out, _ := Test()
	ios.StdoutTTY = true
	tb := ios.NewTable("NODE", "STATE")
	tb.Row("a", "loaded")
	tb.Row("bbbbbb", "missing")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "NODE    STATE\na       loaded\nbbbbbb  missing\n"
	if out.String() != want {
		t.Fatalf("terminal table:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestPaintAndProgress(t *testing.T) {
	ios, _, _, errOut := Test()
	if got := ios.Paint(Red, "x"); got != "x" {
		t.Fatalf("Paint without color = %q", got)
	}
	ios.Color = true
	if got := ios.Paint(Red, "x"); got != "\x1b[31mx\x1b[0m" {
		t.Fatalf("Paint with color = %q", got)
	}
	ios.Progress("working %d", 1)
	if errOut.Len() != 0 {
		t.Fatalf("Progress wrote %q when stderr is not a terminal", errOut.String())
	}
	ios.StderrTTY = true
	ios.Progress("working %d", 2)
	ios.Notice("note")
	if errOut.String() != "working 2\nnote\n" {
		t.Fatalf("stderr = %q", errOut.String())
	}
}

func TestSystemHonoursNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if System().Color {
		t.Fatal("Color on although NO_COLOR is set")
	}
}

func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":          "plain text",
		"a\x1b]0;pwned\x07b":  `a\x1b]0;pwned\x07b`,
		"clear\x1b[2Jscreen":  `clear\x1b[2Jscreen`,
		"line1\nline2\r":      "line1\nline2\\r",
		"tab\there":           `tab\there`,
		"c1 \u009b31m":        `c1 \u009b31m`,
		"del\x7f":             `del\x7f`,
		"unicode ok: héllo ✓": "unicode ok: héllo ✓",
	} {
		if got := Safe(in, true); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Safe("a\nb", false); got != `a\nb` {
		t.Errorf("Safe without newlines = %q", got)
	}
}

func TestTableEscapesCellsKeepsColor(t *testing.T) {
	ios, _, out, _ := Test()
	ios.Color = true
	ios.StdoutTTY = true
	tb := ios.NewTable("A", "B")
	tb.Row("holder\x1b]0;title\x07", ios.Paint(Red, "failed\x1b[2J"))
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "A                       B\nholder\\x1b]0;title\\x07  \x1b[31mfailed\\x1b[2J\x1b[0m\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

func TestNoticeEscapes(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.Notice("drift: %s", "node\x1b[2J")
	if got := errOut.String(); got != "drift: node\\x1b[2J\n" {
		t.Fatalf("got %q", got)
	}
}

// TestProgressQuietVerbose: --quiet drops progress, --verbose prints it off
// a terminal and enables Detail lines.
func TestProgressQuietVerbose(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.StderrTTY, ios.Quiet = true, true
	ios.Progress("hidden")
	ios.Detail("hidden too")
	ios.Notice("shown")
	if got := errOut.String(); got != "shown\n" {
		t.Fatalf("quiet: stderr = %q", got)
	}
	ios, _, _, errOut = Test()
	ios.Verbose = true
	ios.Progress("step %d", 1)
	ios.Detail("node %s", "a")
	if got := errOut.String(); got != "step 1\nnode a\n" {
		t.Fatalf("verbose: stderr = %q", got)
	}
}

// TestTransientProgress: on a terminal each progress line replaces the last
// and the next output erases it, so none is left behind.
func TestTransientProgress(t *testing.T) {
	ios, _, out, errOut := Test()
	ios.StderrTTY = true
	ios.EnableTransientProgress()
	ios.Progress("Running %s...", "lint")
	ios.Progress("Running %s...", "verify")
	fmt.Fprintln(ios.Out, "report")
	ios.Progress("Running %s...", "last")
	ios.ClearProgress()
	if got, want := errOut.String(), "\r\x1b[2KRunning lint...\r\x1b[2KRunning verify...\r\x1b[2K\r\x1b[2KRunning last...\r\x1b[2K"; got != want {
		t.Fatalf("stderr = %q, want %q", got, want)
	}
	if out.String() != "report\n" {
		t.Fatalf("stdout = %q", out.String())
	}
}

// writes counts the writes made to it and keeps what they wrote.
type writes struct {
	n    int
	text []byte
}

func (w *writes) Write(p []byte) (int, error) {
	w.n++
	w.text = append(w.text, p...)
	return len(p), nil
}

// TestTableOneWrite: a table goes out in one write, piped or aligned, so
// a reader at the other end of a pipe is woken once, not once a row.
func TestTableOneWrite(t *testing.T) {
	for _, aligned := range []bool{false, true} {
		ios, _, _, _ := Test()
		w := &writes{}
		ios.Out, ios.TableFormat = w, aligned
		tb := ios.NewTable("NODE", "STATE")
		for i := range 5 {
			tb.Row(fmt.Sprintf("127.0.0.1:700%d", i), "loaded")
		}
		if err := tb.Render(); err != nil {
			t.Fatal(err)
		}
		lines := 5
		if aligned {
			lines++ // the header
		}
		if w.n != 1 || bytes.Count(w.text, []byte("\n")) != lines {
			t.Errorf("aligned %v: %d writes of %q, want 1 of %d lines", aligned, w.n, w.text, lines)
		}
	}
	// An empty piped table writes nothing.
	ios, _, _, _ := Test()
	w := &writes{}
	ios.Out = w
	if err := ios.NewTable("NODE").Render(); err != nil || w.n != 0 {
		t.Errorf("empty piped table: %d writes, %v", w.n, err)
	}
}
