package cnum

import (
	"math"
)

// grisu2 is deps/fpconv's grisu2 (Florian Loitsch's Grisu2, as Redis 7.2+
// and Valkey ship it for fpconv_dtoa): the digits of f > 0 and K, with f
// about digits * 10^K. Grisu2 is not always shortest (123e20 gives
// 12300000000000001), so it is ported as is rather than replaced by Go's
// shortest formatting.
func grisu2(f float64) (digits []byte, k int) {
	w := buildFp(f)
	lower, upper := normalizedBoundaries(w)
	w = normalizeFp(w)
	cp, pk := cachedPow10(upper.exp)
	w = multiplyFp(w, cp)
	upper = multiplyFp(upper, cp)
	lower = multiplyFp(lower, cp)
	lower.frac++
	upper.frac--
	return generateDigits(w, upper, lower, -pk)
}

type fp struct {
	frac uint64
	exp  int
}

const (
	fpFracMask  = 0x000FFFFFFFFFFFFF
	fpExpMask   = 0x7FF0000000000000
	fpHiddenBit = 0x0010000000000000
	fpExpBias   = 1023 + 52
)

var fpTens = [20]uint64{
	10000000000000000000, 1000000000000000000, 100000000000000000, 10000000000000000,
	1000000000000000, 100000000000000, 10000000000000, 1000000000000, 100000000000,
	10000000000, 1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1,
}

func buildFp(d float64) fp {
	b := math.Float64bits(d)
	f := fp{frac: b & fpFracMask, exp: int((b & fpExpMask) >> 52)}
	if f.exp != 0 {
		f.frac += fpHiddenBit
		f.exp -= fpExpBias
	} else {
		f.exp = -fpExpBias + 1
	}
	return f
}

func normalizeFp(f fp) fp {
	for f.frac&fpHiddenBit == 0 {
		f.frac <<= 1
		f.exp--
	}
	const shift = 64 - 52 - 1
	f.frac <<= shift
	f.exp -= shift
	return f
}

func normalizedBoundaries(f fp) (lower, upper fp) {
	upper = fp{frac: f.frac<<1 + 1, exp: f.exp - 1}
	for upper.frac&(fpHiddenBit<<1) == 0 {
		upper.frac <<= 1
		upper.exp--
	}
	const uShift = 64 - 52 - 2
	upper.frac <<= uShift
	upper.exp -= uShift
	lShift := 1
	if f.frac == fpHiddenBit {
		lShift = 2
	}
	lower = fp{frac: f.frac<<lShift - 1, exp: f.exp - lShift}
	lower.frac <<= uint(lower.exp - upper.exp)
	lower.exp = upper.exp
	return lower, upper
}

func multiplyFp(a, b fp) fp {
	const lomask = 0x00000000FFFFFFFF
	ahBl := (a.frac >> 32) * (b.frac & lomask)
	alBh := (a.frac & lomask) * (b.frac >> 32)
	alBl := (a.frac & lomask) * (b.frac & lomask)
	ahBh := (a.frac >> 32) * (b.frac >> 32)
	tmp := (ahBl & lomask) + (alBh & lomask) + (alBl >> 32)
	tmp += 1 << 31 // round up
	return fp{frac: ahBh + (ahBl >> 32) + (alBh >> 32) + (tmp >> 32), exp: a.exp + b.exp + 64}
}

func roundDigit(digits []byte, delta, rem, kappa, frac uint64) {
	n := len(digits)
	for rem < frac && delta-rem >= kappa && (rem+kappa < frac || frac-rem > rem+kappa-frac) {
		digits[n-1]--
		rem += kappa
	}
}

func generateDigits(w, upper, lower fp, k int) ([]byte, int) {
	wfrac := upper.frac - w.frac
	delta := upper.frac - lower.frac
	shift := uint(-upper.exp)
	one := uint64(1) << shift
	part1 := upper.frac >> shift
	part2 := upper.frac & (one - 1)
	digits := make([]byte, 0, 18)
	kappa := 10
	for i := 10; kappa > 0; i++ {
		div := fpTens[i]
		digit := part1 / div
		if digit != 0 || len(digits) > 0 {
			digits = append(digits, byte(digit)+'0')
		}
		part1 -= digit * div
		kappa--
		if tmp := part1<<shift + part2; tmp <= delta {
			roundDigit(digits, delta, tmp, div<<shift, wfrac)
			return digits, k + kappa
		}
	}
	unit := 18
	for {
		part2 *= 10
		delta *= 10
		kappa--
		digit := part2 >> shift
		if digit != 0 || len(digits) > 0 {
			digits = append(digits, byte(digit)+'0')
		}
		part2 &= one - 1
		if part2 < delta {
			roundDigit(digits, delta, part2, one, wfrac*fpTens[unit])
			return digits, k + kappa
		}
		unit--
	}
}

