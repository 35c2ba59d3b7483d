package verify

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestPastArrayPart: integer keys from lua.MaxArrayIndex on live in
// gopher-lua's hash part, and every library function that reads t[i]
// finds them there. The test lowers the bound (4M in the engine) to 1024
// for its duration, so that 2000 elements cross it.
func TestPastArrayPart(t *testing.T) {
	old := lua.MaxArrayIndex
	lua.MaxArrayIndex = 1024
	t.Cleanup(func() { lua.MaxArrayIndex = old })
	const build = "local t = {} for i = 1, 2000 do t[i] = i end "
	for _, tc := range []struct{ name, src, want string }{
		{"length", build + "return {#t, table.getn(t)}", "[2000, 2000]"},
		{"ipairs", build + "local n, s = 0, 0 for i, v in ipairs(t) do n = n + 1 s = s + v end return {n, s}", "[2000, 2001000]"},
		{"unpack", build + "return {unpack(t, 1022, 1026)}", "[1022, 1023, 1024, 1025, 1026]"},
		{"table.concat", build + "return table.concat(t, ',', 1022, 1026)", `"1022,1023,1024,1025,1026"`},
		{"table.foreachi", build + "local n = 0 table.foreachi(t, function(i, v) n = n + v end) return n", "2001000"},
		{"table.sort", build + "table.sort(t, function(a, b) return a > b end) return {t[1], t[1024], t[1025], t[2000]}", "[2000, 977, 976, 1]"},
		{"table.insert at 1", build + "table.insert(t, 1, 0) return {#t, t[1], t[1024], t[1025], t[2001]}", "[2001, 0, 1023, 1024, 2000]"},
		{"table.remove at 1", build + "table.remove(t, 1) return {#t, t[1], t[1024], t[1999], t[2000]}", "[1999, 2, 1025, 2000]"},
		{"returned array", build + "return t", "(an array of 2000)"},
		{"cjson.encode", build + "return #cjson.encode(t)", "8894"},
		{"cmsgpack.pack", build + "return #cmsgpack.pack(t)", "5621"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{})
			r, err := evalT(t, e, tc.src, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := r.String()
			if tc.want == "(an array of 2000)" {
				if r.Kind != Array || len(r.Elems) != 2000 || r.Elems[1999].Int != 2000 {
					t.Fatalf("got %.80s", got)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestLengthKeptModel: #t taken at every store of a loop (the kept model,
// extended) gives what #t taken once at the end gives (a full replay of
// the history), for histories that cross lua.MaxArrayIndex (lowered to
// 1024 as in TestPastArrayPart).
func TestLengthKeptModel(t *testing.T) {
	old := lua.MaxArrayIndex
	lua.MaxArrayIndex = 1024
	t.Cleanup(func() { lua.MaxArrayIndex = old })
	for _, history := range []string{
		"for i = 1, 2000 do t[i] = i L() end t[1500] = nil L() for i = 2001, 2100 do t[i] = i L() end",
		"for i = 1, 2000 do t[i] = i L() end t[500] = nil L() for i = 2001, 2100 do t[i] = i L() end",
		"for i = 1, 1030 do t[i] = i L() end t.x = 1 L() t[700] = nil L() for i = 1031, 3000 do t[i] = i L() end t[2999] = nil L()",
		"t.s = 1 for i = 1, 1500 do t[i] = i L() end t.s = nil L() t.s = 2 L() for i = 1501, 2500 do t[i] = i L() end t[1200] = nil",
		"for i = 1, 1100 do t[i] = i L() end for i = 1, 1100, 3 do t[i] = nil L() end for i = 1101, 4100 do t[i] = i L() end",
	} {
		each := "local t = {} local lens = 0 local function L() lens = lens + #t end " + history + " return #t"
		once := "local t = {} local function L() end " + history + " return #t"
		e := New(Options{})
		a, err := evalT(t, e, each, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Reset()
		b, err := evalT(t, e, once, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() || len(e.Warnings()) > 0 {
			t.Errorf("#t after every store %s, once %s (warnings %q)\n%s", a, b, e.Warnings(), history)
		}
	}
}
