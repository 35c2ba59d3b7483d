package luac51

import "github.com/scriptctl/scriptctl/verify/crmath"

// cPow is pow for constant folding (2^53, 10^256, 10^23): y == 0 or x == 1
// is 1, and otherwise glibc's pow as the servers fold with it
// (crmath.Pow, bit for bit; Go's math.Pow can be an ulp or more away:
// 10^256). NaN results are not folded, so their sign does not matter.
func cPow(x, y float64) float64 { return crmath.Pow(x, y) }
