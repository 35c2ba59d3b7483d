package cmdtable

import (
	"slices"
	"strings"
	"testing"
)

func TestTargetsLoad(t *testing.T) {
	want := map[string][2]string{ // target: server, version prefix
		"redis-7.0": {"redis", "7.0."}, "redis-7.2": {"redis", "7.2."}, "redis-7.4": {"redis", "7.4."},
		"redis-8.0": {"redis", "8.0."}, "valkey-7.2": {"valkey", "7.2."}, "valkey-8.0": {"valkey", "8.0."},
		"valkey-8.1": {"valkey", "8.1."},
	}
	got := Targets()
	for target, sv := range want {
		if !slices.Contains(got, target) {
			t.Errorf("target %s not recorded (have %v)", target, got)
			continue
		}
		tab, err := Load(target)
		if err != nil {
			t.Fatal(err)
		}
		if tab.Server != sv[0] || !strings.HasPrefix(tab.Version, sv[1]) {
			t.Errorf("%s records %s %s", target, tab.Server, tab.Version)
		}
		if !strings.HasPrefix(tab.RecordedWith, "go run ./internal/cmdtable/record ") {
			t.Errorf("%s: recorded_with %q", target, tab.RecordedWith)
		}
		get, ok := tab.Lookup("GET")
		if !ok || get.Arity != 2 || get.Write() || !slices.Equal(get.Keys([]string{"get", "k"}), []int{1}) {
			t.Errorf("%s: GET is %+v", target, get)
		}
	}
	if _, err := Load("redis-6.2"); err == nil {
		t.Error("Load(redis-6.2): no error")
	}
	if _, err := Load("../data/redis-7.0"); err == nil {
		t.Error("Load with a path: no error")
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name           string
		ok             bool
		arity          int
		write, noscrip bool
	}{
		{"set", true, -3, true, false},
		{"SET", true, -3, true, false},
		{"Object|Encoding", true, 3, false, false},
		{"object|nosuch", false, 0, false, false},
		{"eval", true, -3, false, true},
		{"waitaof", false, 0, false, false}, // Redis 7.2
		{"nosuch", false, 0, false, false},
	}
	for _, tt := range tests {
		c, ok := Lookup("redis-7.0", tt.name)
		if ok != tt.ok {
			t.Errorf("Lookup(%q) ok %v", tt.name, ok)
			continue
		}
		if ok && (c.Arity != tt.arity || c.Write() != tt.write || c.Noscript() != tt.noscrip) {
			t.Errorf("Lookup(%q) = arity %d write %v noscript %v", tt.name, c.Arity, c.Write(), c.Noscript())
		}
	}
	obj, _ := Lookup("redis-7.0", "object")
	enc, ok := obj.Sub("ENCODING")
	if !ok || enc.Parent() != obj || len(obj.Subcommands) < 5 {
		t.Errorf("OBJECT subcommands: %v %v", ok, len(obj.Subcommands))
	}
	if _, ok := Lookup("redis-9.9", "get"); ok {
		t.Error("Lookup in an unknown target found GET")
	}
	if _, ok := Lookup("redis-7.2", "waitaof"); !ok {
		t.Error("redis-7.2 has no WAITAOF")
	}
}

// TestKeys pins key positions of the commands whose keys move, on Redis
// 7.0 (TestKeysMatchGetkeys checks them all against live servers).
func TestKeys(t *testing.T) {
	tests := []struct {
		argv string
		want []int
	}{
		{"get k", []int{1}},
		{"get k x", nil}, // wrong arity
		{"mset k1 v1 k2 v2", []int{1, 3}},
		{"mset k1 v1 k2", []int{1, 3}}, // MSET itself reports the syntax error
		{"del a b c", []int{1, 2, 3}},
		{"bitop and d s1 s2", []int{2, 3, 4}},
		{"sort k store d", []int{1, 3}},
		{"sort k limit store 1 store d1 STORE d2", []int{1, 8}},
		{"sort k by store", []int{1}},
		{"sort_ro k by w_* get o_*", []int{1}},
		{"xread count 1 streams s1 s2 0 0", []int{4, 5}},
		{"xread streams s1 s2 0", []int{2}}, // the spec takes half the rest, rounded down
		{"xreadgroup group g c streams s 0", []int{5}},
		{"lmpop 2 l1 l2 left", []int{2, 3}},
		{"lmpop 0 l1 left", nil},
		{"lmpop x l1 left", nil},
		{"blmpop 0 2 l1 l2 left", []int{3, 4}},
		{"zunionstore d 2 z1 z2", []int{1, 3, 4}},
		{"zunionstore d 01 z1 z2", []int{3, 1}}, // numkeys not strict: getkeys proc, dest last
		{"zunionstore d 4294967297 z1 z2", []int{1, 3}},
		{"eval s 1 k a", []int{3}},
		{"eval s 0", nil},
		{"fcall f 2 k1 k2", []int{3, 4}},
		{"georadius g 0 0 1 km store d", []int{1, 7}},
		{"georadius g 0 0 1 km store d storedist e", []int{1, 7, 9}},
		{"migrate h p k 0 1", []int{3}},
		{"migrate h p \"\" 0 1 keys a b", []int{7, 8}},
		{"migrate h p \"\" 0 1 auth keys keys a", []int{9}},
		{"set k v get", []int{1}},
		{"object encoding k", []int{2}},
		{"object nosuch k", nil},
		{"memory usage k", []int{2}},
		{"ping", nil},
		{"publish c m", nil},
	}
	for _, tt := range tests {
		argv := strings.Fields(tt.argv)
		for i, a := range argv {
			if a == `""` {
				argv[i] = ""
			}
		}
		c, ok := Lookup("redis-7.0", argv[0])
		if !ok {
			t.Fatalf("no %s", argv[0])
		}
		if got := c.Keys(argv); !slices.Equal(got, tt.want) {
			t.Errorf("Keys(%s) = %v, want %v", tt.argv, got, tt.want)
		}
	}
	// Redis 7.4 on rejects a numkeys beyond a C int in the spec and falls
	// back to the procedure, which lists the destination last; Valkey
	// lets it wrap, as 7.0 does.
	for target, want := range map[string][]int{"redis-7.2": {1, 3}, "redis-7.4": {3, 1}, "redis-8.0": {3, 1}, "valkey-8.1": {1, 3}} {
		c, _ := Lookup(target, "zunionstore")
		if got := c.Keys(strings.Fields("zunionstore d 4294967297 z1 z2")); !slices.Equal(got, want) {
			t.Errorf("%s zunionstore with a wrapping numkeys: %v, want %v", target, got, want)
		}
	}
}

