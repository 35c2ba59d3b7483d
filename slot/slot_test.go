package slot

import (
	"fmt"
	"strings"
	"testing"
)

// refCRC16 is CRC16-XMODEM computed bit by bit, straight from the
// definition (polynomial 0x1021, initial value 0, MSB first), independent of
// the table CRC16 uses.
func refCRC16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		for i := 7; i >= 0; i-- {
			bit := (c>>uint(i))&1 == 1
			top := crc&0x8000 != 0
			crc <<= 1
			if top != bit {
				crc ^= 0x1021
			}
		}
	}
	return crc
}

// refSlot is the cluster specification's keyHashSlot, transcribed loop for
// loop: find the first '{'; if none, hash the key; find the first '}' after
// it; if none or nothing in between, hash the key; else hash what is
// between.
func refSlot(key []byte) int {
	s := -1
	for i := range key {
		if key[i] == '{' {
			s = i
			break
		}
	}
	if s == -1 {
		return int(refCRC16(key) & 0x3FFF)
	}
	e := -1
	for i := s + 1; i < len(key); i++ {
		if key[i] == '}' {
			e = i
			break
		}
	}
	if e == -1 || e == s+1 {
		return int(refCRC16(key) & 0x3FFF)
	}
	return int(refCRC16(key[s+1:e]) & 0x3FFF)
}

func TestCRC16Vector(t *testing.T) {
	if got := CRC16("123456789"); got != 0x31C3 {
		t.Fatalf(`CRC16("123456789") = %#04x, want 0x31c3`, got)
	}
	if got := refCRC16([]byte("123456789")); got != 0x31C3 {
		t.Fatalf(`refCRC16("123456789") = %#04x, want 0x31c3`, got)
	}
	if got := CRC16(""); got != 0 {
		t.Fatalf(`CRC16("") = %#04x, want 0`, got)
	}
}

func TestOf(t *testing.T) {
	tests := []struct {
		key  string
		want int
	}{
		// Published vectors (redis.io cluster spec and CLUSTER KEYSLOT).
		{"foo", 12182},
		{"bar", 5061},
		{"somekey", 11058},
		{"foo{hash_tag}", 2515},
		{"{user1000}.following", 3443},
		{"foo{{bar}}zap", 4015},
		{"", 0},
	}
	for _, tt := range tests {
		if got := Of(tt.key); got != tt.want {
			t.Errorf("Of(%q) = %d, want %d", tt.key, got, tt.want)
		}
		if got := refSlot([]byte(tt.key)); got != tt.want {
			t.Errorf("refSlot(%q) = %d, want %d", tt.key, got, tt.want)
		}
	}
}

func TestHashTag(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{"foo", "foo"},
		{"{user1000}.following", "user1000"},
		{"{user1000}.followers", "user1000"},
		{"foo{}{bar}", "foo{}{bar}"}, // empty first tag: whole key, the second pair is not looked at
		{"foo{{bar}}zap", "{bar"},    // the tag starts after the first '{'
		{"foo{bar}{zap}", "bar"},     // only the first pair counts
		{"{}", "{}"},                 // empty tag
		{"{", "{"},                   // no closing brace
		{"}", "}"},                   // no opening brace
		{"}{a}", "a"},                // a '}' before the first '{' is ignored
		{"a{b", "a{b"},               // unclosed
		{"a{b{c}", "b{c"},            // a second '{' is part of the tag
		{"{a}}", "a"},                // the first '}' ends it
		{"x{\x00\xff}y", "\x00\xff"}, // bytes, not runes
		{"{é}", "é"},                 // multi-byte UTF-8 is hashed as its bytes
		{"catalog:{product-42}:lease", "product-42"},
	}
	for _, tt := range tests {
		if got := HashTag(tt.key); got != tt.want {
			t.Errorf("HashTag(%q) = %q, want %q", tt.key, got, tt.want)
		}
		if got, want := Of(tt.key), refSlot([]byte(tt.key)); got != want {
			t.Errorf("Of(%q) = %d, reference %d", tt.key, got, want)
		}
	}
	// Keys with the same tag share a slot.
	if Of("catalog:{product-42}:lease") != Of("catalog:{product-42}:value") {
		t.Error("keys with the same hash tag are in different slots")
	}
	if Of("{}a") == Of("{}b") {
		t.Error(`"{}a" and "{}b" share a slot: an empty tag must hash the whole key`)
	}
}

