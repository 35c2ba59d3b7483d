package keyspace

import (
	"context"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/testtier"
)

func TestStringCommands(t *testing.T) {
	old := []string{"SET", "k", "old", "PX", "5000"}
	runCmdCases(t, []cmdCase{
		{name: "set", cmd: a("SET", "k", "v"), want: okReply, keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "set px", cmd: a("SET", "k", "v", "PX", "1500"), want: okReply, keys: map[string]*Entry{"k": str("v", 1500)}},
		{name: "set ex", cmd: a("SET", "k", "v", "ex", "2"), want: okReply, keys: map[string]*Entry{"k": str("v", 2000)}},
		{name: "set pxat", cmd: a("SET", "k", "v", "PXAT", "1000300"), want: okReply, keys: map[string]*Entry{"k": str("v", 300)}},
		{name: "set exat", cmd: a("SET", "k", "v", "EXAT", "1003"), want: okReply, keys: map[string]*Entry{"k": str("v", 3000)}},
		{name: "set pxat now", cmd: a("SET", "k", "v", "PXAT", "1000000"), want: okReply, keys: map[string]*Entry{"k": gone()}},
		{name: "set px 0", cmd: a("SET", "k", "v", "PX", "0"), want: errExpire("set"), keys: map[string]*Entry{"k": gone()}},
		{name: "set px -1", setup: [][]string{old}, cmd: a("SET", "k", "v", "PX", "-1"), want: errExpire("set"), keys: map[string]*Entry{"k": str("old", 5000)}},
		{name: "set px abc", cmd: a("SET", "k", "v", "PX", "abc"), want: errNotInt, keys: map[string]*Entry{"k": gone()}},
		{name: "set px 1.5", cmd: a("SET", "k", "v", "PX", "1.5"), want: errNotInt},
		{name: "set px 1e3", cmd: a("SET", "k", "v", "PX", "1e3"), want: errNotInt},
		{name: "set px +5", cmd: a("SET", "k", "v", "PX", "+5"), want: errNotInt},
		{name: "set px 05", cmd: a("SET", "k", "v", "PX", "05"), want: errNotInt},
		{name: "set ex overflow", cmd: a("SET", "k", "v", "EX", "9223372036854775"), want: errExpire("set")},
		{name: "set nx xx", cmd: a("SET", "k", "v", "NX", "XX"), want: errSyntax},
		{name: "set px missing", cmd: a("SET", "k", "v", "PX"), want: errSyntax},
		{name: "set keepttl px", cmd: a("SET", "k", "v", "KEEPTTL", "PX", "5"), want: errSyntax},
		{name: "set nx exists", setup: [][]string{old}, cmd: a("SET", "k", "v", "NX"), want: NilReply(), keys: map[string]*Entry{"k": str("old", 5000)}},
		{name: "set nx expired", setup: [][]string{old}, advance: 5001, cmd: a("SET", "k", "v", "NX"), want: okReply, keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "set xx missing", cmd: a("SET", "k", "v", "XX"), want: NilReply(), keys: map[string]*Entry{"k": gone()}},
		{name: "set xx keeps nothing", setup: [][]string{old}, cmd: a("SET", "k", "v", "XX"), want: okReply, keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "set keepttl", setup: [][]string{old}, advance: 1000, cmd: a("SET", "k", "v", "KEEPTTL"), want: okReply, keys: map[string]*Entry{"k": str("v", 4000)}},
		{name: "set get", setup: [][]string{old}, cmd: a("SET", "k", "v", "GET"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "set nx get exists", setup: [][]string{old}, cmd: a("SET", "k", "v", "NX", "GET"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("old", 5000)}},
		{name: "set get wrongtype", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("SET", "k", "v", "GET"), want: errWrongType, keys: map[string]*Entry{"k": hsh(-1, "f", "v")}},
		{name: "set over hash", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("SET", "k", "v"), want: okReply, keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "setnx", cmd: a("SETNX", "k", "v"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "setnx exists", setup: [][]string{old}, cmd: a("SETNX", "k", "v"), want: IntReply(0), keys: map[string]*Entry{"k": str("old", 5000)}},
		{name: "setex", cmd: a("SETEX", "k", "3", "v"), want: okReply, keys: map[string]*Entry{"k": str("v", 3000)}},
		{name: "setex 0", cmd: a("SETEX", "k", "0", "v"), want: errExpire("setex")},
		{name: "psetex", cmd: a("PSETEX", "k", "30", "v"), want: okReply, keys: map[string]*Entry{"k": str("v", 30)}},
		{name: "psetex -1", cmd: a("PSETEX", "k", "-1", "v"), want: errExpire("psetex")},
		{name: "getdel", setup: [][]string{old}, cmd: a("GETDEL", "k"), want: BulkReply("old"), keys: map[string]*Entry{"k": gone()}},
		{name: "getdel missing", cmd: a("GETDEL", "k"), want: NilReply()},
		{name: "getex px", setup: [][]string{old}, cmd: a("GETEX", "k", "PX", "10"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("old", 10)}},
		{name: "getex persist", setup: [][]string{old}, cmd: a("GETEX", "k", "PERSIST"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("old", -1)}},
		{name: "getex plain", setup: [][]string{old}, cmd: a("GETEX", "k"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("old", 5000)}},
		{name: "getex pxat past", setup: [][]string{old}, cmd: a("GETEX", "k", "PXAT", "5"), want: BulkReply("old"), keys: map[string]*Entry{"k": gone()}},
		{name: "getex ex 0", setup: [][]string{old}, cmd: a("GETEX", "k", "EX", "0"), want: errExpire("getex"), keys: map[string]*Entry{"k": str("old", 5000)}},
		{name: "getex keepttl", setup: [][]string{old}, cmd: a("GETEX", "k", "KEEPTTL"), want: errSyntax},
		{name: "mget", setup: [][]string{{"SET", "a", "1"}, {"HSET", "h", "f", "v"}}, cmd: a("MGET", "a", "h", "x"), want: ArrayReply(BulkReply("1"), NilReply(), NilReply())},
		{name: "mset", setup: [][]string{old}, cmd: a("MSET", "k", "1", "b", "2"), want: okReply, keys: map[string]*Entry{"k": str("1", -1), "b": str("2", -1)}},
		{name: "mset odd", cmd: a("MSET", "k", "1", "b"), want: errArity("mset"), keys: map[string]*Entry{"k": gone()}},
		{name: "incr new", cmd: a("INCR", "k"), want: IntReply(1), keys: map[string]*Entry{"k": str("1", -1)}},
		{name: "incr keeps ttl", setup: [][]string{{"SET", "k", "41", "PX", "100"}}, cmd: a("INCR", "k"), want: IntReply(42), keys: map[string]*Entry{"k": str("42", 100)}},
		{name: "incrby", setup: [][]string{{"SET", "k", "-5"}}, cmd: a("INCRBY", "k", "-10"), want: IntReply(-15), keys: map[string]*Entry{"k": str("-15", -1)}},
		{name: "decr", cmd: a("DECR", "k"), want: IntReply(-1), keys: map[string]*Entry{"k": str("-1", -1)}},
		{name: "decrby", setup: [][]string{{"SET", "k", "10"}}, cmd: a("DECRBY", "k", "3"), want: IntReply(7)},
		{name: "incr not int", setup: [][]string{{"SET", "k", "1.0"}}, cmd: a("INCR", "k"), want: errNotInt, keys: map[string]*Entry{"k": str("1.0", -1)}},
		{name: "incr overflow", setup: [][]string{{"SET", "k", "9223372036854775807"}}, cmd: a("INCR", "k"), want: errOverflow},
		{name: "decrby min", cmd: a("DECRBY", "k", "-9223372036854775808"), want: errDecOverflow},
		{name: "incr wrongtype", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("INCR", "k"), want: errWrongType},
		{name: "append new", cmd: a("APPEND", "k", "ab"), want: IntReply(2), keys: map[string]*Entry{"k": str("ab", -1)}},
		{name: "append keeps ttl", setup: [][]string{old}, cmd: a("APPEND", "k", "!"), want: IntReply(4), keys: map[string]*Entry{"k": str("old!", 5000)}},
		{name: "strlen", setup: [][]string{old}, cmd: a("STRLEN", "k"), want: IntReply(3)},
		{name: "strlen wrongtype", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("STRLEN", "k"), want: errWrongType},
		{name: "get at expiry", setup: [][]string{old}, advance: 5000, cmd: a("GET", "k"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("old", 0)}},
		{name: "get expired", setup: [][]string{old}, advance: 5001, cmd: a("GET", "k"), want: NilReply(), keys: map[string]*Entry{"k": gone()}},
		{name: "get 1ms before", setup: [][]string{old}, advance: 4999, cmd: a("GET", "k"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("old", 1)}},
		{name: "get arity", cmd: a("GET"), want: errArity("get")},
		{name: "get wrongtype", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("GET", "k"), want: errWrongType},
	})
}

func TestStringCommandsMore(t *testing.T) {
	hs := []string{"HSET", "k", "f", "v"}
	hello := []string{"SET", "k", "hello"}
	ab := [][]string{{"SET", "a", "ohmytext"}, {"SET", "b", "mynewtext"}}
	rng := func(a0, a1, b0, b1 int64) Reply {
		return ArrayReply(ArrayReply(IntReply(a0), IntReply(a1)), ArrayReply(IntReply(b0), IntReply(b1)))
	}
	runCmdCases(t, []cmdCase{
		{name: "getrange", setup: [][]string{hello}, cmd: a("GETRANGE", "k", "1", "3"), want: BulkReply("ell")},
		{name: "getrange negative", setup: [][]string{hello}, cmd: a("GETRANGE", "k", "-3", "-1"), want: BulkReply("llo")},
		{name: "getrange clamp", setup: [][]string{hello}, cmd: a("GETRANGE", "k", "-100", "100"), want: BulkReply("hello")},
		{name: "getrange both negative reversed", setup: [][]string{hello}, cmd: a("GETRANGE", "k", "-1", "-5"), want: BulkReply("")},
		{name: "getrange start past end", setup: [][]string{hello}, cmd: a("GETRANGE", "k", "9", "10"), want: BulkReply("")},
		{name: "getrange negative end clamps to 0", setup: [][]string{hello}, cmd: a("GETRANGE", "k", "0", "-100"), want: BulkReply("h")},
		{name: "getrange missing", cmd: a("GETRANGE", "k", "0", "-1"), want: BulkReply("")},
		{name: "getrange not int first", setup: [][]string{hs}, cmd: a("GETRANGE", "k", "x", "1"), want: errNotInt},
		{name: "getrange wrongtype", setup: [][]string{hs}, cmd: a("GETRANGE", "k", "0", "1"), want: errWrongType},
		{name: "substr", setup: [][]string{hello}, cmd: a("SUBSTR", "k", "0", "1"), want: BulkReply("he")},
		{name: "setrange", setup: [][]string{hello}, cmd: a("SETRANGE", "k", "1", "EY"), want: IntReply(5), keys: map[string]*Entry{"k": str("hEYlo", -1)}},
		{name: "setrange pads", cmd: a("SETRANGE", "k", "2", "x"), want: IntReply(3), keys: map[string]*Entry{"k": str("\x00\x00x", -1)}},
		{name: "setrange empty missing", cmd: a("SETRANGE", "k", "5", ""), want: IntReply(0), keys: map[string]*Entry{"k": gone()}},
		{name: "setrange empty existing", setup: [][]string{hello}, cmd: a("SETRANGE", "k", "50", ""), want: IntReply(5), keys: map[string]*Entry{"k": str("hello", -1)}},
		{name: "setrange negative", cmd: a("SETRANGE", "k", "-1", "x"), want: ErrorReply("ERR offset is out of range")},
		{name: "setrange not int", cmd: a("SETRANGE", "k", "1.0", "x"), want: errNotInt},
		{name: "setrange limit", cmd: a("SETRANGE", "k", "536870911", "ab"), want: errStringLimit, keys: map[string]*Entry{"k": gone()}},
		{name: "setrange wrap", cmd: a("SETRANGE", "k", "9223372036854775807", "ab"), want: errStringLimit},
		{name: "setrange wrongtype", setup: [][]string{hs}, cmd: a("SETRANGE", "k", "0", ""), want: errWrongType},
		{name: "setrange keeps ttl", setup: [][]string{{"SET", "k", "abc", "PX", "500"}}, cmd: a("SETRANGE", "k", "0", "X"), want: IntReply(3), keys: map[string]*Entry{"k": str("Xbc", 500)}},
		{name: "incrbyfloat", setup: [][]string{{"SET", "k", "10.50"}}, cmd: a("INCRBYFLOAT", "k", "0.1"), want: BulkReply("10.6"), keys: map[string]*Entry{"k": str("10.6", -1)}},
		{name: "incrbyfloat missing", cmd: a("INCRBYFLOAT", "k", "-5"), want: BulkReply("-5")},
		{name: "incrbyfloat exponent", setup: [][]string{{"SET", "k", "5.0e3"}}, cmd: a("INCRBYFLOAT", "k", "2.0e2"), want: BulkReply("5200")},
		{name: "incrbyfloat long double", setup: [][]string{{"SET", "k", "0.1"}}, cmd: a("INCRBYFLOAT", "k", "0.2"), want: BulkReply("0.3")},
		{name: "incrbyfloat 17 digits", cmd: a("INCRBYFLOAT", "k", "3.14159265358979323846"), want: BulkReply("3.14159265358979324")},
		{name: "incrbyfloat big", cmd: a("INCRBYFLOAT", "k", "1e30"), want: BulkReply("1000000000000000000024696061952")},
		{name: "incrbyfloat 1e20", cmd: a("INCRBYFLOAT", "k", "1e20"), want: BulkReply("100000000000000000000")},
		{name: "incrbyfloat hex", cmd: a("INCRBYFLOAT", "k", "0x1.8p1"), want: BulkReply("3")},
		{name: "incrbyfloat negative zero", cmd: a("INCRBYFLOAT", "k", "-0"), want: BulkReply("0")},
		{name: "incrbyfloat tiny", cmd: a("INCRBYFLOAT", "k", "-1e-30"), want: BulkReply("0")},
		{name: "incrbyfloat keeps ttl", setup: [][]string{{"SET", "k", "1", "PX", "500"}}, cmd: a("INCRBYFLOAT", "k", "1"), want: BulkReply("2"), keys: map[string]*Entry{"k": str("2", 500)}},
		{name: "incrbyfloat bad value", setup: [][]string{{"SET", "k", "1x"}}, cmd: a("INCRBYFLOAT", "k", "1"), want: errNotFloat},
		{name: "incrbyfloat bad incr", cmd: a("INCRBYFLOAT", "k", "1e"), want: errNotFloat, keys: map[string]*Entry{"k": gone()}},
		{name: "incrbyfloat nan", cmd: a("INCRBYFLOAT", "k", "nan"), want: errNotFloat},
		{name: "incrbyfloat inf", cmd: a("INCRBYFLOAT", "k", "inf"), want: errNaNOrInf, keys: map[string]*Entry{"k": gone()}},
		{name: "incrbyfloat inf minus inf", setup: [][]string{{"SET", "k", "inf"}}, cmd: a("INCRBYFLOAT", "k", "-inf"), want: errNaNOrInf},
		{name: "incrbyfloat overflow", setup: [][]string{{"SET", "k", "1.1e4932"}}, cmd: a("INCRBYFLOAT", "k", "1.1e4932"), want: errNaNOrInf},
		{name: "incrbyfloat too big to parse", cmd: a("INCRBYFLOAT", "k", "1e5000"), want: errNotFloat},
		{name: "incrbyfloat underflow", cmd: a("INCRBYFLOAT", "k", "1e-5000"), want: errNotFloat},
		{name: "incrbyfloat subnormal", cmd: a("INCRBYFLOAT", "k", "1e-4940"), want: BulkReply("0")},
		{name: "incrbyfloat wrongtype first", setup: [][]string{hs}, cmd: a("INCRBYFLOAT", "k", "x"), want: errWrongType},
		{name: "msetnx", cmd: a("MSETNX", "a", "1", "b", "2"), want: IntReply(1), keys: map[string]*Entry{"a": str("1", -1), "b": str("2", -1)}},
		{name: "msetnx exists", setup: [][]string{{"HSET", "b", "f", "v"}}, cmd: a("MSETNX", "a", "1", "b", "2"), want: IntReply(0), keys: map[string]*Entry{"a": gone(), "b": hsh(-1, "f", "v")}},
		{name: "msetnx odd", cmd: a("MSETNX", "a", "1", "b"), want: errArity("msetnx")},
		{name: "getset", setup: [][]string{{"SET", "k", "old", "PX", "500"}}, cmd: a("GETSET", "k", "new"), want: BulkReply("old"), keys: map[string]*Entry{"k": str("new", -1)}},
		{name: "getset missing", cmd: a("GETSET", "k", "new"), want: NilReply(), keys: map[string]*Entry{"k": str("new", -1)}},
		{name: "getset wrongtype", setup: [][]string{hs}, cmd: a("GETSET", "k", "new"), want: errWrongType, keys: map[string]*Entry{"k": hsh(-1, "f", "v")}},
		{name: "lcs", setup: ab, cmd: a("LCS", "a", "b"), want: BulkReply("mytext")},
		{name: "lcs len", setup: ab, cmd: a("LCS", "a", "b", "LEN"), want: IntReply(6)},
		{name: "lcs idx", setup: ab, cmd: a("LCS", "a", "b", "IDX"), want: ArrayReply(BulkReply("matches"), ArrayReply(rng(4, 7, 5, 8), rng(2, 3, 0, 1)), BulkReply("len"), IntReply(6))},
		{name: "lcs idx minmatchlen withmatchlen", setup: ab, cmd: a("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
			want: ArrayReply(BulkReply("matches"), ArrayReply(ArrayReply(ArrayReply(IntReply(4), IntReply(7)), ArrayReply(IntReply(5), IntReply(8)), IntReply(4))), BulkReply("len"), IntReply(6))},
		{name: "lcs missing", cmd: a("LCS", "a", "b"), want: BulkReply("")},
		{name: "lcs len and idx", setup: ab, cmd: a("LCS", "a", "b", "LEN", "IDX"), want: ErrorReply("ERR If you want both the length and indexes, please just use IDX.")},
		{name: "lcs syntax", setup: ab, cmd: a("LCS", "a", "b", "MINMATCHLEN"), want: errSyntax},
		{name: "lcs minmatchlen not int", setup: ab, cmd: a("LCS", "a", "b", "MINMATCHLEN", "x"), want: errNotInt},
		{name: "lcs wrongtype", setup: [][]string{{"HSET", "a", "f", "v"}}, cmd: a("LCS", "a", "b", "FOO"), want: ErrorReply("ERR The specified keys must contain string values")},
	})
}

func TestLongDouble(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" when string2ld refuses it
	}{
		{"1", "1"}, {"-1.5", "-1.5"}, {"+.5", "0.5"}, {"5.", "5"}, {"1E3", "1000"}, {"1e+3", "1000"},
		{"0x10", "16"}, {"0XaP-1", "5"}, {"inf", "inf"}, {"-Infinity", "-inf"}, {"0.1", "0.10000000000000000"},
		{"", ""}, {" 1", ""}, {"1 ", ""}, {"1e", ""}, {"e1", ""}, {".", ""}, {"0x", ""}, {"0x1p", ""},
		{"nan", ""}, {"-nan", ""}, {"1\x002", ""}, {"1_0", ""}, {"0b1", ""}, {"0o7", ""}, {"infinit", ""},
		{"1e4933", ""}, {"1e-4952", ""}, {strings.Repeat("1", 5120), ""}, {"1e99999999999999999999", ""}, {"0e99999999999", "0"},
	} {
		x, ok := parseLongDouble(tc.in)
		got := ""
		if ok {
			got = x.Text('f', -1)
			if x.IsInf() {
				got = strings.Replace(x.String(), "+Inf", "inf", 1)
				got = strings.Replace(got, "-Inf", "-inf", 1)
			}
			if tc.in == "0.1" {
				got = x.Text('f', 17)
			}
		}
		if got != tc.want {
			t.Errorf("parseLongDouble(%.20q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStringGrowCharged checks that the zero padding SETRANGE, SETBIT and
// BITFIELD add and LCS's table are charged through Config.Grow before they
// are allocated, and that a refusal leaves the keyspace as it was.
func TestStringGrowCharged(t *testing.T) {
	ctx := context.Background()
	errBudget := &RunError{Code: CodeMemory, Msg: "over budget"}
	budget := func(limit int64, charged *int64) func(int64) error {
		return func(n int64) error {
			if *charged+n > limit {
				return errBudget
			}
			*charged += n
			return nil
		}
	}
	for _, tc := range []struct {
		cmd     []string
		setup   string // the key's value before, "" none
		charged int64  // bytes charged with a budget of 1 MB
		strlen  int64
	}{
		{a("SETRANGE", "k", "99999", "x"), "", 100000, 100000},
		{a("SETRANGE", "k", "100", "xy"), "0123456789", 92, 102},
		{a("SETRANGE", "k", "2", "xy"), "0123456789", 0, 10},
		{a("SETBIT", "k", "799999", "1"), "", 100000, 100000},
		{a("BITFIELD", "k", "SET", "u8", "#99999", "1"), "ab", 99998, 100000},
		{a("SETRANGE", "k", "100000000", "x"), "", -1, 0},
		{a("SETRANGE", "k", "100000000", "x"), "abc", -1, 3},
		{a("SETBIT", "k", "4294967295", "1"), "", -1, 0},
		{a("BITFIELD", "k", "SET", "u8", "#536870910", "1"), "", -1, 0},
	} {
		var charged int64
		e := New(Options{Grow: budget(1<<20, &charged)})
		if tc.setup != "" {
			e.Do(ctx, "SET", "k", tc.setup)
		}
		_, err := e.Do(ctx, tc.cmd...)
		if tc.charged < 0 {
			if err != errBudget {
				t.Errorf("%q: %v, want the budget's refusal", tc.cmd, err)
			}
		} else if err != nil || charged != tc.charged {
			t.Errorf("%q: %v, charged %d, want %d", tc.cmd, err, charged, tc.charged)
		}
		if got, _ := e.Do(ctx, "STRLEN", "k"); got.Int != tc.strlen {
			t.Errorf("%q: STRLEN %d, want %d", tc.cmd, got.Int, tc.strlen)
		}
	}
	var charged int64
	e := New(Options{Grow: budget(1<<20, &charged)})
	e.Do(ctx, "SET", "a", strings.Repeat("x", 5000))
	e.Do(ctx, "SET", "b", strings.Repeat("y", 5000))
	if _, err := e.Do(ctx, "LCS", "a", "b"); err != errBudget {
		t.Errorf("LCS of a 100 MB table: %v, want the budget's refusal", err)
	}
	e.Do(ctx, "SET", "c", strings.Repeat("x", 400))
	e.Do(ctx, "SET", "d", strings.Repeat("x", 400))
	if r, err := e.Do(ctx, "LCS", "c", "d", "LEN"); err != nil || r.Int != 400 || charged != 401*401*4 {
		t.Errorf("LCS LEN of a 640 kB table: %v %v, charged %d", r, err, charged)
	}
}

// TestStringProtoMaxBulkLen checks the server's own limit on a string a
// command builds: 512 MB, whatever the budget allows.
func TestStringProtoMaxBulkLen(t *testing.T) {
	ctx := context.Background()
	const limit = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	e := New(Options{})
	for _, cmd := range [][]string{
		a("SETRANGE", "k", "536870912", "x"),
		a("SETRANGE", "k", "536870911", "xy"),
	} {
		if r, err := e.Do(ctx, cmd...); err != nil || r.Kind != Error || r.Str != limit {
			t.Errorf("%q: %v %v, want %q", cmd, r, err, limit)
		}
	}
	if n, _ := e.Do(ctx, "EXISTS", "k"); n.Int != 0 {
		t.Errorf("key created")
	}
	testtier.Full(t, "APPEND to a string of 512 MB")
	if r, err := e.Do(ctx, "SETRANGE", "k", "536870910", "x"); err != nil || r.Int != 536870911 {
		t.Fatalf("SETRANGE to 512 MB - 1: %v %v", r, err)
	}
	if r, err := e.Do(ctx, "APPEND", "k", "y"); err != nil || r.Int != 536870912 {
		t.Fatalf("APPEND to 512 MB: %v %v", r, err)
	}
	if r, err := e.Do(ctx, "APPEND", "k", "z"); err != nil || r.Kind != Error || r.Str != limit {
		t.Errorf("APPEND past 512 MB: %v %v, want %q", r, err, limit)
	}
	if n, _ := e.Do(ctx, "STRLEN", "k"); n.Int != 536870912 {
		t.Errorf("STRLEN %d after the refused APPEND", n.Int)
	}
}
