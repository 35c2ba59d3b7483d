package verify

import "testing"

func TestSetRepl(t *testing.T) {
	runReplyCases(t, []replyCase{
		{"no arguments", "return redis.set_repl()", "-ERR redis.set_repl() requires two arguments."},
		{"two arguments", "return redis.set_repl(1, 2)", "-ERR redis.set_repl() requires two arguments."},
		{"all", "return redis.set_repl(redis.REPL_ALL)", "(nil)"},
		{"string", "return redis.set_repl('3')", "(nil)"},
		{"not a number", "return redis.set_repl('x')", "(nil)"},
		{"table", "return redis.set_repl({})", "(nil)"},
		{"truncated", "return redis.set_repl(3.7)", "(nil)"},
		{"negative fraction", "return redis.set_repl(-0.5)", "(nil)"},
		{"invalid", "return redis.set_repl(4.5)", "-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."},
		{"out of int range", "return redis.set_repl(2^32 + 1)", "-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."},
	})
}
