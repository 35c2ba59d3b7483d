package keyspace

import (
	"testing"
)

func TestServerCommands(t *testing.T) {
	runCmdCases(t, []cmdCase{
		{name: "time", advance: 1234, cmd: a("TIME"), want: ArrayReply(BulkReply("1001"), BulkReply("234000"))},
		{name: "time arity", cmd: a("TIME", "x"), want: errArity("time")},
		{name: "select", cmd: a("SELECT", "15"), want: okReply},
		{name: "select range", cmd: a("SELECT", "16"), want: errDBRange},
		{name: "select negative", cmd: a("SELECT", "-1"), want: errDBRange},
		{name: "select not int", cmd: a("SELECT", "01"), want: errNotInt},
		{name: "select int range", cmd: a("SELECT", "2147483648"), want: ErrorReply("ERR value is out of range, value must between -2147483648 and 2147483647")},
		{name: "select other db hides keys", setup: [][]string{{"SET", "k", "v"}, {"SELECT", "1"}}, cmd: a("GET", "k"), want: NilReply()},
		{name: "select back", setup: [][]string{{"SET", "k", "v"}, {"SELECT", "1"}, {"SELECT", "0"}}, cmd: a("GET", "k"), want: BulkReply("v"), keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "swapdb", setup: [][]string{{"SET", "k", "v"}}, cmd: a("SWAPDB", "0", "3"), want: okReply, keys: map[string]*Entry{"k": gone()}},
		{name: "swapdb back", setup: [][]string{{"SET", "k", "v"}, {"SWAPDB", "0", "3"}, {"SELECT", "3"}}, cmd: a("GET", "k"), want: BulkReply("v")},
		{name: "swapdb same", setup: [][]string{{"SET", "k", "v"}}, cmd: a("SWAPDB", "2", "2"), want: okReply, keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "swapdb first", cmd: a("SWAPDB", "x", "0"), want: ErrorReply("ERR invalid first DB index")},
		{name: "swapdb first range", cmd: a("SWAPDB", "4294967296", "y"), want: ErrorReply("ERR invalid first DB index")},
		{name: "swapdb second", cmd: a("SWAPDB", "0", "y"), want: ErrorReply("ERR invalid second DB index")},
		{name: "swapdb range", cmd: a("SWAPDB", "0", "16"), want: errDBRange},
		{name: "swapdb range first", cmd: a("SWAPDB", "-1", "y"), want: errDBRange},
		{name: "flushdb", setup: [][]string{{"SET", "k", "v"}}, cmd: a("FLUSHDB"), want: okReply, keys: map[string]*Entry{"k": gone()}},
		{name: "flushdb keeps other db", setup: [][]string{{"SET", "k", "v"}, {"SELECT", "1"}, {"FLUSHDB", "async"}, {"SELECT", "0"}}, cmd: a("GET", "k"), want: BulkReply("v")},
		{name: "flushdb syntax", setup: [][]string{{"SET", "k", "v"}}, cmd: a("FLUSHDB", "now"), want: errSyntax, keys: map[string]*Entry{"k": str("v", -1)}},
		{name: "flushdb two options", cmd: a("FLUSHDB", "sync", "async"), want: errSyntax},
		{name: "flushall", setup: [][]string{{"SELECT", "1"}, {"SET", "k", "v"}, {"SELECT", "0"}, {"SET", "k", "v"}, {"FLUSHALL", "SYNC"}, {"SELECT", "1"}}, cmd: a("DBSIZE"), want: IntReply(0)},
		{name: "flushall syntax", cmd: a("FLUSHALL", "x"), want: errSyntax},
		{name: "echo", cmd: a("ECHO", "a\x00b"), want: BulkReply("a\x00b")},
		{name: "ping", cmd: a("PING"), want: StatusReply("PONG")},
		{name: "ping msg", cmd: a("PING", "m"), want: BulkReply("m")},
		{name: "ping arity", cmd: a("PING", "m", "n"), want: errArity("ping")},
		{name: "command count", cmd: a("COMMAND", "count"), want: IntReply(240)},
		{name: "command count arity", cmd: a("COMMAND", "COUNT", "x"), want: errArity("command|count")},
		{name: "command unknown subcommand", cmd: a("COMMAND", "nope"), want: ErrorReply("ERR unknown subcommand 'nope'. Try COMMAND HELP.")},
	})
}
