package verify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/verify/keyspace"
)

// notOffline says why a command a script may call is not run offline, by
// command; Coverage falls back to groupReasons for the rest.
var notOffline = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"object":       "IDLETIME follows the server's LRU clock (ENCODING, REFCOUNT, FREQ and HELP are implemented)",
		"debug":        "server internals",
		"role":         "replication state of the server",
		"move":         "implemented",
		"command":      "the server's command table (COMMAND COUNT/INFO/DOCS): data that differs by target, not emulated",
		"failover":     "server administration",
		"swapdb":       "implemented",
		"replconf":     "replication protocol",
		"psync":        "replication protocol",
		"sync":         "replication protocol",
		"bgsave":       "server persistence",
		"bgrewriteaof": "server persistence",
		"save":         "server persistence",
		"shutdown":     "server administration",
		"monitor":      "connection mode",
	}
}}

// Coverage is one row of the coverage table: a command of the default
// target and whether a script run offline can call it.
type Coverage struct {
	Command string
	// "implemented", "partly" (some forms answered, the others a RunError),
	// "server state" (a server-state RunError), "not in scripts"
	// (noscript), "not offline", "client only"
	Status string
	Reason string
}

// noscriptButHelp reports whether c is a container whose subcommands are
// all noscript but HELP (CLIENT, CONFIG, ACL, FUNCTION, SCRIPT, ...).
func noscriptButHelp(c *cmdtable.Command) bool {
	if len(c.Subcommands) == 0 {
		return false
	}
	for _, s := range c.Subcommands {
		if !s.Noscript() && !strings.HasSuffix(s.Name, "|help") {
			return false
		}
	}
	return true
}

// CoverageTable lists every top-level command of the default target
// (redis-7.0.15), sorted.
func CoverageTable() []Coverage {
	var out []Coverage
	for _, c := range keyspace.TargetFacts(DefaultTarget).Table().Commands {
		if strings.Contains(c.Name, "|") {
			continue
		}
		row := Coverage{Command: c.Name}
		impl, partial := keyspace.Implemented(c.Name)
		switch {
		case impl && strings.HasPrefix(partial, "server-state: "):
			row.Status, row.Reason = "server state", strings.TrimPrefix(partial, "server-state: ")
		case impl && strings.HasPrefix(partial, "answered: "):
			row.Status, row.Reason = "implemented", strings.TrimPrefix(partial, "answered: ")
		case impl && partial != "":
			row.Status, row.Reason = "partly", partial
		case impl:
			row.Status = "implemented"
		case c.Noscript():
			row.Status, row.Reason = "not in scripts", "flagged noscript: Redis refuses it in a script"
		case noscriptButHelp(c):
			row.Status, row.Reason = "not in scripts", "every subcommand but HELP is flagged noscript: refused as Redis refuses it; HELP's text is not emulated"
		default:
			row.Status = "not offline"
			row.Reason = notOffline.Get()[c.Name]
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
