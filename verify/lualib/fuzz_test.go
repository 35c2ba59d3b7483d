package lualib

import (
	"math"
	"strconv"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// call runs lib.fn(args...) in a fresh state and returns its results. A Lua
// error is fine (the C library raises them too); a Go panic is a bug.
func call(t *testing.T, lib, fn string, args ...lua.LValue) ([]lua.LValue, error) {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	Open(L)
	f := L.GetField(L.GetGlobal(lib), fn)
	top := L.GetTop()
	err := L.CallByParam(lua.P{Fn: f, NRet: lua.MultRet, Protect: true}, args...)
	if err != nil {
		if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
			t.Fatalf("%s.%s panicked: %v", lib, fn, err)
		}
		return nil, err
	}
	var out []lua.LValue
	for i := top + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	return out, nil
}

// FuzzCJSONDecode: decoding never panics, and whatever decodes re-encodes
// to JSON that decodes and re-encodes to the same text.
func FuzzCJSONDecode(f *testing.F) {
	for _, s := range []string{`[1,2,3]`, `{"a":[1,{"b":null}]}`, `"x\/\u00e9\ud83d\ude00"`, `-1.5e3`, `0x10`, `[1,2,]`, `{"a" 1}`, `"\u12"`, `nan`, `[[[[`, "[1]\x00x", `{"":""}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := call(t, "cjson", "decode", lua.LString(s))
		if err != nil {
			return
		}
		enc, err := call(t, "cjson", "encode", out[0])
		if err != nil {
			return // e.g. a decoded NaN or a sparse array
		}
		again, err := call(t, "cjson", "decode", enc[0])
		if err != nil {
			t.Fatalf("decode(encode(decode(%q))) = decode(%q): %v", s, enc[0], err)
		}
		enc2, err := call(t, "cjson", "encode", again[0])
		if err != nil {
			t.Fatalf("encode again: %v", err)
		}
		// Objects with several keys may iterate in another order after a
		// round trip; compare lengths, which the order cannot change.
		if len(lua.LVAsString(enc2[0])) != len(lua.LVAsString(enc[0])) {
			t.Fatalf("round trip of %q: %q then %q", s, enc[0], enc2[0])
		}
	})
}

// FuzzStruct: pack, unpack and size never panic on any format, and data
// packed with a fixed-size format unpacks from the same format.
func FuzzStruct(f *testing.F) {
	for _, s := range []string{">i4", "<h>h", "bBhHlLT", "!4bi", "c0", "s", "i40", "!3", "x", "i99999999999", "c3", "<d", ">f"} {
		f.Add(s, 42.5, "abc")
	}
	f.Fuzz(func(t *testing.T, format string, n float64, s string) {
		if _, err := call(t, "struct", "size", lua.LString(format)); err != nil {
			return
		}
		args := []lua.LValue{lua.LString(format)}
		for i := 0; i < 8; i++ {
			args = append(args, lua.LNumber(n))
		}
		packed, err := call(t, "struct", "pack", args...)
		if err != nil {
			return
		}
		if _, err := call(t, "struct", "unpack", lua.LString(format), packed[0]); err != nil {
			t.Fatalf("unpack(%q, pack(%q, %v...)): %v", format, format, n, err)
		}
		call(t, "struct", "unpack", lua.LString(format), lua.LString(s), lua.LNumber(2))
	})
}

// FuzzMsgpackUnpack: unpacking never panics, and values that unpack
// re-pack to bytes that unpack to the same number of values.
func FuzzMsgpackUnpack(f *testing.F) {
	for _, s := range []string{"\x93\x01\xc0\x03", "\xcc\xff", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xcb\x40\x04\x00\x00\x00\x00\x00\x00", "\xd9\x03abc", "\xdc\x00\x02\x01\x02", "\x81\xc0\x01", "\xc1", "\xcd\x01", "\x81\xa1a\xa1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := call(t, "cmsgpack", "unpack", lua.LString(s))
		if err != nil || len(out) == 0 || len(out) > 100 {
			return
		}
		packed, err := call(t, "cmsgpack", "pack", out...)
		if err != nil {
			t.Fatalf("pack(unpack(%q)): %v", s, err)
		}
		again, err := call(t, "cmsgpack", "unpack", packed[0])
		if err != nil {
			t.Fatalf("unpack(pack(unpack(%q))): %v", s, err)
		}
		if len(again) != len(out) {
			t.Fatalf("%q: %d values, after a round trip %d", s, len(out), len(again))
		}
		call(t, "cmsgpack", "unpack_one", lua.LString(s), lua.LNumber(1))
		call(t, "cmsgpack", "unpack_limit", lua.LString(s), lua.LNumber(2), lua.LNumber(1))
	})
}

// FuzzToNumber: every plain decimal that Go parses, Lua's rules parse to the
// same value, and no input panics.
func FuzzToNumber(f *testing.F) {
	for _, s := range []string{"1", " -2.5e3 ", "0x1F", "0x1.8p1", "inf", "nan(123)", ".5", "1e", "0x", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ToNumber(lua.LString(s))
		if want, err := strconv.ParseFloat(s, 64); err == nil && isPlainDecimal(s) {
			if !ok || (got != want && !(math.IsNaN(got) && math.IsNaN(want))) {
				t.Fatalf("ToNumber(%q) = %v, %v; strconv says %v", s, got, ok, want)
			}
		}
	})
}

func isPlainDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}
