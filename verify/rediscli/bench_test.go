package rediscli

import "testing"

func BenchmarkFormatNested(b *testing.B) {
	r := A(I(1), B("a\nb\x00"), A(append(ints(12), A(S("OK"), E("ERR x")))...), N())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Format(r)
	}
}
