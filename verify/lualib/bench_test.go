package lualib

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// benchLua compiles src once and runs it b.N times in one state.
func benchLua(b *testing.B, src string) {
	b.Helper()
	L := lua.NewState()
	defer L.Close()
	Open(L)
	fn, err := L.Load(strings.NewReader(src), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		L.Push(fn)
		if err := L.PCall(0, 1, nil); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}

const benchJSON = `{"id":42,"name":"product summary","tags":["a","b","c"],"price":12.5,"stock":null,"active":true}`

func BenchmarkCJSONDecode(b *testing.B) {
	benchLua(b, "return cjson.decode('"+benchJSON+"')")
}

func BenchmarkCJSONEncode(b *testing.B) {
	benchLua(b, `local t = {id = 42, tags = {"a", "b", "c"}, price = 12.5, name = "product/summary"} return cjson.encode(t)`)
}

func BenchmarkCmsgpackRoundTrip(b *testing.B) {
	benchLua(b, `return cmsgpack.unpack(cmsgpack.pack({1, 2, {3, "x"}, "y", 0.5, true}))`)
}

func BenchmarkStructPackUnpack(b *testing.B) {
	benchLua(b, `return struct.unpack(">i4hc3d", struct.pack(">i4hc3d", 7, -2, "abc", 1.5))`)
}

func BenchmarkBitOps(b *testing.B) {
	benchLua(b, `return bit.bxor(bit.band(0x12345678, 0xff00ff00), bit.rol(1, 7), bit.tobit(2^40 + 3))`)
}

func BenchmarkFormatNumber(b *testing.B) {
	for i := 0; i < b.N; i++ {
		FormatNumber(0.1 + float64(i%100))
	}
}
