package lint

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
	"github.com/scriptctl/scriptctl/internal/redistest"
)

// newerCommands are forbidden for newer servers; Redis 7.0 does not know
// them.
var newerCommands = setOf("WAITAOF")

// TestCommandTableMatchesRedis checks the linter's command facts against
// a real redis-server. The shared table itself is the server's own record
// (internal/cmdtable's TestDataMatchesLiveServer compares it with the live
// COMMAND INFO); here: the linter knows every command the server knows,
// with the server's write flag, and the hand-written extras agree with the
// server: every noscript command is forbidden, every random command has the
// nondeterministic_output tip, every forbidden name exists.
func TestCommandTableMatchesRedis(t *testing.T) {
	srv := redistest.Standalone(t)
	ctx := context.Background()
	live, err := cmdtable.Record(ctx, srv.Client(), lintTarget)
	if err != nil {
		t.Fatal(err)
	}
	if live.Version != commandTable.Get().Version {
		t.Fatalf("live server is %s %s, the linter's table %s", live.Server, live.Version, commandTable.Get().Version)
	}
	seen := map[string]bool{}
	for _, c := range live.Commands {
		if c.Parent() != nil {
			continue
		}
		name := strings.ToUpper(c.Name)
		seen[name] = true
		info := lookupCommand(name)
		if info == nil {
			t.Errorf("%s: Redis knows it, the linter does not", name)
			continue
		}
		if c.Noscript() && info.forbidden == "" {
			t.Errorf("%s: Redis flags it noscript, the linter allows it", name)
		}
		if info.write != c.Write() {
			t.Errorf("%s: Redis write flag %v, linter %v", name, c.Write(), info.write)
		}
		if info.random && !c.HasTip("nondeterministic_output") {
			t.Errorf("%s: linter says random, Redis has no nondeterministic_output tip (tips %v)", name, c.Tips)
		}
	}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !seen[n] && !newerCommands[n] {
			t.Errorf("%s: in the linter's table, unknown to Redis 7.0", n)
		}
	}
	for n := range randoms {
		if !seen[n] {
			t.Errorf("random %s: unknown to Redis 7.0", n)
		}
	}
}

// TestKeyPositionsMatchGetkeys runs the linter's key positions on literal
// calls through COMMAND GETKEYS of a real server: with every argument
// known they are Redis's keys.
func TestKeyPositionsMatchGetkeys(t *testing.T) {
	srv := redistest.Standalone(t)
	ctx := context.Background()
	calls := [][]string{
		{"GET", "k"}, {"MSET", "k1", "v", "k2", "v"}, {"SORT", "k", "BY", "w", "STORE", "d"},
		{"SORT_RO", "k", "GET", "#"}, {"XREAD", "COUNT", "1", "STREAMS", "s1", "s2", "0", "0"},
		{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"}, {"LMPOP", "2", "a", "b", "LEFT"},
		{"ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"}, {"ZDIFF", "2", "a", "b"},
		{"SINTERCARD", "2", "a", "b"}, {"GEORADIUS", "g", "0", "0", "1", "km", "STORE", "d"},
		{"GEORADIUSBYMEMBER", "g", "m", "1", "km", "STOREDIST", "d"}, {"BITOP", "AND", "d", "a", "b"},
		{"OBJECT", "ENCODING", "k"}, {"XINFO", "STREAM", "s"}, {"MEMORY", "USAGE", "k"},
		{"XGROUP", "CREATE", "s", "g", "$"}, {"PFDEBUG", "GETREG", "k"}, {"LCS", "a", "b"},
		{"RENAME", "a", "b"}, {"COPY", "a", "b"}, {"SMOVE", "a", "b", "m"}, {"DEL", "a", "b", "c"},
	}
	for _, argv := range calls {
		want, err := srv.Do(ctx, append([]string{"COMMAND", "GETKEYS"}, argv...)...).AsStrSlice()
		if err != nil {
			t.Fatalf("GETKEYS %q: %v", argv, err)
		}
		info := lookupCommand(argv[0])
		lit := func(i int) (string, bool) { return argv[i], i >= 1 && i < len(argv) }
		var got []string
		for _, p := range info.keyPositions(len(argv), lit) {
			got = append(got, argv[p])
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: linter keys %q, COMMAND GETKEYS %q", argv, got, want)
		}
	}
}

// TestReadonlyScriptRejects runs each command the linter marks
// mayReplicate in a no-writes script on a real server: Redis must reject
// it as a write, and accept a plain read in the same script.
func TestReadonlyScriptRejects(t *testing.T) {
	srv := redistest.Standalone(t)
	ctx := context.Background()
	calls := map[string]string{
		"PUBLISH":  "redis.call('PUBLISH', 'channel', 'm')",
		"SPUBLISH": "redis.call('SPUBLISH', KEYS[1], 'm')",
		"PFCOUNT":  "redis.call('PFCOUNT', KEYS[1])",
	}
	for name, info := range commands {
		if !info.mayReplicate || info.forbidden != "" {
			continue
		}
		call, ok := calls[name]
		if !ok {
			t.Errorf("%s: no probe call", name)
			continue
		}
		err := srv.Do(ctx, "EVAL", "#!lua flags=no-writes\nreturn "+call, "1", "k").Error()
		if err == nil || !strings.Contains(err.Error(), "Write commands are not allowed from read-only scripts") {
			t.Errorf("%s in a no-writes script: got %v, want the read-only error", name, err)
		}
	}
	if err := srv.Do(ctx, "EVAL", "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "1", "k").Error(); err != nil && !strings.Contains(err.Error(), "nil") {
		t.Errorf("GET in a no-writes script: %v", err)
	}
}

// The tests read commands directly.
func init() { loadCommands.Do() }
