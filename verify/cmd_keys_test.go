package verify

import "testing"

func TestKeyCommands(t *testing.T) {
	withTTL := []string{"SET", "k", "v", "PX", "5000"}
	plain := []string{"SET", "k", "v"}
	runCmdCases(t, []cmdCase{
		{name: "del", setup: [][]string{plain, {"SET", "b", "1"}}, cmd: a("DEL", "k", "b", "x"), want: IntReply(2), keys: map[string]*Entry{"k": gone(), "b": gone()}},
		{name: "del expired", setup: [][]string{withTTL}, advance: 5000, cmd: a("DEL", "k"), want: IntReply(0)},
		{name: "unlink", setup: [][]string{plain}, cmd: a("UNLINK", "k"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "exists dup", setup: [][]string{plain}, cmd: a("EXISTS", "k", "k", "x"), want: IntReply(2)},
		{name: "expire", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "10"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10000)}},
		{name: "pexpire", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "10"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10)}},
		{name: "expireat", setup: [][]string{plain}, cmd: a("EXPIREAT", "k", "1010"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10000)}},
		{name: "pexpireat", setup: [][]string{plain}, cmd: a("PEXPIREAT", "k", "1000010"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 10)}},
		{name: "pexpireat now deletes", setup: [][]string{plain}, cmd: a("PEXPIREAT", "k", "1000000"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "expire 0 deletes", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "0"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "expire negative deletes", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "-5"), want: IntReply(1), keys: map[string]*Entry{"k": gone()}},
		{name: "expire missing", cmd: a("EXPIRE", "k", "10"), want: IntReply(0)},
		{name: "expire nx has ttl", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "10", "NX"), want: IntReply(0), keys: map[string]*Entry{"k": str("v", 5000)}},
		{name: "expire xx no ttl", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "10", "XX"), want: IntReply(0), keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "expire gt smaller", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "10", "GT"), want: IntReply(0), keys: map[string]*Entry{"k": str("v", 5000)}},
		{name: "expire gt larger", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "6000", "gt"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 6000)}},
		{name: "expire gt no ttl", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "6000", "GT"), want: IntReply(0)},
		{name: "expire lt no ttl", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "6000", "LT"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", 6000)}},
		{name: "expire lt larger", setup: [][]string{withTTL}, cmd: a("PEXPIRE", "k", "6000", "LT"), want: IntReply(0)},
		{name: "expire nx xx", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1", "NX", "XX"), want: ErrorReply("ERR NX and XX, GT or LT options at the same time are not compatible")},
		{name: "expire gt lt", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1", "GT", "LT"), want: ErrorReply("ERR GT and LT options at the same time are not compatible")},
		{name: "expire bad option", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1", "FOO"), want: ErrorReply("ERR Unsupported option FOO")},
		{name: "expire not int", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "1.5"), want: errNotInt},
		{name: "expire overflow", setup: [][]string{plain}, cmd: a("EXPIRE", "k", "9223372036854775807"), want: errExpire("expire")},
		{name: "pexpire overflow", setup: [][]string{plain}, cmd: a("PEXPIRE", "k", "9223372036854775807"), want: errExpire("pexpire")},
		{name: "ttl", setup: [][]string{withTTL}, advance: 1499, cmd: a("TTL", "k"), want: IntReply(4)},
		{name: "ttl rounds", setup: [][]string{withTTL}, advance: 1500, cmd: a("TTL", "k"), want: IntReply(4)},
		{name: "ttl rounds down", setup: [][]string{withTTL}, advance: 1501, cmd: a("TTL", "k"), want: IntReply(3)},
		{name: "pttl", setup: [][]string{withTTL}, advance: 1234, cmd: a("PTTL", "k"), want: IntReply(3766)},
		{name: "pttl none", setup: [][]string{plain}, cmd: a("PTTL", "k"), want: IntReply(-1)},
		{name: "pttl missing", cmd: a("PTTL", "k"), want: IntReply(-2)},
		{name: "pttl expired", setup: [][]string{withTTL}, advance: 5000, cmd: a("PTTL", "k"), want: IntReply(-2)},
		{name: "persist", setup: [][]string{withTTL}, cmd: a("PERSIST", "k"), want: IntReply(1), keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "persist none", setup: [][]string{plain}, cmd: a("PERSIST", "k"), want: IntReply(0)},
		{name: "type string", setup: [][]string{plain}, cmd: a("TYPE", "k"), want: StatusReply("string")},
		{name: "type hash", setup: [][]string{{"HSET", "k", "f", "v"}}, cmd: a("TYPE", "k"), want: StatusReply("hash")},
		{name: "type none", cmd: a("TYPE", "k"), want: StatusReply("none")},
	})
}
