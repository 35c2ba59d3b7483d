package verify

import "testing"

func TestHashCommands(t *testing.T) {
	h := []string{"HSET", "h", "a", "1", "b", "2"}
	runCmdCases(t, []cmdCase{
		{name: "hset", cmd: a("HSET", "h", "a", "1", "b", "2"), want: IntReply(2), keys: map[string]*Entry{"h": hsh(-1, "a", "1", "b", "2")}},
		{name: "hset update", setup: [][]string{h}, cmd: a("HSET", "h", "a", "9", "c", "3"), want: IntReply(1), keys: map[string]*Entry{"h": hsh(-1, "a", "9", "b", "2", "c", "3")}},
		{name: "hset odd", cmd: a("HSET", "h", "a", "1", "b"), want: errArity("hset"), keys: map[string]*Entry{"h": gone()}},
		{name: "hset wrongtype", setup: [][]string{{"SET", "h", "v"}}, cmd: a("HSET", "h", "a", "1"), want: errWrongType, keys: map[string]*Entry{"h": str("v", -1)}},
		{name: "hset keeps ttl", setup: [][]string{h, {"PEXPIRE", "h", "50"}}, cmd: a("HSET", "h", "c", "3"), want: IntReply(1), keys: map[string]*Entry{"h": hsh(50, "a", "1", "b", "2", "c", "3")}},
		{name: "hget", setup: [][]string{h}, cmd: a("HGET", "h", "b"), want: BulkReply("2")},
		{name: "hget missing field", setup: [][]string{h}, cmd: a("HGET", "h", "z"), want: NilReply()},
		{name: "hget wrongtype", setup: [][]string{{"SET", "h", "v"}}, cmd: a("HGET", "h", "a"), want: errWrongType},
		{name: "hdel", setup: [][]string{h}, cmd: a("HDEL", "h", "a", "z"), want: IntReply(1), keys: map[string]*Entry{"h": hsh(-1, "b", "2")}},
		{name: "hdel last removes key", setup: [][]string{h}, cmd: a("HDEL", "h", "a", "b"), want: IntReply(2), keys: map[string]*Entry{"h": gone()}},
		{name: "hgetall order", setup: [][]string{h, {"HDEL", "h", "a"}, {"HSET", "h", "c", "3", "a", "4"}}, cmd: a("HGETALL", "h"),
			want: ArrayReply(BulkReply("b"), BulkReply("2"), BulkReply("c"), BulkReply("3"), BulkReply("a"), BulkReply("4"))},
		{name: "hgetall missing", cmd: a("HGETALL", "h"), want: ArrayReply()},
		{name: "hmget", setup: [][]string{h}, cmd: a("HMGET", "h", "b", "z", "a"), want: ArrayReply(BulkReply("2"), NilReply(), BulkReply("1"))},
		{name: "hmget missing key", cmd: a("HMGET", "h", "a"), want: ArrayReply(NilReply())},
		{name: "hincrby new", cmd: a("HINCRBY", "h", "n", "5"), want: IntReply(5), keys: map[string]*Entry{"h": hsh(-1, "n", "5")}},
		{name: "hincrby", setup: [][]string{h}, cmd: a("HINCRBY", "h", "a", "-3"), want: IntReply(-2), keys: map[string]*Entry{"h": hsh(-1, "a", "-2", "b", "2")}},
		{name: "hincrby not int", setup: [][]string{{"HSET", "h", "a", "x"}}, cmd: a("HINCRBY", "h", "a", "1"), want: errHashNotInt, keys: map[string]*Entry{"h": hsh(-1, "a", "x")}},
		{name: "hincrby bad incr", cmd: a("HINCRBY", "h", "a", "1.5"), want: errNotInt, keys: map[string]*Entry{"h": gone()}},
		{name: "hincrby overflow", setup: [][]string{{"HSET", "h", "a", "-9223372036854775808"}}, cmd: a("HINCRBY", "h", "a", "-1"), want: errOverflow},
		{name: "hexists", setup: [][]string{h}, cmd: a("HEXISTS", "h", "a"), want: IntReply(1)},
		{name: "hexists no", setup: [][]string{h}, cmd: a("HEXISTS", "h", "z"), want: IntReply(0)},
	})
}
