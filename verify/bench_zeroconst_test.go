package verify

import (
	"fmt"
	"strings"
	"testing"
)

// zeroConstSrc is a script of n lines of arithmetic on a local, ending with
// LRANGE key 0 -1 (a negated numeral that is not a zero), and negZero
// (when not "") on a line of its own.
func zeroConstSrc(n int, negZero string) []byte {
	var sb strings.Builder
	sb.WriteString("local x = 0\n")
	for i := range n {
		fmt.Fprintf(&sb, "x = x + %d\n", i%7)
	}
	sb.WriteString(negZero + "\nreturn {x, redis.call('LRANGE', KEYS[1], 0, -1)}\n")
	return []byte(sb.String())
}

// BenchmarkCompileZeroConst: the compile of a 2,000-line chunk without a
// negative zero (plain, gopher-lua alone, as before the zero constant was
// matched) and with one (neg-zero, compiled by Lua 5.1's compiler too):
// the second compile's cost is neg-zero's ns/op over plain's.
func BenchmarkCompileZeroConst(b *testing.B) {
	for _, bc := range []struct{ name, line string }{
		{"plain", ""},
		{"neg-zero", "local z = -0"},
	} {
		src := zeroConstSrc(2000, bc.line)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := compileSites(src, "@user_script"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
