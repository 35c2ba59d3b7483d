package lint

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// newerCommands are in the table for newer servers; Redis 7.0 does not know
// them.
var newerCommands = setOf("WAITAOF")

// containers have their key under a subcommand; the test checks this one.
var containers = map[string]string{"OBJECT": "OBJECT|ENCODING", "XINFO": "XINFO|STREAM", "MEMORY": "MEMORY|USAGE", "XGROUP": "XGROUP|CREATE"}

// TestCommandTableMatchesRedis compares the command table with COMMAND INFO
// of a real redis-server: the key range (first, last, step) of every
// command with fixed key positions, "movablekeys" for those whose keys
// follow numkeys or a keyword, the write flag, the nondeterministic_output
// tip of the random commands, the may_replicate flag (a no-writes script
// may not run those either), and that no command Redis marks noscript is
// allowed.
func TestCommandTableMatchesRedis(t *testing.T) {
	srv := redistest.Standalone(t)
	c := srv.Client()
	ctx := context.Background()
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		info := commands[name]
		query := name
		if sub, ok := containers[name]; ok {
			query = sub
		}
		arr, err := c.Do(ctx, c.B().Arbitrary("COMMAND", "INFO", strings.ToLower(query)).Build()).ToArray()
		if err != nil {
			t.Fatalf("COMMAND INFO %s: %v", query, err)
		}
		if len(arr) != 1 || arr[0].IsNil() {
			if !newerCommands[name] {
				t.Errorf("%s: unknown to Redis 7.0", name)
			}
			continue
		}
		ci, err := parseCommandInfo(arr[0])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if slices.Contains(ci.flags, "noscript") && info.forbidden == "" {
			t.Errorf("%s: Redis flags it noscript, the table allows it", name)
		}
		if info.forbidden != "" {
			continue
		}
		if got := slices.Contains(ci.flags, "write"); got != info.write {
			t.Errorf("%s: Redis write flag %v, table %v", name, got, info.write)
		}
		if slices.Contains(ci.flags, "may_replicate") && !info.mayReplicate {
			t.Errorf("%s: Redis flags it may_replicate, the table does not", name)
		}
		movable := info.numkeys > 0 || info.streams || len(info.kwKey) > 0 || info.movable
		if got := slices.Contains(ci.flags, "movablekeys"); got != movable {
			t.Errorf("%s: Redis movablekeys %v, table %v", name, got, movable)
		}
		want := keyRange{}
		if len(info.keys) > 0 {
			want = info.keys[0]
		}
		if ci.keys != want {
			t.Errorf("%s: Redis key range %v, table %v", name, ci.keys, want)
		}
		if info.random && !slices.Contains(ci.tips, "nondeterministic_output") {
			t.Errorf("%s: table says random, Redis has no nondeterministic_output tip (tips %v)", name, ci.tips)
		}
	}
}

// TestReadonlyScriptRejects runs each command the table marks
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
		if !info.mayReplicate {
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

type commandInfo struct {
	flags []string
	keys  keyRange
	tips  []string
}

func parseCommandInfo(m rueidis.RedisMessage) (commandInfo, error) {
	var ci commandInfo
	f, err := m.ToArray()
	if err != nil {
		return ci, err
	}
	flags, err := f[2].AsStrSlice()
	if err != nil {
		return ci, err
	}
	ci.flags = flags
	var r [3]int64
	for i := range r {
		if r[i], err = f[3+i].AsInt64(); err != nil {
			return ci, err
		}
	}
	ci.keys = keyRange{int(r[0]), int(r[1]), int(r[2])}
	if len(f) > 7 {
		ci.tips, _ = f[7].AsStrSlice()
	}
	return ci, nil
}
