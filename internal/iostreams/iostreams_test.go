package iostreams

import "testing"

func TestTablePiped(t *testing.T) {
	ios, _, out, _ := Test()
	tb := ios.NewTable("NODE", "STATE")
	tb.Row("127.0.0.1:7000", "loaded")
	tb.Row("127.0.0.1:7001", "missing")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "127.0.0.1:7000\tloaded\n127.0.0.1:7001\tmissing\n"
	if out.String() != want {
		t.Fatalf("piped table:\n%q\nwant\n%q", out.String(), want)
	}
	if tb.Len() != 2 {
		t.Fatalf("Len = %d, want 2", tb.Len())
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
