package cmdtable

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/scriptctl/scriptctl/internal/redistest"
)

// liveServers returns the servers to check the tables against: redis-7.0 is
// the redis-server on PATH; SCRIPTCTL_TARGET_SERVERS adds others as
// "target=/path/to/server,target=/path" (a development machine that built
// them, or CI for the targets it installs).
func liveServers(t *testing.T) map[string]*redistest.Server {
	out := map[string]*redistest.Server{}
	// The builds the tests run (make test-servers): Redis 7.0, 8.0, Valkey 8.1.
	// A build kept to prove a patch release (redis-8.0.6) is judged by its
	// target's table, recorded from another patch release: not compared here.
	for _, k := range redistest.Kinds {
		if k.Target() != k.Name {
			continue
		}
		if _, err := Load(k.Name); err != nil {
			continue // a build whose table is not recorded yet
		}
		out[k.Name] = redistest.Standalone(t, redistest.WithKind(k))
	}
	for _, kv := range strings.Split(os.Getenv("SCRIPTCTL_TARGET_SERVERS"), ",") {
		target, bin, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			continue
		}
		out[target] = redistest.Standalone(t, redistest.WithBinary(bin, target))
	}
	return out
}

// TestDataMatchesLiveServer records each live server's table again and
// compares it with the embedded file: the data is exactly what the server
// says (the version included), nothing edited by hand.
func TestDataMatchesLiveServer(t *testing.T) {
	for target, srv := range liveServers(t) {
		t.Run(target, func(t *testing.T) {
			want := MustLoad(target)
			got, err := Record(context.Background(), srv.Client(), target)
			if err != nil {
				t.Fatal(err)
			}
			got.RecordedWith = want.RecordedWith
			var g, w bytes.Buffer
			if err := Encode(&g, got); err != nil {
				t.Fatal(err)
			}
			if err := Encode(&w, want); err != nil {
				t.Fatal(err)
			}
			if g.String() != w.String() {
				gl, wl := strings.Split(g.String(), "\n"), strings.Split(w.String(), "\n")
				for i := 0; i < len(gl) || i < len(wl); i++ {
					if i >= len(gl) || i >= len(wl) || gl[i] != wl[i] {
						t.Fatalf("data/%s.json differs from the live server at line %d:\nlive: %s\nfile: %s",
							target, i+1, at(gl, i), at(wl, i))
					}
				}
			}
		})
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}

// vocabulary holds the words key finding looks for, and numbers a numkeys
// may be (valid, zero, negative, too big, C atoi's lenient forms).
var vocabulary = []string{"STORE", "store", "STOREDIST", "LIMIT", "GET", "BY", "KEYS", "AUTH", "AUTH2",
	"COPY", "REPLACE", "BLOCK", "COUNT", "GROUP", "NOACK", "STREAMS", "streams", "WITHSCORES", "WEIGHTS",
	"FIELDS", "0", "1", "2", "3", "5", "-1", "x", "", "01", " 2", "2abc", "+1", "4294967297", "99999999999"}

// argvs generates argument vectors for cmd: its keywords and vocabulary
// mixed with unique filler words, at lengths around the arity.
func argvs(cmd *Command, rng *rand.Rand, n int) [][]string {
	var prefix []string
	if p := cmd.Parent(); p != nil {
		prefix = []string{p.Name, strings.TrimPrefix(cmd.Name, p.Name+"|")}
	} else {
		prefix = []string{cmd.Name}
	}
	words := slices.Clone(vocabulary)
	for _, s := range cmd.Specs {
		if s.Keyword != "" {
			words = append(words, s.Keyword, strings.ToLower(s.Keyword))
		}
	}
	min := cmd.Arity
	if min < 0 {
		min = -min
	}
	var out [][]string
	for k := 0; k < n; k++ {
		length := min + rng.Intn(7)
		if cmd.Arity > 0 && rng.Intn(4) != 0 {
			length = cmd.Arity
		}
		if length < len(prefix) {
			length = len(prefix)
		}
		argv := slices.Clone(prefix)
		for i := len(argv); i < length; i++ {
			if rng.Intn(2) == 0 {
				argv = append(argv, words[rng.Intn(len(words))])
			} else {
				argv = append(argv, fmt.Sprintf("a%d", i))
			}
		}
		out = append(out, argv)
	}
	return out
}

// curated are argvs whose keys depend on keywords and counts; random argvs
// rarely hit them.
var curated = [][]string{
	{"sort", "k", "STORE", "d"},
	{"sort", "k", "BY", "STORE", "STORE", "d"},
	{"sort", "k", "LIMIT", "STORE", "1", "STORE", "d1", "store", "d2"},
	{"sort", "k", "GET", "#", "STORE"},
	{"sort_ro", "k", "BY", "w_*", "GET", "o_*"},
	{"xread", "STREAMS", "s1", "s2", "0", "0"},
	{"xread", "COUNT", "STREAMS", "STREAMS", "s1", "0"},
	{"xread", "BLOCK", "0", "STREAMS", "s1", "s2", "0"},
	{"xread", "STREAMS", "s1", "s2", "0"},
	{"xreadgroup", "GROUP", "g", "c", "NOACK", "STREAMS", "s1", "0"},
	{"xreadgroup", "GROUP", "STREAMS", "c", "STREAMS", "s1", "s2", ">", ">"},
	{"lmpop", "2", "l1", "l2", "LEFT"},
	{"lmpop", "3", "l1", "l2", "LEFT"},
	{"lmpop", "0", "l1", "LEFT"},
	{"blmpop", "0", "2", "l1", "l2", "LEFT", "COUNT", "2"},
	{"zmpop", "1", "z", "MIN"},
	{"bzmpop", "1.5", "2", "z1", "z2", "MAX"},
	{"zunionstore", "d", "2", "z1", "z2", "WEIGHTS", "1", "2"},
	{"zunionstore", "d", "x", "z1", "z2"},
	{"zunionstore", "d", "01", "z1", "z2"},
	{"zunionstore", "d", " 2", "z1", "z2"},
	{"zunionstore", "d", "4294967297", "z1", "z2"},
	{"zinter", "2", "z1", "z2", "WITHSCORES"},
	{"sintercard", "2", "s1", "s2", "LIMIT", "1"},
	{"eval", "return 1", "2", "k1", "k2", "a1"},
	{"eval", "return 1", "0"},
	{"evalsha_ro", "abc", "1", "k1"},
	{"fcall", "f", "1", "k1", "a1"},
	{"migrate", "h", "6379", "k", "0", "1000"},
	{"migrate", "h", "6379", "", "0", "1000", "COPY", "KEYS", "k1", "k2"},
	{"migrate", "h", "6379", "", "0", "1000", "AUTH", "KEYS", "KEYS", "k1"},
	{"migrate", "h", "6379", "k", "0", "1000", "KEYS", "k1"},
	{"migrate", "h", "6379", "", "0", "1000", "AUTH2", "u", "p", "KEYS", "k1", "k2"},
	{"georadius", "g", "0", "0", "1", "km", "STORE", "d"},
	{"georadius", "g", "0", "0", "1", "km", "STORE", "d1", "STOREDIST", "d2"},
	{"georadiusbymember", "g", "m", "1", "km", "STOREDIST", "d"},
	{"georadius_ro", "g", "0", "0", "1", "km"},
	{"mset", "k1", "v1", "k2", "v2"},
	{"mset", "k1", "v1", "k2"},
	{"set", "k", "v", "GET"},
	{"bitfield", "k", "GET", "u8", "0"},
	{"object", "encoding", "k"},
	{"object", "nosuch", "k"},
	{"xinfo", "stream", "s", "FULL"},
	{"memory", "usage", "k"},
	{"bitop", "and", "d", "s1", "s2"},
	{"lcs", "k1", "k2"},
	{"pfdebug", "getreg", "k"},
	{"get", "k", "extra"},
	{"publish", "c", "m"},
	{"spublish", "c", "m"},
	{"ping"},
}

// TestKeysMatchGetkeys compares Keys with each live server's COMMAND
// GETKEYS on thousands of argvs: generated ones for every command and
// subcommand, and the curated ones above.
func TestKeysMatchGetkeys(t *testing.T) {
	for target, srv := range liveServers(t) {
		t.Run(target, func(t *testing.T) {
			tab := MustLoad(target)
			rng := rand.New(rand.NewSource(1))
			all := slices.Clone(curated)
			for _, c := range tab.Commands {
				all = append(all, argvs(c, rng, 30)...)
			}
			client := srv.Client()
			checkGetkeys(t, tab, client, all)
		})
	}
}

func checkGetkeys(t *testing.T, tab *Table, client rueidis.Client, all [][]string) {
	ctx := context.Background()
	cmds := make(rueidis.Commands, 0, len(all))
	for _, argv := range all {
		cmds = append(cmds, client.B().Arbitrary("COMMAND", "GETKEYS").Args(argv...).Build())
	}
	results := client.DoMulti(ctx, cmds...)
	checked, withKeys := 0, 0
	for i, r := range results {
		argv := all[i]
		var want []string
		if err := r.Error(); err != nil {
			if _, ok := rueidis.IsRedisErr(err); !ok {
				t.Fatalf("GETKEYS %q: %v", argv, err)
			}
		} else if want, err = r.AsStrSlice(); err != nil {
			t.Fatalf("GETKEYS %q: %v", argv, err)
		}
		var got []string
		if c, ok := tab.Lookup(argv[0]); ok {
			for _, p := range c.Keys(argv) {
				got = append(got, argv[p])
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %q: Keys gives %q, COMMAND GETKEYS %q", tab.Target, argv, got, want)
		}
		checked++
		if len(want) > 0 {
			withKeys++
		}
	}
	if checked < 1000 || withKeys < 500 {
		t.Errorf("only %d argvs checked, %d with keys", checked, withKeys)
	}
	t.Logf("%s: %d argvs, %d with keys", tab.Target, checked, withKeys)
}
