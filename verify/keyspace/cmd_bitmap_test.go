package keyspace

import "testing"

func TestBitmapCommands(t *testing.T) {
	hs := []string{"HSET", "k", "f", "v"}
	foobar := []string{"SET", "k", "foobar"}
	ints := func(ns ...int64) Reply {
		out := make([]Reply, len(ns))
		for i, n := range ns {
			out[i] = IntReply(n)
		}
		return ArrayReply(out...)
	}
	errType := ErrorReply("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
	runCmdCases(t, []cmdCase{
		{name: "setbit new", cmd: a("SETBIT", "k", "7", "1"), want: IntReply(0), keys: map[string]*Entry{"k": str("\x01", -1)}},
		{name: "setbit old bit", setup: [][]string{{"SET", "k", "\x80"}}, cmd: a("SETBIT", "k", "0", "0"), want: IntReply(1), keys: map[string]*Entry{"k": str("\x00", -1)}},
		{name: "setbit grows", setup: [][]string{{"SET", "k", "A"}}, cmd: a("SETBIT", "k", "17", "1"), want: IntReply(0), keys: map[string]*Entry{"k": str("A\x00\x40", -1)}},
		{name: "setbit keeps ttl", setup: [][]string{{"SET", "k", "a", "PX", "500"}}, cmd: a("SETBIT", "k", "0", "1"), want: IntReply(0), keys: map[string]*Entry{"k": str("\xe1", 500)}},
		{name: "setbit bad bit", cmd: a("SETBIT", "k", "0", "2"), want: ErrorReply("ERR bit is not an integer or out of range"), keys: map[string]*Entry{"k": gone()}},
		{name: "setbit bad offset first", setup: [][]string{hs}, cmd: a("SETBIT", "k", "-1", "5"), want: errBitOffset},
		{name: "setbit offset limit", cmd: a("SETBIT", "k", "4294967296", "1"), want: errBitOffset},
		{name: "setbit hash offset refused", cmd: a("SETBIT", "k", "#1", "1"), want: errBitOffset},
		{name: "setbit wrongtype", setup: [][]string{hs}, cmd: a("SETBIT", "k", "0", "1"), want: errWrongType},
		{name: "getbit", setup: [][]string{{"SET", "k", "a"}}, cmd: a("GETBIT", "k", "1"), want: IntReply(1)},
		{name: "getbit past end", setup: [][]string{{"SET", "k", "a"}}, cmd: a("GETBIT", "k", "100"), want: IntReply(0)},
		{name: "getbit missing", cmd: a("GETBIT", "k", "0"), want: IntReply(0)},
		{name: "getbit offset before type", setup: [][]string{hs}, cmd: a("GETBIT", "k", "x"), want: errBitOffset},
		{name: "getbit wrongtype", setup: [][]string{hs}, cmd: a("GETBIT", "k", "0"), want: errWrongType},
		{name: "bitcount", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k"), want: IntReply(26)},
		{name: "bitcount bytes", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k", "1", "1"), want: IntReply(6)},
		{name: "bitcount bits", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k", "5", "30", "BIT"), want: IntReply(17)},
		{name: "bitcount negative bits", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k", "-5", "-2", "bit"), want: IntReply(2)},
		{name: "bitcount reversed negatives before unit", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k", "-1", "-2", "junk"), want: IntReply(0)},
		{name: "bitcount bad unit", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k", "0", "1", "junk"), want: errSyntax},
		{name: "bitcount one index", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k", "0"), want: errSyntax},
		{name: "bitcount missing skips parsing", cmd: a("BITCOUNT", "k", "x"), want: IntReply(0)},
		{name: "bitcount not int", setup: [][]string{foobar}, cmd: a("BITCOUNT", "k", "x", "1"), want: errNotInt},
		{name: "bitcount wrongtype", setup: [][]string{hs}, cmd: a("BITCOUNT", "k"), want: errWrongType},
		{name: "bitpos one", setup: [][]string{{"SET", "k", "\xff\xf0\x00"}}, cmd: a("BITPOS", "k", "0"), want: IntReply(12)},
		{name: "bitpos start", setup: [][]string{{"SET", "k", "\x00\xff\xf0"}}, cmd: a("BITPOS", "k", "1", "2"), want: IntReply(16)},
		{name: "bitpos zero past end", setup: [][]string{{"SET", "k", "\xff\xff"}}, cmd: a("BITPOS", "k", "0"), want: IntReply(16)},
		{name: "bitpos zero with end", setup: [][]string{{"SET", "k", "\xff\xff"}}, cmd: a("BITPOS", "k", "0", "0", "-1"), want: IntReply(-1)},
		{name: "bitpos no one", setup: [][]string{{"SET", "k", "\x00\x00"}}, cmd: a("BITPOS", "k", "1"), want: IntReply(-1)},
		{name: "bitpos bit range", setup: [][]string{{"SET", "k", "\x00\x01\x80"}}, cmd: a("BITPOS", "k", "1", "7", "15", "BIT"), want: IntReply(15)},
		{name: "bitpos bit range next byte", setup: [][]string{{"SET", "k", "\x00\x01\x80"}}, cmd: a("BITPOS", "k", "1", "16", "20", "BIT"), want: IntReply(16)},
		{name: "bitpos bit range none", setup: [][]string{{"SET", "k", "\x00\x01\x80"}}, cmd: a("BITPOS", "k", "1", "17", "23", "BIT"), want: IntReply(-1)},
		{name: "bitpos empty range", setup: [][]string{foobar}, cmd: a("BITPOS", "k", "1", "5", "2"), want: IntReply(-1)},
		{name: "bitpos missing", cmd: a("BITPOS", "k", "0"), want: IntReply(0)},
		{name: "bitpos missing one", cmd: a("BITPOS", "k", "1", "x"), want: IntReply(-1)},
		{name: "bitpos bad bit", cmd: a("BITPOS", "k", "2"), want: ErrorReply("ERR The bit argument must be 1 or 0.")},
		{name: "bitpos bad unit", setup: [][]string{foobar}, cmd: a("BITPOS", "k", "1", "0", "1", "x"), want: errSyntax},
		{name: "bitpos wrongtype", setup: [][]string{hs}, cmd: a("BITPOS", "k", "1"), want: errWrongType},
		{name: "bitop and", setup: [][]string{{"SET", "a", "abc"}, {"SET", "b", "\xff\x0f"}}, cmd: a("BITOP", "AND", "d", "a", "b"), want: IntReply(3), keys: map[string]*Entry{"d": str("a\x02\x00", -1)}},
		{name: "bitop or", setup: [][]string{{"SET", "a", "\x01"}, {"SET", "b", "\x02\x04"}}, cmd: a("BITOP", "OR", "d", "a", "b"), want: IntReply(2), keys: map[string]*Entry{"d": str("\x03\x04", -1)}},
		{name: "bitop xor", setup: [][]string{{"SET", "a", "\x0f"}, {"SET", "b", "\xff"}}, cmd: a("BITOP", "xor", "d", "a", "b", "a"), want: IntReply(1), keys: map[string]*Entry{"d": str("\xff", -1)}},
		{name: "bitop not", setup: [][]string{{"SET", "a", "\x0f"}, {"SET", "d", "x", "PX", "500"}}, cmd: a("BITOP", "NOT", "d", "a"), want: IntReply(1), keys: map[string]*Entry{"d": str("\xf0", -1)}},
		{name: "bitop empty deletes", setup: [][]string{{"SET", "d", "x"}}, cmd: a("BITOP", "OR", "d", "a", "b"), want: IntReply(0), keys: map[string]*Entry{"d": gone()}},
		{name: "bitop not two", cmd: a("BITOP", "NOT", "d", "a", "b"), want: ErrorReply("ERR BITOP NOT must be called with a single source key.")},
		{name: "bitop bad op", cmd: a("BITOP", "NAND", "d", "a"), want: errSyntax},
		{name: "bitop wrongtype", setup: [][]string{{"SET", "a", "x"}, {"HSET", "b", "f", "v"}}, cmd: a("BITOP", "AND", "d", "a", "b"), want: errWrongType, keys: map[string]*Entry{"d": gone()}},
		{name: "bitfield get", setup: [][]string{{"SET", "k", "\xc3\xa9"}}, cmd: a("BITFIELD", "k", "GET", "u8", "0", "GET", "i8", "0", "GET", "u4", "4", "GET", "i16", "#0", "GET", "u8", "12"), want: ints(195, -61, 3, -15447, 144)},
		{name: "bitfield get missing", cmd: a("BITFIELD", "k", "GET", "u8", "0"), want: ints(0), keys: map[string]*Entry{"k": gone()}},
		{name: "bitfield set", cmd: a("BITFIELD", "k", "SET", "i8", "0", "-1", "SET", "u4", "#2", "5", "GET", "u16", "0"), want: ints(0, 0, 65360), keys: map[string]*Entry{"k": str("\xff\x50", -1)}},
		{name: "bitfield incrby wrap", setup: [][]string{{"SET", "k", "\x7f"}}, cmd: a("BITFIELD", "k", "INCRBY", "i8", "0", "1", "INCRBY", "u2", "0", "7"), want: ints(-128, 1)},
		{name: "bitfield sat", cmd: a("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300", "INCRBY", "i8", "8", "-300", "SET", "u4", "16", "-1"), want: ints(255, -128, 0), keys: map[string]*Entry{"k": str("\xff\x80\xf0", -1)}},
		{name: "bitfield fail", cmd: a("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "4", "SET", "i4", "0", "7", "SET", "i4", "0", "8"), want: ArrayReply(NilReply(), IntReply(0), NilReply()), keys: map[string]*Entry{"k": str("\x70", -1)}},
		{name: "bitfield i64", cmd: a("BITFIELD", "k", "SET", "i64", "0", "9223372036854775807", "INCRBY", "i64", "0", "1", "OVERFLOW", "SAT", "INCRBY", "i64", "0", "-1"), want: ints(0, -9223372036854775808, -9223372036854775808)},
		{name: "bitfield empty", cmd: a("BITFIELD", "k"), want: ArrayReply(), keys: map[string]*Entry{"k": gone()}},
		{name: "bitfield u64", cmd: a("BITFIELD", "k", "GET", "u64", "0"), want: errType},
		{name: "bitfield i0", cmd: a("BITFIELD", "k", "GET", "i0", "0"), want: errType},
		{name: "bitfield bad overflow", cmd: a("BITFIELD", "k", "OVERFLOW", "X"), want: ErrorReply("ERR Invalid OVERFLOW type specified")},
		{name: "bitfield bad offset", cmd: a("BITFIELD", "k", "GET", "u8", "#-1"), want: errBitOffset},
		{name: "bitfield hash offset limit", cmd: a("BITFIELD", "k", "GET", "u8", "#536870912"), want: errBitOffset},
		{name: "bitfield bad value", cmd: a("BITFIELD", "k", "SET", "u8", "0", "1.5"), want: errNotInt, keys: map[string]*Entry{"k": gone()}},
		{name: "bitfield short", cmd: a("BITFIELD", "k", "SET", "u8", "0"), want: errSyntax},
		{name: "bitfield parse before write", cmd: a("BITFIELD", "k", "SET", "u8", "0", "1", "GET", "x", "0"), want: errType, keys: map[string]*Entry{"k": gone()}},
		{name: "bitfield wrongtype", setup: [][]string{hs}, cmd: a("BITFIELD", "k", "GET", "u8", "0"), want: errWrongType},
		{name: "bitfield_ro", setup: [][]string{{"SET", "k", "\xc3"}}, cmd: a("BITFIELD_RO", "k", "GET", "u8", "0"), want: ints(195)},
		{name: "bitfield_ro write", setup: [][]string{hs}, cmd: a("BITFIELD_RO", "k", "SET", "u8", "0", "1"), want: ErrorReply("ERR BITFIELD_RO only supports the GET subcommand")},
	})
}

func TestBitfieldOverflow(t *testing.T) {
	for _, tc := range []struct {
		value, incr int64
		bits, mode  int
		limit       int64
		over        bool
	}{
		{127, 1, 8, bfWrap, -128, true},
		{127, 1, 8, bfSat, 127, true},
		{-128, -1, 8, bfSat, -128, true},
		{-128, -1, 8, bfWrap, 127, true},
		{5, 1, 8, bfSat, 0, false},
		{math64Max, 1, 64, bfWrap, math64Min, true},
		{math64Min, -1, 64, bfSat, math64Min, true},
		{0, math64Max, 64, bfSat, 0, false},
	} {
		limit, over := signedOverflow(tc.value, tc.incr, tc.bits, tc.mode)
		if over != tc.over || (over && limit != tc.limit) {
			t.Errorf("signedOverflow(%d, %d, %d, %d) = %d, %v; want %d, %v", tc.value, tc.incr, tc.bits, tc.mode, limit, over, tc.limit, tc.over)
		}
	}
	for _, tc := range []struct {
		value      uint64
		incr       int64
		bits, mode int
		limit      uint64
		over       bool
	}{
		{255, 1, 8, bfWrap, 0, true},
		{255, 1, 8, bfSat, 255, true},
		{0, -1, 8, bfSat, 0, true},
		{0, -1, 8, bfWrap, 255, true},
		{1<<64 - 1, 0, 8, bfSat, 255, true}, // SET u8 -1 with SAT
		{3, -3, 2, bfWrap, 0, false},
	} {
		limit, over := unsignedOverflow(tc.value, tc.incr, tc.bits, tc.mode)
		if over != tc.over || (over && limit != tc.limit) {
			t.Errorf("unsignedOverflow(%d, %d, %d, %d) = %d, %v; want %d, %v", tc.value, tc.incr, tc.bits, tc.mode, limit, over, tc.limit, tc.over)
		}
	}
}

const (
	math64Max = int64(1<<63 - 1)
	math64Min = -1 << 63
)
