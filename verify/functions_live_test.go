package verify

import (
	"context"
	"testing"
)

const testLibrary = `#!lua name=lib1
local function boom(keys, args) error('boom') end
redis.register_function('boom', boom)
redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('set', keys[1], 'b') end, flags={'no-writes'}}
redis.register_function{function_name='w', callback=function(keys, args) return {keys[1], args[1], #keys} end}
redis.register_function{function_name='g', callback=function(keys, args) return KEYS end}
redis.register_function{function_name='get', callback=function(keys, args) return redis.call('GET', keys[1]) end, flags={'no-writes'}}
`

// TestLiveFunctions compares FUNCTION LOAD and FCALL replies with a real
// redis-server.
func TestLiveFunctions(t *testing.T) {
	if testing.Short() {
		t.Skip("live differential: needs redis-server")
	}
	live := liveServer(t)
	ctx := context.Background()
	e := New(Options{Target: liveTarget(t), Topology: TopologyStandalone})
	steps := [][]string{
		{"FUNCTION", "LOAD", testLibrary},
		{"FUNCTION", "LOAD", testLibrary},
		{"FUNCTION", "LOAD", "REPLACE", testLibrary},
		{"FCALL", "boom", "0"},
		{"FCALL", "ro", "1", "k"},
		{"FCALL_RO", "w", "1", "k"},
		{"FCALL", "w", "1", "k", "a"},
		{"FCALL", "g", "0"},
		{"FCALL_RO", "get", "1", "k"},
		{"FCALL", "nosuch", "0"},
		{"FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('x', function() return 1 end)"},
		{"FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('boom', function() return 1 end)"},
		{"FUNCTION", "LOAD", "#!lua name=lib3\nredis.call('get','x')"},
		{"FUNCTION", "LOAD", "#!lua name=lib3\n"},
		{"FUNCTION", "LOAD", "#!lua\n"},
		{"FUNCTION", "LOAD", "#!lua name=a-b\n"},
		{"FUNCTION", "LOAD", "return 1"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nx = 1"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function('a b', function() return 1 end)"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function('f1', function() return 1 end, 'x')"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function{function_name='f1', callback=function() return 1 end, flags={'bad'}}"},
		{"FUNCTION", "LOAD", "#!lua name=lib4 flags=no-writes\n"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nerror('x')"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nreturn 1 +"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function('f1', 1)"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function{function_name='f1', callback=function() return 1 end, foo=1}"},
		{"FUNCTION", "LOAD", "#!lua name=lib4\nredis.register_function('f1', function() end) redis.register_function('f1', function() end)"},
		{"FUNCTION", "LOAD", "#!lua name=lib5\nlocal v = redis.REDIS_VERSION\nredis.register_function('v5', function() return v end)"},
		{"FCALL", "v5", "0"},
		{"FUNCTION", "LOAD", "#!lua name=lib6\nlocal function helper() return string.upper('x') end\nredis.register_function('h6', function() return helper() end)"},
		{"FCALL", "h6", "0"},
		{"FUNCTION", "LOAD", "#!lua name=lib7\nredis.register_function('r7', function() return redis.replicate_commands() end)\nredis.register_function('b7', function() return redis.breakpoint() end)\nredis.register_function('s7', function() return redis.setresp(2) end)\nredis.register_function('n7', function(keys) return tostring(0.1 + 0.2) .. #keys end)"},
		{"FCALL", "r7", "0"},
		{"FCALL", "b7", "0"},
		{"FCALL", "s7", "0"},
		{"FCALL", "n7", "1", "k"},
		{"FCALL", "N7", "1", "k"},
		{"FUNCTION", "LOAD", "#!lua name=LIB7\nredis.register_function('other', function() return 1 end)"},
		{"FUNCTION", "LOAD", "#!lua name=lib8\nredis.register_function('R7', function() return 1 end)"},
		{"FUNCTION", "LOAD", "#!lua name=lib9\nredis.register_function('a9', function() return 1 end) redis.register_function('A9', function() return 2 end)"},
	}
	for _, s := range steps {
		if len(s) > 1 && s[0] == "FCALL" && s[1] == "v5" && patchBuild(t) {
			continue // REDIS_VERSION is the patch build's own
		}
		want := live(s...)
		got, err := e.Do(ctx, s...)
		if err != nil {
			t.Fatalf("%q: %v (live %s)", s, err, want)
		}
		if !got.Equal(want) {
			t.Errorf("%q:\noffline %s\nlive    %s", s, got, want)
		}
	}
}
