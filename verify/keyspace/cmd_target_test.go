package keyspace

import (
	"testing"

	"context"
)

// SET ... IFEQ of Valkey 8.1, checked live against valkey-server 8.1.1
// (and difftest's targets.yaml).
func TestValkeySetIfeq(t *testing.T) {
	tests := []struct {
		name  string
		setup [][]string
		cmd   []string
		want  Reply
		key   *Entry
	}{
		{"match", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "IFEQ", "a"}, okReply, str("b", -1)},
		{"mismatch", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "ifeq", "x"}, NilReply(), str("a", -1)},
		{"missing key", nil, []string{"SET", "k", "b", "IFEQ", "a"}, NilReply(), gone()},
		{"get match", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "IFEQ", "a", "GET"}, BulkReply("a"), str("b", -1)},
		{"get mismatch", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "GET", "IFEQ", "x"}, BulkReply("a"), str("a", -1)},
		{"get missing", nil, []string{"SET", "k", "b", "IFEQ", "a", "GET"}, NilReply(), gone()},
		{"wrongtype", [][]string{{"HSET", "k", "f", "v"}}, []string{"SET", "k", "b", "IFEQ", "a"}, errWrongType, hsh(-1, "f", "v")},
		{"wrongtype get", [][]string{{"HSET", "k", "f", "v"}}, []string{"SET", "k", "b", "IFEQ", "a", "GET"}, errWrongType, hsh(-1, "f", "v")},
		{"nx", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "IFEQ", "a", "NX"}, errSyntax, str("a", -1)},
		{"xx first", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "XX", "IFEQ", "a"}, errSyntax, str("a", -1)},
		{"twice", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "IFEQ", "a", "IFEQ", "a"}, errSyntax, str("a", -1)},
		{"no value", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "IFEQ"}, errSyntax, str("a", -1)},
		{"ex eats ifeq", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "EX", "IFEQ", "a"}, errSyntax, str("a", -1)},
		{"bad expire first", [][]string{{"HSET", "k", "f", "v"}}, []string{"SET", "k", "b", "IFEQ", "a", "EX", "0"}, errExpire("set"), hsh(-1, "f", "v")},
		{"ex", [][]string{{"SET", "k", "a"}}, []string{"SET", "k", "b", "IFEQ", "a", "PX", "500"}, okReply, str("b", 500)},
		{"keepttl", [][]string{{"SET", "k", "a", "PX", "900"}}, []string{"SET", "k", "b", "KEEPTTL", "IFEQ", "a"}, okReply, str("b", 900)},
		{"integer value", [][]string{{"SET", "k", "12"}, {"INCR", "k"}}, []string{"SET", "k", "b", "IFEQ", "13"}, okReply, str("b", -1)},
	}
	for _, tt := range tests {
		ctx := context.Background()
		e := New(Options{Now: 1_000_000, Target: "valkey-8.1"})
		for _, s := range tt.setup {
			if r, err := e.Do(ctx, s...); err != nil || r.Kind == Error {
				t.Fatalf("%s: setup %q: %s %v", tt.name, s, r, err)
			}
		}
		got, err := e.Do(ctx, tt.cmd...)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%s: %q = %s %v, want %s", tt.name, tt.cmd, got, err, tt.want)
		}
		en, ok := e.Entry("k")
		switch {
		case tt.key == nil && ok:
			t.Errorf("%s: key exists: %+v", tt.name, en)
		case tt.key != nil && (!ok || en.Type != tt.key.Type || en.Value != tt.key.Value || en.PTTL != tt.key.PTTL || len(en.Hash) != len(tt.key.Hash)):
			t.Errorf("%s: key %+v, want %+v", tt.name, en, *tt.key)
		}
		// Before Valkey 8.1, IFEQ is a syntax error.
		if r, _ := New(Options{Target: "valkey-8.0"}).Do(ctx, tt.cmd...); tt.cmd[0] == "SET" && !r.Equal(errSyntax) {
			t.Errorf("%s on valkey-8.0: %s, want a syntax error", tt.name, r)
		}
	}
}
