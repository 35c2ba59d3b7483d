package crmath

import "math"

// toverp is 2/pi in base 2^24 digits (glibc's branred.h).
var toverp = [75]float64{
	10680707, 7228996, 1387004, 2578385, 16069853,
	12639074, 9804092, 4427841, 16666979, 11263675,
	12935607, 2387514, 4345298, 14681673, 3074569,
	13734428, 16653803, 1880361, 10960616, 8533493,
	3062596, 8710556, 7349940, 6258241, 3772886,
	3769171, 3798172, 8675211, 12450088, 3874808,
	9961438, 366607, 15675153, 9132554, 7151469,
	3571407, 2607881, 12013382, 4155038, 6285869,
	7677882, 13102053, 15825725, 473591, 9065106,
	15363067, 6271263, 9264392, 5636912, 4652155,
	7056368, 13614112, 10155062, 1944035, 9527646,
	15080200, 6658437, 6231200, 6832269, 16767104,
	5075751, 3212806, 1398474, 7579849, 6349435,
	12618859, 4703257, 12806093, 14477321, 2786137,
	12875403, 9837734, 14528324, 13719321, 343717,
}

// Constants of branred.h; its mp2 is not s_sin.c's.
const (
	brSplit = 134217729 // 2^27 + 1
	brBig   = 0x1.8p52
	brBig1  = 0x1.8p54
	brMp1   = 0x1.921FB58p0
	brMp2   = -0x1.DDE974p-27
)

// branredPart is the fraction of x 2/pi, x a double with at most 27
// significant bits, as sum (a multiple of 4 removed) and b + bb.
func branredPart(x float64) (sum, b, bb float64) {
	k := (int(math.Float64bits(x)>>52&2047) - 450) / 24
	if k < 0 {
		k = 0
	}
	gor := math.Float64frombits(uint64(0x63f00000-(k*24)<<20) << 32) // 2^(576-24k)
	var r [6]float64
	for i := range r {
		r[i] = float64(float64(x*toverp[k+i]) * gor)
		gor *= 0x1p-24
	}
	for i := 0; i < 3; i++ {
		s := (r[i] + brBig) - brBig
		sum += s
		r[i] -= s
	}
	t := 0.0
	for i := 5; i >= 0; i-- {
		t += r[i]
	}
	bb = (((((r[0] - t) + r[1]) + r[2]) + r[3]) + r[4]) + r[5]
	s := (t + brBig) - brBig
	sum += s
	t -= s
	b = t + bb
	bb = (t - b) + bb
	s = (sum + brBig1) - brBig1
	sum -= s
	return sum, b, bb
}

// branred is glibc's __branred (sysdeps/ieee754/dbl-64/branred.c, built
// without fused multiply-adds): x = n pi/2 + (a + aa), |a + aa| < pi/4,
// for |x| of at least 105414350; n mod 4.
func branred(x float64) (a, aa float64, n int) {
	x = float64(x * 0x1p-600)
	t := float64(x * brSplit)
	x1 := t - (t - x)
	x2 := x - x1
	sum1, b1, bb1 := branredPart(x1)
	sum2, b2, bb2 := branredPart(x2)
	sum := sum1 + sum2
	b := b1 + b2
	var bb float64
	if math.Abs(b1) > math.Abs(b2) {
		bb = (b1 - b) + b2
	} else {
		bb = (b2 - b) + b1
	}
	if b > 0.5 {
		b -= 1
		sum += 1
	} else if b < -0.5 {
		b += 1
		sum -= 1
	}
	s := b + (bb + bb1 + bb2)
	t = ((b - s) + bb) + (bb1 + bb2)
	b = float64(s * brSplit)
	t1 := b - (b - s)
	t2 := s - t1
	b = float64(s * sinHp0)
	bb = (((float64(t1*brMp1) - b) + float64(t1*brMp2)) + float64(t2*brMp1)) +
		(float64(t2*brMp2) + float64(s*sinHp1) + float64(t*sinHp0))
	s = b + bb
	t = (b - s) + bb
	return s, t, int(sum) & 3
}
