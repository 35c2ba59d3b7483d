package luac51

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzLuac51 feeds arbitrary chunks to the compiler: it must return a
// prototype or a compile *Error, never panic or fail inside (an
// InternalError), and a prototype's dump must read back to the same bytes.
func FuzzLuac51(f *testing.F) {
	for _, s := range []string{
		"return 1", "local a, b = ... return a + b", "for i = 1, 10 do local f = function() return i end end",
		"x = {1, 2, 3, f(), ...}", "if a then elseif b then else end", "repeat local x until x",
		"return 1\x00 + 2", "local t = {" + "1, " + "2, " + "}", "return (", "a.b.c:d 'e' {f} (g)",
		"while true do break end", "return not a == b and c or d", "local function f(...) return arg end",
		"return [==[\nx]==], 'a\\0b', 0x10, 1e400, -0", "goto x", "::a::", "return ... .. ...",
	} {
		f.Add([]byte(s))
	}
	for seed := uint64(0); seed < 20; seed++ {
		f.Add([]byte(randomChunk(seed)))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Compile(src, "=fuzz")
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("not a compile error: %v", err)
			}
			return
		}
		b := p.Dump()
		back, err := undump(b)
		if err != nil {
			t.Fatalf("dump does not read back: %v", err)
		}
		if !bytes.Equal(back.Dump(), b) {
			t.Fatal("dump read back differs")
		}
	})
}