// cachedPow10 is find_cachedpow10: the cached power of ten that brings a
// number of binary exponent exp into Grisu's range, and its decimal
// exponent.
func cachedPow10(exp int) (fp, int) {
	const (
		npowers    = 87
		steppowers = 8
		firstpower = -348
		expmax     = -32
		expmin     = -60
	)
	approx := int(float64(-(exp + npowers)) * 0.30102999566398114)
	idx := (approx - firstpower) / steppowers
	for {
		cur := exp + fpPowersTen[idx].exp + 64
		switch {
		case cur < expmin:
			idx++
		case cur > expmax:
			idx--
		default:
			return fpPowersTen[idx], firstpower + idx*steppowers
		}
	}
}

var fpPowersTen = [87]fp{
	{18054884314459144840, -1220},
	{13451937075301367670, -1193},
	{10022474136428063862, -1166},
	{14934650266808366570, -1140},
	{11127181549972568877, -1113},
	{16580792590934885855, -1087},
	{12353653155963782858, -1060},
	{18408377700990114895, -1034},
	{13715310171984221708, -1007},
	{10218702384817765436, -980},
	{15227053142812498563, -954},
	{11345038669416679861, -927},
	{16905424996341287883, -901},
	{12595523146049147757, -874},
	{9384396036005875287, -847},
	{13983839803942852151, -821},
	{10418772551374772303, -794},
	{15525180923007089351, -768},
	{11567161174868858868, -741},
	{17236413322193710309, -715},
	{12842128665889583758, -688},
	{9568131466127621947, -661},
	{14257626930069360058, -635},
	{10622759856335341974, -608},
	{15829145694278690180, -582},
	{11793632577567316726, -555},
	{17573882009934360870, -529},
	{13093562431584567480, -502},
	{9755464219737475723, -475},
	{14536774485912137811, -449},
	{10830740992659433045, -422},
	{16139061738043178685, -396},
	{12024538023802026127, -369},
	{17917957937422433684, -343},
	{13349918974505688015, -316},
	{9946464728195732843, -289},
	{14821387422376473014, -263},
	{11042794154864902060, -236},
	{16455045573212060422, -210},
	{12259964326927110867, -183},
	{18268770466636286478, -157},
	{13611294676837538539, -130},
	{10141204801825835212, -103},
	{15111572745182864684, -77},
	{11258999068426240000, -50},
	{16777216000000000000, -24},
	{12500000000000000000, 3},
	{9313225746154785156, 30},
	{13877787807814456755, 56},
	{10339757656912845936, 83},
	{15407439555097886824, 109},
	{11479437019748901445, 136},
	{17105694144590052135, 162},
	{12744735289059618216, 189},
	{9495567745759798747, 216},
	{14149498560666738074, 242},
	{10542197943230523224, 269},
	{15709099088952724970, 295},
	{11704190886730495818, 322},
	{17440603504673385349, 348},
	{12994262207056124023, 375},
	{9681479787123295682, 402},
	{14426529090290212157, 428},
	{10748601772107342003, 455},
	{16016664761464807395, 481},
	{11933345169920330789, 508},
	{17782069995880619868, 534},
	{13248674568444952270, 561},
	{9871031767461413346, 588},
	{14708983551653345445, 614},
	{10959046745042015199, 641},
	{16330252207878254650, 667},
	{12166986024289022870, 694},
	{18130221999122236476, 720},
	{13508068024458167312, 747},
	{10064294952495520794, 774},
	{14996968138956309548, 800},
	{11173611982879273257, 827},
	{16649979327439178909, 853},
	{12405201291620119593, 880},
	{9242595204427927429, 907},
	{13772540099066387757, 933},
	{10261342003245940623, 960},
	{15290591125556738113, 986},
	{11392378155556871081, 1013},
	{16975966327722178521, 1039},
	{12648080533535911531, 1066},
}