// TestKeysPartial covers a call known only in part: unknown arguments
// match no keyword and are no numkeys, and what the specs that still hold
// give is kept.
func TestKeysPartial(t *testing.T) {
	tests := []struct {
		argv string // "?" is an argument of unknown text
		want []int
	}{
		{"get ?", []int{1}},
		{"zunionstore ? ? ? ?", []int{1}},
		{"zunionstore ? 2 ? ?", []int{1, 3, 4}},
		{"sort ? store ?", []int{1, 3}},
		{"sort ? ? ?", []int{1}},
		{"xread streams ? ? ? ?", []int{2, 3}},
		{"xread ? streams ? ?", []int{3}},
		{"eval ? 1 ? ?", []int{3}},
		{"georadius ? 0 0 1 km storedist ?", []int{1, 7}},
		{"object encoding ?", []int{2}},
		{"object ? ?", nil},
		{"mset ? ? ?", []int{1, 3}},
		{"get", nil},
	}
	for _, tt := range tests {
		argv := strings.Fields(tt.argv)
		lit := func(i int) (string, bool) { return argv[i], argv[i] != "?" }
		c, _ := Lookup("redis-7.0", argv[0])
		if got := c.KeysPartial(len(argv), lit, false); !slices.Equal(got, tt.want) {
			t.Errorf("KeysPartial(%s) = %v, want %v", tt.argv, got, tt.want)
		}
	}
}

// TestKeysPartialNotKeys: a shard channel is no key to COMMAND GETKEYS,
// but routes like one when asked for.
func TestKeysPartialNotKeys(t *testing.T) {
	c, _ := Lookup("redis-7.0", "spublish")
	argv := []string{"spublish", "ch", "m"}
	lit := func(i int) (string, bool) { return argv[i], true }
	if got := c.Keys(argv); got != nil {
		t.Errorf("Keys(spublish) = %v", got)
	}
	if got := c.KeysPartial(3, lit, false); got != nil {
		t.Errorf("KeysPartial(spublish, no not_key) = %v", got)
	}
	if got := c.KeysPartial(3, lit, true); !slices.Equal(got, []int{1}) {
		t.Errorf("KeysPartial(spublish, not_key) = %v", got)
	}
}

func TestVersionBelow(t *testing.T) {
	for v, want := range map[string]bool{"7.2.6": true, "7.4.0": false, "7.4.1": false, "8.0.2": false,
		"7.10.0": false, "6.2.14": true, "": true, "x.y": true} {
		if got := versionBelow(v, 7, 4); got != want {
			t.Errorf("versionBelow(%q, 7, 4) = %v", v, got)
		}
	}
}

func TestCAtoi(t *testing.T) {
	tests := map[string]int{
		"": 0, "x": 0, "2": 2, " 2": 2, "\t\n+3": 3, "2abc": 2, "-1": -1, "01": 1,
		"4294967297": 1, "2147483648": -2147483648, "99999999999999999999": -1, "-99999999999999999999": 0,
	}
	for s, want := range tests {
		if got := cAtoi(s); got != want {
			t.Errorf("cAtoi(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, bad := range []string{
		`{"target":"x","commands":[{"name":"a"},{"name":"a"}]}`,
		`{"target":"x","commands":[{"name":"a|b"}]}`,
		`{"target":"x","commands":[],"extra":1}`,
		`{`,
	} {
		if _, err := Decode(strings.NewReader(bad)); err == nil {
			t.Errorf("Decode(%s): no error", bad)
		}
	}
}
