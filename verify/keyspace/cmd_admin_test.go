package keyspace

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc64"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRedisCRC64(t *testing.T) {
	// Redis's own test vector (crc64.c: crc64Test).
	if got := redisCRC64([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
	// The same as hash/crc64 with the Jones table, over random inputs of
	// every length up to past its 2 KB slicing threshold.
	jones := crc64.MakeTable(0x95ac9329ac4bc9b5)
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 2100; n += 1 + n/8 {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		if got, want := redisCRC64(p), ^crc64.Update(^uint64(0), jones, p); got != want {
			t.Fatalf("crc64 of %d bytes = %#x, hash/crc64 %#x", n, got, want)
		}
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
