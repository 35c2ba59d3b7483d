package contract

import "testing"

// FuzzReplyType: Parse never panics, and what it accepts prints to a text
// that parses back to the same text.
func FuzzReplyType(f *testing.F) {
	for _, seed := range []string{
		"integer", "1 | 0 | -1 | -2", `["cached", string, string] | ["acquired", string] | ["busy", integer]`,
		`array([a: integer, b: string | nil])`, `error("ERR x") | status("OK")`, `(integer | nil) | "x"`,
		`'a\'b'`, "[[[[integer]]]]", "boolean | double | any", "integer |", "[", `"\q"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ty, err := Parse(text)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("Parse(%q): error %T, want *SyntaxError", text, err)
			}
			return
		}
		out := ty.String()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", text, out, err)
		}
		if again.String() != out {
			t.Fatalf("round trip of %q: %q then %q", text, out, again.String())
		}
		Check(ty, Value{Kind: VArray, Elems: []Value{{Kind: VInt, Int: 1}, {Kind: VBulk, Str: "x"}}})
	})
}
