package verify

import (
	"context"
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestLineCoverage(t *testing.T) {
	src := []byte("#!lua flags=no-writes\n" + // line 1: stripped
		"local n = tonumber(ARGV[1])\n" + // 2
		"if n > 5 then\n" + // 3
		"  return 'big'\n" + // 4
		"end\n" + // 5
		"local function f(x)\n" + // 6
		"  return x * 2\n" + // 7
		"end\n" + // 8
		"return f(n)\n") // 9
	c := NewLineCoverage()
	if !c.Supported() {
		t.Fatal("gopher-lua's frames cannot be read: coverage records nothing")
	}
	e := New(Options{})
	ctx := WithLineCoverage(context.Background(), c)
	for _, arg := range []string{"1", "2"} {
		if _, err := e.Eval(ctx, src, nil, []string{arg}); err != nil {
			t.Fatal(err)
		}
	}
	got := map[int]string{}
	for _, l := range c.ScriptLines(src) {
		s := fmt.Sprint(l.Count)
		for _, b := range l.Branches {
			s += fmt.Sprintf(" [%d %d]", b.Next, b.Skip)
		}
		got[l.Line] = s
	}
	want := map[int]string{
		2: "2",
		3: "2 [2 0]", // n > 5 never held: always on to the jump past the return
		4: "0",
		6: "2",
		7: "2",
		9: "2",
	}
	for line, w := range want {
		if got[line] != w {
			t.Errorf("line %d: %q, want %q (all: %v)", line, got[line], w, got)
		}
	}
	for _, line := range []int{1, 5, 8, 10} {
		if _, ok := got[line]; ok {
			t.Errorf("line %d has code (a shebang, an end, the chunk's implicit return): %v", line, got)
		}
	}
	// A run without the context records nothing more.
	if _, err := e.Eval(context.Background(), src, nil, []string{"9"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range c.ScriptLines(src) {
		if l.Line == 4 && l.Count != 0 {
			t.Errorf("a run without coverage was recorded")
		}
	}
	// Once both ways: the branch is covered.
	if _, err := e.Eval(ctx, src, nil, []string{"9"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range c.ScriptLines(src) {
		if l.Line == 3 && (len(l.Branches) != 1 || l.Branches[0].Next == 0 || l.Branches[0].Skip == 0) {
			t.Errorf("line 3 after both outcomes: %+v", l)
		}
		if l.Line == 4 && l.Count != 1 {
			t.Errorf("line 4: %d", l.Count)
		}
	}
}

// TestLineCoverageMoveN: consecutive "local a = b" lines compile to one
// MOVEN that runs the MOVEs after it without dispatching them; each line
// still counts.
func TestLineCoverageMoveN(t *testing.T) {
	src := []byte("local a, b = ARGV[1], ARGV[2]\nlocal x = a\nlocal y = b\nlocal z = a\nreturn x .. y .. z\n")
	c := NewLineCoverage()
	if _, err := New(Options{}).Eval(WithLineCoverage(context.Background(), c), src, nil, []string{"p", "q"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range c.ScriptLines(src) {
		if l.Count != 1 {
			t.Errorf("line %d ran %d times, want 1", l.Line, l.Count)
		}
	}
	moven := false
	for _, inst := range compileCached(src, "@user_script").proto.Code {
		moven = moven || int(inst>>26) == lua.OP_MOVEN
	}
	if !moven {
		t.Error("the chunk has no MOVEN: the case is not exercised")
	}
}
