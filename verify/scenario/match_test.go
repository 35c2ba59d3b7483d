package scenario

import (
	"testing"

	"github.com/scriptctl/scriptctl/verify"
)

func TestReplyMatches(t *testing.T) {
	spec := func(src string) *ReplySpec {
		t.Helper()
		s, err := Parse("x.yaml", []byte("steps:\n  - do: [PING]\n    expect:\n      reply: "+src+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return s.Steps[0].Expect.Reply
	}
	tests := []struct {
		spec  string
		reply verify.Reply
		want  bool
	}{
		{"1", verify.IntReply(1), true},
		{"1", verify.BulkReply("1"), false},
		{`"1"`, verify.BulkReply("1"), true},
		{`"1"`, verify.IntReply(1), false},
		{"~", verify.NilReply(), true},
		{"null", verify.BulkReply(""), false},
		{`""`, verify.BulkReply(""), true},
		{"{status: OK}", verify.StatusReply("OK"), true},
		{"{status: OK}", verify.BulkReply("OK"), false},
		{"OK", verify.StatusReply("OK"), false},
		{"{error: ERR x}", verify.ErrorReply("ERR x"), true},
		{"{error: ERR x}", verify.ErrorReply("ERR xy"), false},
		{"{error: x}", verify.ErrorReply("ERR x"), false},
		{"{error_prefix: WRONGTYPE}", verify.ErrorReply("WRONGTYPE Operation"), true},
		{"{error_prefix: WRONGTYPE}", verify.BulkReply("WRONGTYPE"), false},
		{"{ttl_ms: 700}", verify.IntReply(700), true},
		{"{ttl_ms: 700}", verify.IntReply(699), false},
		{"{ttl_ms: {min: 600}}", verify.IntReply(699), true},
		{"{ttl_ms: {max: 600}}", verify.IntReply(699), false},
		{"[busy, {ttl_ms: 700}]", verify.ArrayReply(verify.BulkReply("busy"), verify.IntReply(700)), true},
		{"[busy]", verify.ArrayReply(verify.BulkReply("busy"), verify.IntReply(700)), false},
		{"[]", verify.ArrayReply(), true},
		{"[]", verify.NilReply(), false},
		{"[[1, ~]]", verify.ArrayReply(verify.ArrayReply(verify.IntReply(1), verify.NilReply())), true},
	}
	for _, tt := range tests {
		if got := replyMatches(spec(tt.spec), tt.reply); got != tt.want {
			t.Errorf("spec %s vs reply %s: match = %v, want %v", tt.spec, tt.reply, got, tt.want)
		}
	}
}

func TestKeyExpectations(t *testing.T) {
	s, err := Parse("x.yaml", []byte(`steps:
  - sleep_ms: 1
    expect:
      keys:
        gone: absent
        str: {value: v, ttl_ms: {min: 100, max: 200}}
        h: {hash: {f: "1"}, ttl_ms: none}
`))
	if err != nil {
		t.Fatal(err)
	}
	kes := s.Steps[0].Expect.Keys
	check := func(i int, k Key, present bool) string {
		return boundKeyExpect{key: k.Name, KeyExpect: kes[i]}.check(k, present)
	}
	tests := []struct {
		i       int
		k       Key
		present bool
		want    string
	}{
		{0, Key{}, false, ""},
		{0, Key{Name: "gone", Type: "string", Value: "x", PTTL: -1}, true, `want absent, got "x" (no ttl)`},
		{1, Key{Name: "str", Type: "string", Value: "v", PTTL: 150}, true, ""},
		{1, Key{Name: "str", Type: "string", Value: "w", PTTL: 99}, true, `value: want "v", got "w", ttl_ms: want 100..200, got 99`},
		{1, Key{Name: "str", Type: "string", Value: "v", PTTL: -1}, true, "ttl_ms: want 100..200, got none"},
		{1, Key{}, false, "want present, got absent"},
		{1, Key{Name: "str", Type: "hash", Hash: []verify.Field{{Name: "a", Value: "b"}}, PTTL: -1}, true, `want a string, got a hash: hash {"a": "b"} (no ttl)`},
		{2, Key{Name: "h", Type: "hash", Hash: []verify.Field{{Name: "f", Value: "1"}}, PTTL: -1}, true, ""},
		{2, Key{Name: "h", Type: "hash", Hash: []verify.Field{{Name: "f", Value: "1"}, {Name: "g", Value: "2"}}, PTTL: 5}, true, `hash: want hash {"f": "1"}, got hash {"f": "1", "g": "2"}, ttl_ms: want none, got 5`},
	}
	for _, tt := range tests {
		if got := check(tt.i, tt.k, tt.present); got != tt.want {
			t.Errorf("expectation %d vs %+v: %q, want %q", tt.i, tt.k, got, tt.want)
		}
	}
}
