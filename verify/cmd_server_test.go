package verify

import "testing"

func TestServerCommands(t *testing.T) {
	runCmdCases(t, []cmdCase{
		{name: "time", advance: 1234, cmd: a("TIME"), want: ArrayReply(BulkReply("1001"), BulkReply("234000"))},
		{name: "time arity", cmd: a("TIME", "x"), want: errArity("time")},
	})
}
