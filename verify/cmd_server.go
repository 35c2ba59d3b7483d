package verify

import "strconv"

// Server commands: TIME (the virtual clock).

func init() {
	register("time", noKeys, cmdTime)
}

// cmdTime answers with the virtual clock: seconds and microseconds.
func cmdTime(e *Engine, _ []string) Reply {
	return ArrayReply(
		BulkReply(strconv.FormatInt(e.now/1000, 10)),
		BulkReply(strconv.FormatInt(e.now%1000*1000, 10)),
	)
}