func TestLookupKeys(t *testing.T) {
	l := LookupKeys([]string{"foo", "{foo}x", "bar", "x{foo}"})
	if l.Same || len(l.Keys) != 4 || l.FormatVersion != "1" {
		t.Fatalf("lookup: %+v", l)
	}
	if k := l.Keys[1]; k.Key != "{foo}x" || k.Slot != 12182 || k.Hashed != "foo" {
		t.Errorf("key 1: %+v", k)
	}
	got := fmt.Sprint(l.Groups())
	if want := "[{12182 [foo {foo}x x{foo}]} {5061 [bar]}]"; got != want {
		t.Errorf("groups %s, want %s", got, want)
	}
	if !LookupKeys([]string{"{a}1", "{a}2"}).Same || !LookupKeys(nil).Same {
		t.Error("keys of one slot (or none) are not Same")
	}
}

func TestOfAllocs(t *testing.T) {
	keys := []string{"foo", "catalog:{product-42}:lease", strings.Repeat("k", 256), "{}x", "x{"}
	for _, k := range keys {
		if n := testing.AllocsPerRun(100, func() { _ = Of(k) }); n != 0 {
			t.Errorf("Of(%q) allocates %v times, want 0", k, n)
		}
	}
}

// FuzzSlot checks Of against the reference implementation, and the hash-tag
// invariants, on arbitrary bytes.
func FuzzSlot(f *testing.F) {
	for _, s := range []string{"foo", "foo{hash_tag}", "{user1000}.following", "foo{{bar}}zap", "foo{}{bar}", "{", "}", "{}", "", "\xff{\x00}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got := Of(key)
		if got < 0 || got >= Count {
			t.Fatalf("Of(%q) = %d, out of range", key, got)
		}
		if want := refSlot([]byte(key)); got != want {
			t.Fatalf("Of(%q) = %d, reference %d", key, got, want)
		}
		if c, r := CRC16(key), refCRC16([]byte(key)); c != r {
			t.Fatalf("CRC16(%q) = %#04x, reference %#04x", key, c, r)
		}
		tag := HashTag(key)
		if tag == key {
			return
		}
		// A tag is non-empty, holds no '}', and sits right after the
		// key's first '{'.
		if tag == "" || strings.Contains(tag, "}") {
			t.Fatalf("HashTag(%q) = %q: empty or holds '}'", key, tag)
		}
		i := strings.IndexByte(key, '{')
		if !strings.HasPrefix(key[i:], "{"+tag+"}") {
			t.Fatalf("HashTag(%q) = %q does not follow the first '{'", key, tag)
		}
		// Any key with the same tag lands in the same slot.
		if other := "prefix{" + tag + "}suffix"; Of(other) != got {
			t.Fatalf("Of(%q) = %d, Of(%q) = %d: same tag, different slots", key, got, other, Of(other))
		}
	})
}

var sink int

// BenchmarkSlot measures Of on keys of 16 and 256 bytes, without and with a
// hash tag; MB/s counts the key's bytes.
func BenchmarkSlot(b *testing.B) {
	cases := []struct {
		name string
		key  string
	}{
		{"16B", "catalog:product1"},
		{"16B-tagged", "c:{product-42}:v"},
		{"256B", strings.Repeat("catalog:product:", 16)},
		{"256B-tagged", "{catalog:product:42}" + strings.Repeat("x", 236)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.key)))
			b.ReportAllocs()
			for b.Loop() {
				sink = Of(c.key)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/key")
		})
	}
}
