package verify

import (
	"fmt"
	"sort"
	"strings"
)

// notOffline says why a command a script may call is not run offline, by
// command; Coverage falls back to groupReasons for the rest.
var notOffline = map[string]string{
	"dump":         "returns an RDB payload (and a CRC) the engine does not serialise",
	"restore":      "reads an RDB payload the engine does not parse",
	"object":       "IDLETIME follows the server's LRU clock (ENCODING, REFCOUNT, FREQ and HELP are implemented)",
	"lastsave":     "the time of the server's last save: not a function of the script",
	"info":         "server state and statistics: not a function of the script",
	"memory":       "allocator figures of the server",
	"debug":        "server internals",
	"lolwut":       "prints the server's version art",
	"role":         "replication state of the server",
	"pfdebug":      "an internal debugging command",
	"pfselftest":   "an internal self test",
	"move":         "implemented",
	"wait":         "replication acknowledgements of a real deployment",
	"waitaof":      "AOF acknowledgements of a real deployment",
	"command":      "the server's command table (COMMAND COUNT/INFO/DOCS): data that differs by target, not emulated",
	"latency":      "server latency samples",
	"slowlog":      "server slow log",
	"config":       "server configuration",
	"client":       "connection state of real clients",
	"cluster":      "cluster state of a real deployment",
	"acl":          "the server's users and ACL log",
	"readonly":     "a cluster connection flag",
	"readwrite":    "a cluster connection flag",
	"asking":       "a cluster redirection flag",
	"failover":     "server administration",
	"swapdb":       "implemented",
	"migrate":      "moves keys to another server",
	"pubsub":       "introspection of real subscribers",
	"module":       "server modules",
	"script":       "not allowed in scripts",
	"function":     "not allowed in scripts",
	"replconf":     "replication protocol",
	"psync":        "replication protocol",
	"sync":         "replication protocol",
	"bgsave":       "server persistence",
	"bgrewriteaof": "server persistence",
	"save":         "server persistence",
	"shutdown":     "server administration",
	"monitor":      "connection mode",
}

// Coverage is one row of the coverage table: a command of the default
// target and whether a script run offline can call it.
type Coverage struct {
	Command string
	Status  string // "implemented", "not in scripts" (noscript), "not offline"
	Reason  string
}

// CoverageTable lists every top-level command of the default target
// (redis-7.0.15), sorted.
func CoverageTable() []Coverage {
	var out []Coverage
	for _, c := range commandTable().Commands {
		if strings.Contains(c.Name, "|") {
			continue
		}
		row := Coverage{Command: c.Name}
		_, impl := handlers[c.Name]
		switch {
		case impl:
			row.Status = "implemented"
		case c.Noscript():
			row.Status, row.Reason = "not in scripts", "flagged noscript: Redis refuses it in a script"
		default:
			row.Status = "not offline"
			row.Reason = notOffline[c.Name]
			if row.Reason == "" || row.Reason == "implemented" {
				row.Reason = fmt.Sprintf("%s command: not emulated", c.Group)
			}
		}
		switch c.Name {
		case "eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro":
			if !impl {
				row.Status, row.Reason = "client only", "run through Engine.Do; a script calling it gets Redis's noscript error"
			}
		}
		out = append(out, row)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Command < out[j].Command })
	return out
}
