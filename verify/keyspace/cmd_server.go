package keyspace

import (
	"math"
	"strconv"
	"strings"
)

// Server commands: TIME (the virtual clock), SELECT SWAPDB FLUSHDB FLUSHALL
// (numbered databases), ECHO PING, COMMAND COUNT.

func registerServer() {
	register("time", noKeys, cmdTime)
	register("select", noKeys, cmdSelect)
	register("swapdb", noKeys, cmdSwapdb)
	register("flushdb", noKeys, cmdFlushdb)
	register("flushall", noKeys, cmdFlushall)
	register("echo", noKeys, func(_ *Server, a []string) Reply { return BulkReply(a[1]) })
	register("ping", noKeys, cmdPing)
	registerIn("command", noKeys, cmdCommand)
}

// cmdCommand answers COMMAND COUNT: the number of top-level commands of the
// target's table, recorded from its server. Its other forms describe every
// command (flags, key specs, docs) and stay unjudged.
func cmdCommand(e *Server, _ Script, a []string) (Reply, error) {
	if len(a) == 2 && strings.EqualFold(a[1], "count") {
		n := 0
		for _, c := range e.t.Table().Commands {
			if c.Parent() == nil {
				n++
			}
		}
		return IntReply(int64(n)), nil
	}
	if len(a) == 1 {
		return Reply{}, NotImplemented("COMMAND")
	}
	if strings.EqualFold(a[1], "getkeys") {
		return commandGetkeys(e, a[2:]), nil // cmd_admin.go
	}
	return Reply{}, NotImplemented("COMMAND %s", strings.ToUpper(a[1]))
}

// cmdTime answers with the virtual clock: seconds and microseconds.
func cmdTime(e *Server, _ []string) Reply {
	return ArrayReply(
		BulkReply(strconv.FormatInt(e.now/1000, 10)),
		BulkReply(strconv.FormatInt(e.now%1000*1000, 10)),
	)
}

// cmdSelect changes the database of the caller: a client until its next
// SELECT, a script until it ends (the script's caller keeps its own).
func cmdSelect(e *Server, a []string) Reply {
	if e.cluster() && e.t.data.clusterDBs {
		// Valkey 9: numbered databases in cluster mode, cluster-databases
		// of them (1 by default).
		id, errr := parseDBIndex(a[1])
		if errr != nil {
			return *errr
		}
		if id != 0 {
			return ErrorReply("ERR DB index is out of range")
		}
		e.selectDB(0)
		return okReply
	}
	if n, ok := parseInt(a[1]); ok && n != 0 && n >= math.MinInt32 && n <= math.MaxInt32 && e.cluster() {
		return ErrorReply("ERR SELECT is not allowed in cluster mode")
	}
	id, errr := parseDBIndex(a[1])
	if errr != nil {
		return *errr
	}
	e.selectDB(id)
	return okReply
}

// cmdSwapdb swaps the contents of two databases: every client (and the
// selected database) sees the other one's keys afterwards.
func cmdSwapdb(e *Server, a []string) Reply {
	if e.cluster() {
		return ErrorReply("ERR SWAPDB is not allowed in cluster mode")
	}
	ids := [2]int{}
	for i, msg := range []string{"ERR invalid first DB index", "ERR invalid second DB index"} {
		n, ok := parseInt(a[1+i])
		if !ok || n < -1<<31 || n > 1<<31-1 {
			return ErrorReply(msg)
		}
		if n < 0 || n >= numDBs {
			return errDBRange
		}
		ids[i] = int(n)
	}
	x, y := e.database(ids[0]), e.database(ids[1])
	x.keys, y.keys = y.keys, x.keys
	return okReply
}

// flushOption checks FLUSHDB/FLUSHALL's optional ASYNC or SYNC.
func flushOption(a []string) bool {
	return len(a) == 1 || (len(a) == 2 && (strings.EqualFold(a[1], "sync") || strings.EqualFold(a[1], "async")))
}

func cmdFlushdb(e *Server, a []string) Reply {
	if !flushOption(a) {
		return errSyntax
	}
	e.db.keys = map[string]*value{}
	return okReply
}

// cmdFlushall empties every database (but not the function libraries).
func cmdFlushall(e *Server, a []string) Reply {
	if !flushOption(a) {
		return errSyntax
	}
	for _, db := range e.dbs {
		if db != nil {
			db.keys = map[string]*value{}
		}
	}
	return okReply
}

// cmdPing answers PONG, or its argument as a bulk string.
func cmdPing(_ *Server, a []string) Reply {
	switch len(a) {
	case 1:
		return StatusReply("PONG")
	case 2:
		return BulkReply(a[1])
	}
	return errArity("ping")
}
