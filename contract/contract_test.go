package contract

import (
	"strings"
	"testing"
)

func TestParseRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"integer", "integer"},
		{" string ", "string"},
		{"1 | 0 | -1 | -2", "1 | 0 | -1 | -2"},
		{`["cached", string, string] | ["acquired", string] | ["busy", integer]`, `["cached", string, string] | ["acquired", string] | ["busy", integer]`},
		{`['cached', value: string]`, `["cached", value: string]`},
		{`array(array(integer | nil))`, `array(array(integer | nil))`},
		{`error("ERR empty token") | status("OK") | status`, `error("ERR empty token") | status("OK") | status`},
		{`(integer | nil) | string`, `integer | nil | string`},
		{`published: 1 | stale: 0`, `published: 1 | stale: 0`},
		{`[a: string | nil, b: integer]`, `[a: string | nil, b: integer]`},
		{`boolean | double | any | error`, `boolean | double | any | error`},
		{`"a\"b\\c\n"`, `"a\"b\\c\n"`},
	} {
		ty, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := ty.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		again, err := Parse(ty.String())
		if err != nil || again.String() != ty.String() {
			t.Errorf("round trip of %q: %v %v", tc.in, again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in  string
		col int
		msg string
	}{
		{"", 1, "empty type"},
		{"int", 1, `unknown type "int" (did you mean integer?)`},
		{"integer |", 10, "want a type, found end of type"},
		{"[integer", 9, `want "]" to close the tuple`},
		{"[]", 2, "empty tuple"},
		{"array integer", 7, `want "(" after array`},
		{`"abc`, 1, "unterminated string literal"},
		{"01", 1, "invalid integer literal 01"},
		{"-", 1, "invalid integer literal -"},
		{"99999999999999999999", 1, "invalid integer literal"},
		{"integer string", 9, `unexpected "string" after the type`},
		{"error(ERR)", 7, `error(...) takes a quoted text`},
		{`error(" ERR")`, 7, "error prefix"},
		{`array(error)`, 1, "cannot be inside an array"},
		{`1 | 1`, 1, "alternative 1 is listed twice"},
		{`[a: string, a: string]`, 1, `label "a" is used twice`},
		{"integer & string", 9, `unexpected character '&'`},
		{strings.Repeat("[", 40) + "integer" + strings.Repeat("]", 40), 33, "nests deeper than 32"},
		{`"\x"`, 2, `unknown escape \x`},
	} {
		_, err := Parse(tc.in)
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tc.in, err)
			continue
		}
		if se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%q) = column %d %q, want column %d containing %q", tc.in, se.Col, se.Msg, tc.col, tc.msg)
		}
	}
}

func i(n int64) Value       { return Value{Kind: VInt, Int: n} }
func s(x string) Value      { return Value{Kind: VBulk, Str: x} }
func arr(e ...Value) Value  { return Value{Kind: VArray, Elems: e} }
func errv(x string) Value   { return Value{Kind: VError, Str: x} }
func status(x string) Value { return Value{Kind: VStatus, Str: x} }
func must(t *testing.T, text string) *Type {
	t.Helper()
	ty, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func TestCheck(t *testing.T) {
	acquire := `["cached", value: string, gen: string] | ["acquired", gen: string] | ["busy", pttl: integer] | error("ERR empty token") | error("ERR invalid lease TTL")`
	for _, tc := range []struct {
		typ  string
		v    Value
		want string // "" when v conforms
	}{
		{acquire, arr(s("cached"), s("v"), s("0")), ""},
		{acquire, arr(s("acquired"), s("3")), ""},
		{acquire, arr(s("busy"), i(100)), ""},
		{acquire, arr(s("acquired"), i(3)), `reply[1]: want string, got 3`},
		{acquire, arr(s("busy"), s("x")), `reply[1]: want integer, got "x"`},
		{acquire, arr(s("weird"), i(1)), `reply: want ["cached", string, string] | ["acquired", string] | ["busy", integer], got ["weird", 1]`},
		{acquire, i(1), `reply: want ["cached"`},
		{acquire, errv("ERR empty token"), ""},
		{acquire, errv("ERR invalid lease TTL xyz"), ""},
		{acquire, errv("WRONGTYPE Operation against a key"), ""},
		{acquire, errv("ERR user_script:1: boom"), `reply: want error("ERR empty token") | error("ERR invalid lease TTL"), got -ERR user_script:1: boom`},
		{"1 | 0 | -1 | -2", i(-2), ""},
		{"1 | 0 | -1 | -2", i(2), "reply: want 1 | 0 | -1 | -2, got 2"},
		{"1 | 0", errv("ERR anything"), ""},
		{"1 | error", errv("ERR anything"), ""},
		{"array(string)", arr(), ""},
		{"array(string)", arr(s("a"), i(1)), "reply[1]: want string, got 1"},
		{"[integer, integer]", arr(i(1)), "reply: want [integer, integer] (2 elements), got [1] (1 elements)"},
		{"string | nil", Value{Kind: VNil}, ""},
		{"string", Value{Kind: VNil}, "reply: want string, got (nil)"},
		{"status", status("OK"), ""},
		{`status("OK")`, status("QUEUED"), `reply: want status("OK"), got +QUEUED`},
		{"boolean", i(1), ""},
		{"boolean", Value{Kind: VNil}, ""},
		{"boolean", Value{Kind: VBool}, ""},
		{"boolean", i(0), "reply: want boolean, got 0"},
		{"double", s("1.5"), ""},
		{"double", s("inf"), ""},
		{"double", Value{Kind: VDouble, Float: 2}, ""},
		{"double", s("x"), `reply: want double, got "x"`},
		{"any", arr(arr(i(1))), ""},
		{"array([a: integer, b: string | nil])", arr(arr(i(1), s("x")), arr(i(2), i(3))), "reply[1][1]: want string | nil, got 3"},
	} {
		m := Check(must(t, tc.typ), tc.v)
		got := ""
		if m != nil {
			got = m.String()
		}
		if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
			t.Errorf("Check(%s, %s) = %q, want %q", tc.typ, Show(tc.v), got, tc.want)
		}
	}
}

func TestSuccessAndErrors(t *testing.T) {
	ty := must(t, `1 | 0 | error("ERR a") | e2: error("ERR b")`)
	if got := ty.Success().String(); got != "1 | 0" {
		t.Errorf("Success = %q", got)
	}
	if errs := ty.Errors(); len(errs) != 2 || errs[1].Label != "e2" || errs[1].Str != "ERR b" {
		t.Errorf("Errors = %v", errs)
	}
	if must(t, `error("ERR a")`).Success() != nil {
		t.Error("Success of an error-only type is not nil")
	}
}
