package keyspace

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// HyperLogLog, a port of redis-server 7.0.15's hyperloglog.c: the value is
// a plain string whose bytes (a 16-byte header, then sparse opcodes or 16384
// dense 6-bit registers) are what GET answers, so every byte follows Redis.

const (
	hllP            = 14
	hllQ            = 64 - hllP
	hllRegisters    = 1 << hllP
	hllPMask        = hllRegisters - 1
	hllBits         = 6
	hllRegisterMax  = 1<<hllBits - 1
	hllHdrSize      = 16
	hllDenseSize    = hllHdrSize + (hllRegisters*hllBits+7)/8
	hllDense        = 0
	hllSparse       = 1
	hllMaxEncoding  = 1
	hllSparseValMax = 32
	hllSparseValLen = 4
	hllZeroMaxLen   = 64
	hllXZeroMaxLen  = 16384
	hllAlphaInf     = 0.721347520444481703680
	// hllSparseMaxBytes is redis.conf's default hll-sparse-max-bytes.
	hllSparseMaxBytes = 3000
)

var (
	errHLLInvalid = ErrorReply("INVALIDOBJ Corrupted HLL object detected")
	errHLLType    = ErrorReply("WRONGTYPE Key is not a valid HyperLogLog string value.")
)

// murmurHash64A is Redis's endian-neutral MurmurHash2, 64-bit version.
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	n := len(key)
	h := seed ^ (uint64(n) * m)
	for len(key) >= 8 {
		k := binary.LittleEndian.Uint64(key)
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
		key = key[8:]
	}
	if len(key) > 0 {
		for i := len(key) - 1; i >= 0; i-- {
			h ^= uint64(key[i]) << (8 * uint(i))
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// hllPatLen is the register an element hashes to and the length of its
// 000..1 pattern (1..Q+1).
func hllPatLen(ele []byte) (index int, count uint8) {
	hash := murmurHash64A(ele, 0xadc83b19)
	index = int(hash & hllPMask)
	hash >>= hllP
	hash |= 1 << hllQ
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}

// Dense registers: 6 bits each, packed from the LSB of each byte. A
// register may straddle two bytes; the last one ends exactly at the end of
// regs (Redis reads one byte further, the sds terminator, which is 0).
func denseGet(regs []byte, i int) uint8 {
	byt := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	b0 := uint(regs[byt])
	var b1 uint
	if byt+1 < len(regs) {
		b1 = uint(regs[byt+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & hllRegisterMax)
}

func denseSet(regs []byte, i int, val uint8) {
	byt := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	v := uint(val)
	regs[byt] &^= byte(hllRegisterMax << fb)
	regs[byt] |= byte(v << fb)
	if byt+1 < len(regs) {
		regs[byt+1] &^= byte(hllRegisterMax >> (8 - fb))
		regs[byt+1] |= byte(v >> (8 - fb))
	}
}

// Sparse opcodes: ZERO 00xxxxxx, XZERO 01xxxxxx xxxxxxxx, VAL 1vvvvvxx.
func spIsZero(b byte) bool    { return b&0xc0 == 0 }
func spIsXZero(b byte) bool   { return b&0xc0 == 0x40 }
func spIsVal(b byte) bool     { return b&0x80 != 0 }
func spZeroLen(b byte) int    { return int(b&0x3f) + 1 }
func spXZeroLen(p []byte) int { return (int(p[0]&0x3f)<<8 | int(p[1])) + 1 }
func spValValue(b byte) int   { return int(b>>2&0x1f) + 1 }
func spValLen(b byte) int     { return int(b&0x3) + 1 }
func spVal(val, n int) byte   { return byte((val-1)<<2|(n-1)) | 0x80 }
func spZero(n int) byte       { return byte(n - 1) }
func spXZero(n int) []byte    { return []byte{byte((n-1)>>8) | 0x40, byte((n - 1) & 0xff)} }

// spXZeroLenAt reads an XZERO at p[i]; a truncated one reads the missing
// byte as the sds terminator, 0.
func spXZeroLenAt(p []byte, i int) int {
	if i+1 < len(p) {
		return spXZeroLen(p[i:])
	}
	return int(p[i]&0x3f)<<8 + 1
}

// hll is an HLL value being worked on: the whole string as bytes.
type hll struct{ b []byte }

func (h *hll) encoding() byte { return h.b[4] }

func (h *hll) invalidateCache() { h.b[15] |= 1 << 7 }

func (h *hll) validCache() bool { return h.b[15]&(1<<7) == 0 }

// newHLL is createHLLObject: a sparse HLL of XZERO opcodes, cache valid at 0.
func newHLL() *hll {
	b := make([]byte, hllHdrSize, hllHdrSize+2)
	copy(b, "HYLL")
	b[4] = hllSparse
	for aux := hllRegisters; aux > 0; {
		n := min(aux, hllXZeroMaxLen)
		b = append(b, spXZero(n)...)
		aux -= n
	}
	return &hll{b: b}
}

// isHLL is isHLLObjectOrReply's check of a string's bytes.
func isHLL(s string) bool {
	if len(s) < hllHdrSize || s[:4] != "HYLL" || s[4] > hllMaxEncoding {
		return false
	}
	return s[4] != hllDense || len(s) == hllDenseSize
}

// toDense is hllSparseToDense; false when the sparse opcodes do not cover
// exactly the 16384 registers.
func (h *hll) toDense() bool {
	if h.encoding() == hllDense {
		return true
	}
	dense := make([]byte, hllDenseSize)
	copy(dense, h.b[:hllHdrSize])
	dense[4] = hllDense
	regs := dense[hllHdrSize:]
	idx := 0
	p := h.b[hllHdrSize:]
	for i := 0; i < len(p); {
		switch {
		case spIsZero(p[i]):
			idx += spZeroLen(p[i])
			i++
		case spIsXZero(p[i]):
			idx += spXZeroLenAt(p, i)
			i += 2
		default:
			n, v := spValLen(p[i]), spValValue(p[i])
			if n+idx > hllRegisters {
				i = len(p) // overflow: stop, reported below
				continue
			}
			for ; n > 0; n-- {
				denseSet(regs, idx, uint8(v))
				idx++
			}
			i++
		}
	}
	if idx != hllRegisters {
		return false
	}
	h.b = dense
	return true
}

// sparseSet is hllSparseSet: 1 when the register grew, 0 when not, -1 for a
// corrupted HLL. It may promote h to dense.
func (h *hll) sparseSet(index int, count uint8) int {
	if count > hllSparseValMax {
		return h.promote(index, count)
	}
	sp := h.b[hllHdrSize:]
	end := len(sp)
	first, span, p, prev := 0, 0, 0, -1
	for p < end {
		oplen := 1
		switch {
		case spIsZero(sp[p]):
			span = spZeroLen(sp[p])
		case spIsVal(sp[p]):
			span = spValLen(sp[p])
		default:
			span = spXZeroLenAt(sp, p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return -1
	}
	isZero, isXZero, isVal := spIsZero(sp[p]), spIsXZero(sp[p]), spIsVal(sp[p])
	var runlen int
	switch {
	case isZero:
		runlen = spZeroLen(sp[p])
	case isXZero:
		runlen = spXZeroLenAt(sp, p)
	default:
		runlen = spValLen(sp[p])
	}
	if isVal {
		if spValValue(sp[p]) >= int(count) {
			return 0
		}
		if runlen == 1 {
			sp[p] = spVal(int(count), 1)
			h.sparseMerge(prev)
			return 1
		}
	}
	if isZero && runlen == 1 {
		sp[p] = spVal(int(count), 1)
		h.sparseMerge(prev)
		return 1
	}
	// General case: split the opcode into up to three.
	var seq []byte
	last := first + span - 1
	if isZero || isXZero {
		seq = appendZeros(seq, index-first)
		seq = append(seq, spVal(int(count), 1))
		seq = appendZeros(seq, last-index)
	} else {
		cur := spValValue(sp[p])
		if index != first {
			seq = append(seq, spVal(cur, index-first))
		}
		seq = append(seq, spVal(int(count), 1))
		if index != last {
			seq = append(seq, spVal(cur, last-index))
		}
	}
	oldlen := 1
	if isXZero {
		oldlen = 2
	}
	if len(seq)-oldlen > 0 && len(h.b)+len(seq)-oldlen > hllSparseMaxBytes {
		return h.promote(index, count)
	}
	at := hllHdrSize + p
	newLen := len(h.b) + len(seq) - oldlen
	nb := make([]byte, 0, len(h.b)+len(seq))
	nb = append(nb, h.b[:at]...)
	nb = append(nb, seq...)
	if rest := at + oldlen; rest < len(h.b) {
		nb = append(nb, h.b[rest:]...)
	}
	// A truncated final XZERO counted the terminator as its second byte:
	// Redis's length then cuts the new sequence's last byte.
	h.b = nb[:min(newLen, len(nb))]
	h.sparseMerge(prev)
	return 1
}

// appendZeros appends the ZERO or XZERO opcode for n registers (none for 0).
func appendZeros(seq []byte, n int) []byte {
	switch {
	case n == 0:
		return seq
	case n > hllZeroMaxLen:
		return append(seq, spXZero(n)...)
	default:
		return append(seq, spZero(n))
	}
}

// sparseMerge is step 4 of hllSparseSet: scanning up to 5 opcodes from
// prev, adjacent VAL opcodes of one value are merged while their lengths
// fit; then the cache is invalidated.
func (h *hll) sparseMerge(prev int) {
	p := hllHdrSize
	if prev >= 0 {
		p += prev
	}
	for scan := 5; p < len(h.b) && scan > 0; scan-- {
		switch {
		case spIsXZero(h.b[p]):
			p += 2
			continue
		case spIsZero(h.b[p]):
			p++
			continue
		}
		if p+1 < len(h.b) && spIsVal(h.b[p+1]) {
			v1, v2 := spValValue(h.b[p]), spValValue(h.b[p+1])
			if n := spValLen(h.b[p]) + spValLen(h.b[p+1]); v1 == v2 && n <= hllSparseValLen {
				h.b[p+1] = spVal(v1, n)
				h.b = append(h.b[:p], h.b[p+1:]...)
				continue // without moving: the merged opcode may merge again
			}
		}
		p++
	}
	h.invalidateCache()
}

// promote converts to dense and sets the register there.
func (h *hll) promote(index int, count uint8) int {
	if !h.toDense() {
		return -1
	}
	denseSet(h.b[hllHdrSize:], index, count)
	return 1
}

// add is hllAdd.
func (h *hll) add(ele []byte) int {
	index, count := hllPatLen(ele)
	switch h.encoding() {
	case hllDense:
		regs := h.b[hllHdrSize:]
		if count > denseGet(regs, index) {
			denseSet(regs, index, count)
			return 1
		}
		return 0
	case hllSparse:
		return h.sparseSet(index, count)
	}
	return -1
}

// histogram counts registers by value; invalid reports a sparse HLL whose
// opcodes do not cover exactly the registers.
func (h *hll) histogram() (hist [64]int, invalid bool) {
	if h.encoding() == hllDense {
		regs := h.b[hllHdrSize:]
		for i := 0; i < hllRegisters; i++ {
			hist[denseGet(regs, i)]++
		}
		return hist, false
	}
	p := h.b[hllHdrSize:]
	idx := 0
	for i := 0; i < len(p); {
		switch {
		case spIsZero(p[i]):
			n := spZeroLen(p[i])
			idx += n
			hist[0] += n
			i++
		case spIsXZero(p[i]):
			n := spXZeroLenAt(p, i)
			idx += n
			hist[0] += n
			i += 2
		default:
			n := spValLen(p[i])
			idx += n
			hist[spValValue(p[i])] += n
			i++
		}
	}
	return hist, idx != hllRegisters
}

// mergeInto is hllMerge: max[i] = MAX(max[i], register i); false for a
// corrupted sparse HLL.
func (h *hll) mergeInto(max []uint8) bool {
	if h.encoding() == hllDense {
		regs := h.b[hllHdrSize:]
		for i := 0; i < hllRegisters; i++ {
			if v := denseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return true
	}
	p := h.b[hllHdrSize:]
	i := 0
	for j := 0; j < len(p); {
		switch {
		case spIsZero(p[j]):
			i += spZeroLen(p[j])
			j++
		case spIsXZero(p[j]):
			i += spXZeroLenAt(p, j)
			j += 2
		default:
			n, v := spValLen(p[j]), uint8(spValValue(p[j]))
			if n+i > hllRegisters {
				return false
			}
			for ; n > 0; n-- {
				if v > max[i] {
					max[i] = v
				}
				i++
			}
			j++
		}
	}
	return i == hllRegisters
}

// hllEstimate is hllCount's estimator (Ertl's improved raw estimator) from
// a register histogram. Products are converted explicitly so that Go never
// fuses them with the following addition: C computes each step rounded.
func hllEstimate(hist *[64]int) uint64 {
	m := float64(hllRegisters)
	z := float64(m * hllTau((m-float64(hist[hllQ+1]))/m))
	for j := hllQ; j >= 1; j-- {
		z += float64(hist[j])
		z *= 0.5
	}
	z += float64(m * hllSigma(float64(hist[0])/m))
	return llroundToUint(float64(hllAlphaInf*m*m) / z)
}

// llroundToUint is (uint64_t)(double)llroundl(x) on x86-64: a result out of
// range (a crafted dense HLL can make z zero, x infinite) is LLONG_MIN,
// which the cast keeps as 2^63.
func llroundToUint(x float64) uint64 {
	r := math.Round(x)
	if !(r >= -9223372036854775808.0 && r < 9223372036854775808.0) {
		r = -9223372036854775808.0
	}
	return cnum.ULong(r)
}

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zPrime := z
		z += float64(x * y)
		y += y
		if zPrime == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if zPrime == z {
			return z / 3
		}
	}
}

// count is the cardinality of one HLL; false when it is corrupted.
func (h *hll) count() (uint64, bool) {
	hist, invalid := h.histogram()
	if invalid {
		return 0, false
	}
	return hllEstimate(&hist), true
}

// cachedCount reads the header's cached cardinality.
func (h *hll) cachedCount() uint64 { return binary.LittleEndian.Uint64(h.b[8:16]) }

func (h *hll) setCachedCount(n uint64) { binary.LittleEndian.PutUint64(h.b[8:16], n) }
