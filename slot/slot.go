// Package slot computes Redis Cluster hash slots (CRC16-XMODEM of the key or
// of its hash tag, mod 16384) and checks that the keys a manifest's callers
// bind to one script always share a slot. It does not talk to Redis.
package slot

import (
	"strings"

	"github.com/scriptctl/scriptctl/internal/lazy"
)

// Count is the number of hash slots in a Redis Cluster.
const Count = 16384

// Of returns the hash slot of key.
func Of(key string) int {
	return int(CRC16(HashTag(key)) % Count)
}

// HashTag returns the part of key that Redis hashes: the substring between
// the first '{' and the first '}' after it when that substring is not empty,
// else the whole key.
func HashTag(key string) string {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return key
	}
	j := strings.IndexByte(key[i+1:], '}')
	if j <= 0 {
		return key
	}
	return key[i+1 : i+1+j]
}

// crcTables returns the CRC16 tables, built on first use: [k][b] is the
// CRC16 of byte b followed by k zero bytes; row 0 is the classic
// byte-at-a-time table. The rows let CRC16 fold eight bytes per step
// (slicing-by-8).
var crcTables = lazy.Value[*[8][256]uint16]{New: func() *[8][256]uint16 {
	var t [8][256]uint16
	for i := range t[0] {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			p := t[k-1][i]
			t[k][i] = p<<8 ^ t[0][p>>8]
		}
	}
	return &t
}}

// CRC16 is CRC16-XMODEM (polynomial 0x1021, initial value 0, no
// reflection), the checksum Redis Cluster uses.
func CRC16(s string) uint16 {
	var crc uint16
	t := crcTables.Get()
	for len(s) >= 8 {
		crc = t[7][byte(crc>>8)^s[0]] ^ t[6][byte(crc)^s[1]] ^
			t[5][s[2]] ^ t[4][s[3]] ^ t[3][s[4]] ^ t[2][s[5]] ^ t[1][s[6]] ^ t[0][s[7]]
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		crc = crc<<8 ^ t[0][byte(crc>>8)^s[i]]
	}
	return crc
}
