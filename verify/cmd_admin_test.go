package verify

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func TestRedisCRC64(t *testing.T) {
	// Redis's own test vector (crc64.c: crc64Test).
	if got := redisCRC64([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
}

func TestAdminCommands(t *testing.T) {
	payload := func(body string) string {
		b := append([]byte(body), 10, 0) // RDB version 10
		return string(binary.LittleEndian.AppendUint64(b, redisCRC64(b)))
	}
	for _, tc := range []struct {
		target string
		args   []string
		want   Reply
		code   string // a RunError instead of want
	}{
		{"", []string{"CLUSTER", "INFO"}, ErrorReply("ERR This instance has cluster support disabled"), ""},
		{"", []string{"CLUSTER", "NOSUCH"}, ErrorReply("ERR unknown subcommand 'NOSUCH'. Try CLUSTER HELP."), ""},
		{"", []string{"CLUSTER", "KEYSLOT"}, ErrorReply("ERR wrong number of arguments for 'cluster|keyslot' command"), ""},
		{"", []string{"READONLY"}, ErrorReply("ERR This instance has cluster support disabled"), ""},
		{"valkey-8.1", []string{"READWRITE"}, okReply, ""},
		{"", []string{"SLOWLOG", "RESET"}, okReply, ""},
		{"", []string{"SLOWLOG", "GET", "-2"}, ErrorReply("ERR count should be greater than or equal to -1"), ""},
		{"", []string{"SLOWLOG", "GET"}, Reply{}, CodeServerState},
		{"", []string{"SLOWLOG", "LEN"}, Reply{}, CodeServerState},
		{"", []string{"MEMORY", "USAGE", "nokey"}, NilReply(), ""},
		{"", []string{"MEMORY", "USAGE", "k"}, Reply{}, CodeServerState},
		{"", []string{"MEMORY", "USAGE", "k", "SAMPLES", "-1"}, errSyntax, ""},
		{"", []string{"MEMORY", "STATS"}, Reply{}, CodeServerState},
		{"", []string{"PUBSUB", "NUMSUB", "a"}, ArrayReply(BulkReply("a"), IntReply(0)), ""},
		{"", []string{"PUBSUB", "NUMPAT", "x"}, ErrorReply("ERR wrong number of arguments for 'pubsub|numpat' command"), ""},
		{"", []string{"PUBSUB", "CHANNELS", "a", "b"}, ErrorReply("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP."), ""},
		{"", []string{"DUMP", "nokey"}, NilReply(), ""},
		{"", []string{"DUMP", "k"}, Reply{}, CodeServerState},
		{"", []string{"RESTORE", "n", "0", "x"}, ErrorReply("ERR DUMP payload version or checksum are wrong"), ""},
		{"", []string{"RESTORE", "k", "0", "x"}, ErrorReply("BUSYKEY Target key name already exists."), ""},
		{"", []string{"RESTORE", "n", "0", payload("\x00\x01v")}, Reply{}, CodeNotImplemented},
		{"", []string{"RESTORE", "n", "0", strings.Replace(payload("\x00\x01v"), "v", "w", 1)}, ErrorReply("ERR DUMP payload version or checksum are wrong"), ""},
		{"", []string{"PFSELFTEST"}, okReply, ""},
		{"", []string{"PFDEBUG", "GETREG", "k"}, errHLLType, ""},
		{"", []string{"INFO"}, Reply{}, CodeServerState},
		{"", []string{"LASTSAVE"}, Reply{}, CodeServerState},
		{"", []string{"WAIT", "0", "0"}, IntReply(0), ""},
		{"", []string{"WAIT", "1", "0"}, Reply{}, CodeNotImplemented},
		{"redis-8.0", []string{"WAITAOF", "1", "0", "0"}, ErrorReply("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled."), ""},
		{"redis-8.0", []string{"WAITAOF", "0", "0", "0"}, ArrayReply(IntReply(0), IntReply(0)), ""},
		{"", []string{"COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"}, ArrayReply(BulkReply("a"), BulkReply("b")), ""},
		{"", []string{"COMMAND", "GETKEYS", "PING", "x"}, ErrorReply("ERR The command has no key arguments"), ""},
		{"", []string{"COMMAND", "GETKEYS", "NOSUCH", "x"}, ErrorReply("ERR Invalid command specified"), ""},
		{"", []string{"COMMAND", "GETKEYS", "SET", "a"}, ErrorReply("ERR Invalid number of arguments specified for command"), ""},
	} {
		e := New(Options{Target: tc.target})
		ctx := context.Background()
		if _, err := e.Do(ctx, "SET", "k", "v"); err != nil {
			t.Fatal(err)
		}
		r, err := e.Do(ctx, tc.args...)
		name := tc.target + " " + strings.Join(tc.args, " ")
		if tc.code != "" {
			var re *RunError
			if !errors.As(err, &re) || re.Code != tc.code {
				t.Errorf("%s: got %s %v, want a %s RunError", name, r, err, tc.code)
			}
			continue
		}
		if err != nil || !r.Equal(tc.want) {
			t.Errorf("%s: got %s %v, want %s", name, r, err, tc.want)
		}
	}
}

// PUBSUB answers only while nobody is declared to listen.
func TestPubsubWithSubscribers(t *testing.T) {
	e := New(Options{})
	e.SetSubscribers(map[string]int64{"ch": 2})
	_, err := e.Do(context.Background(), "PUBSUB", "NUMSUB", "ch")
	var re *RunError
	if !errors.As(err, &re) || re.Code != CodeServerState {
		t.Fatalf("got %v, want a server-state RunError", err)
	}
}

// In a script, a container's subcommand is looked up first: its noscript
// flag and arity are the subcommand's.
func TestScriptSubcommandFlags(t *testing.T) {
	for src, want := range map[string]string{
		"return redis.pcall('CONFIG', 'GET', 'x')": "ERR This Redis command is not allowed from script",
		"return redis.pcall('CLIENT', 'NOSUCH')":   "ERR Unknown Redis command called from script",
		"return redis.pcall('CONFIG', 'GET')":      "ERR Wrong number of args calling Redis command from script",
		"return redis.pcall('CLUSTER', 'SLOTS')":   "ERR This instance has cluster support disabled",
		"return redis.pcall('OBJECT', 'NOSUCH')":   "ERR Unknown Redis command called from script",
	} {
		if r := mustEval(t, New(Options{}), src, nil, nil); !r.Equal(ErrorReply(want)) {
			t.Errorf("%s: got %s, want %q", src, r, want)
		}
	}
}

func TestStringDump(t *testing.T) {
	e := New(Options{})
	r := mustEval(t, e, "return string.dump(function() return 1 end)", nil, nil)
	// Redis 7.0.15's bytes for this function: header, "@user_script",
	// lines 1-1, no upvalues or parameters, stack 2, LOADK 0 0, RETURN 0 2,
	// RETURN 0 1, the constant 1, line info and no locals.
	want, _ := hex.DecodeString("1b4c756151000104080408000d0000000000000040757365725f7363726970740001000000010000000000000203000000010000001e0000011e0080000100000003000000000000f03f00000000030000000100000001000000010000000000000000000000")
	if r.Kind != Bulk || r.Str != string(want) {
		t.Fatalf("got %q, want the server's %q", r.Str, want)
	}
	if w := e.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q, want none (the dump is exact)", w)
	}
	r = mustEval(t, e, "return {pcall(string.dump, tostring)}", nil, nil)
	if !r.Equal(ArrayReply(NilReply(), BulkReply("unable to dump given function"))) {
		t.Errorf("dump of a Go function: got %s", r)
	}
	r = mustEval(t, e, "local f, err = loadstring(string.dump(function() end)) return {type(f), err}", nil, nil)
	if !r.Equal(ArrayReply(BulkReply("nil"), BulkReply(`[string "`+"\x1bLuaQ"+`"]:1: unexpected symbol near 'char(27)'`))) {
		t.Errorf("loadstring of a dump: got %s", r)
	}
}
