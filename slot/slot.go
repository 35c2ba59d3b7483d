// Package slot computes Redis Cluster hash slots (CRC16-XMODEM of the key or
// of its hash tag, mod 16384) and checks that the keys a manifest's callers
// bind to one script always share a slot. It does not talk to Redis.
package slot

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
	for i := 0; i < len(key); i++ {
		if key[i] == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j == i+1 {
						return key
					}
					return key[i+1 : j]
				}
			}
			return key
		}
	}
	return key
}

var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC16 is CRC16-XMODEM (polynomial 0x1021, initial value 0, no
// reflection), the checksum Redis Cluster uses.
func CRC16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^s[i]]
	}
	return crc
}
