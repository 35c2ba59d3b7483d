package lua51

import (
	"encoding/binary"
	"math"
)

// StringHash is the function a server's Lua computes a string's hash with.
type StringHash uint8

const (
	// HashLua51All is Lua 5.1's luaS_newlstr hash over every byte, as
	// Redis (since 7.0) and Valkey up to 8.0 build it.
	HashLua51All StringHash = iota
	// HashMurmur3 is MurmurHash3 (32-bit) seeded with the length, as
	// Valkey 8.1 and later build it.
	HashMurmur3
)

// Hash returns the hash of s that the server's Lua stores with the string.
func (h StringHash) Hash(s string) uint32 {
	if h == HashMurmur3 {
		return murmur32(s, uint32(len(s)))
	}
	v := uint32(len(s))
	for i := len(s); i >= 1; i-- {
		v ^= (v << 5) + (v >> 2) + uint32(s[i-1])
	}
	return v
}

// murmur32 is MurmurHash3's 32-bit function reading its blocks as
// little-endian words, as an x86-64 build of Valkey does.
func murmur32(s string, seed uint32) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := seed
	n := len(s) / 4
	for i := 0; i < n; i++ {
		k := binary.LittleEndian.Uint32([]byte(s[4*i : 4*i+4]))
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
		h = (h<<13|h>>19)*5 + 0xe6546b64
	}
	tail := s[4*n:]
	var k1 uint32
	switch len(tail) {
	case 3:
		k1 ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k1 ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k1 ^= uint32(tail[0])
		k1 *= c1
		k1 = k1<<15 | k1>>17
		k1 *= c2
		h ^= k1
	}
	h ^= uint32(len(s))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// numHash is hashnum's sum of the two 32-bit halves of the double (the low
// word first, as on x86-64); 0 and -0 are handled by the caller.
func numHash(n float64) uint32 {
	b := math.Float64bits(n)
	return uint32(b) + uint32(b>>32)
}

// number2int is lua_number2int on x86-64: a truncating cast whose result
// for a value out of int's range is INT_MIN (cvttsd2si).
func number2int(n float64) int32 {
	if n != n || n >= 2147483648 || n <= -2147483649 {
		return math.MinInt32
	}
	return int32(n)
}
