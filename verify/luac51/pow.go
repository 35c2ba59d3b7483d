package luac51

import (
	"math"

	"github.com/scriptctl/scriptctl/verify/crmath"
)

// cPow is pow for constant folding (2^53, 10^256): y == 0 or x == 1 is 1,
// and otherwise the result correctly rounded. glibc's pow, which the
// servers fold with, is correctly rounded except within about 0.02 ulp of
// a tie between two doubles (an exact tie such as 10^23 or 1.5^34 may go
// either way there); tie reports such a result, whose last bit may differ
// from the server's. (Go's math.Pow can be an ulp or more away anywhere:
// 10^256.) NaN results are not folded, so their sign does not matter.
func cPow(x, y float64) (r float64, tie bool) {
	r = crmath.Pow(x, y)
	if math.IsNaN(r) || math.IsInf(r, 0) || r == 0 {
		return r, false
	}
	return r, crmath.Tie(math.Abs(x), y)
}
