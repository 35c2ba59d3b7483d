package verify

import (
	"context"
	"strings"
	"testing"
)

// TestLibTableOrder: the library tables iterate in the order Redis 7.0.15
// and Valkey 8.1.1 gave live (redis-cli, pairs over each), with next, pairs
// and table.foreach alike; Valkey's server is its redis table.
func TestLibTableOrder(t *testing.T) {
	ctx := context.Background()
	cases := []struct{ target, lib, want string }{
		{"redis-7.0", "string", "sub upper len gfind rep find match char dump gmatch reverse byte format gsub lower"},
		{"redis-7.0", "math", "log max acos huge ldexp pi cos tanh pow deg tan cosh sinh random randomseed frexp ceil floor rad abs sqrt modf asin min mod fmod log10 atan2 exp sin atan"},
		{"redis-7.0", "cjson", "_NAME encode decode_max_depth _VERSION decode_invalid_numbers encode_keep_buffer null encode_number_precision new encode_max_depth encode_invalid_numbers decode encode_sparse_array"},
		{"redis-7.0", "redis", "log LOG_WARNING error_reply REPL_AOF call REPL_ALL REDIS_VERSION_NUM REPL_SLAVE pcall LOG_NOTICE set_repl debug LOG_DEBUG sha1hex REDIS_VERSION status_reply acl_check_cmd REPL_REPLICA breakpoint setresp replicate_commands LOG_VERBOSE REPL_NONE"},
		{"valkey-8.1", "table", "getn foreachi concat setn insert remove sort maxn foreach"},
		{"valkey-8.1", "cmsgpack", "unpack_one _VERSION _DESCRIPTION _COPYRIGHT _NAME unpack_limit unpack pack"},
		{"valkey-8.1", "server", "SERVER_NAME LOG_DEBUG replicate_commands pcall REDIS_VERSION LOG_VERBOSE error_reply acl_check_cmd set_repl REPL_REPLICA REPL_ALL LOG_NOTICE REPL_SLAVE VALKEY_VERSION VALKEY_VERSION_NUM REPL_AOF sha1hex REPL_NONE LOG_WARNING debug call status_reply log REDIS_VERSION_NUM breakpoint setresp"},
	}
	for _, c := range cases {
		e := New(Options{Target: c.target})
		for _, walk := range []string{
			"local o = {} for k in pairs(" + c.lib + ") do o[#o+1] = k end return table.concat(o, ' ')",
			"local o = {} local k = next(" + c.lib + ") while k do o[#o+1] = k k = next(" + c.lib + ", k) end return table.concat(o, ' ')",
			"local o = {} table.foreach(" + c.lib + ", function(k) o[#o+1] = k end) return table.concat(o, ' ')",
		} {
			r, err := e.Eval(ctx, []byte(walk), nil, nil)
			if err != nil || r.Str != c.want {
				t.Errorf("%s %s: %s %v\nwant %s", c.target, walk, r, err, c.want)
			}
			if w := e.Warnings(); len(w) != 0 {
				t.Errorf("%s %s: warned %q", c.target, c.lib, w)
			}
		}
	}
}

// TestGlobalsOrder: _G iterates in the order each server gave live
// (redis-cli, pairs over _G as EVAL and as FCALL: a function's _G is the
// Functions state's, without the error handler, KEYS and ARGV), with
// pairs, next and table.foreach alike, unwarned; cmsgpack.pack and
// cjson.encode see _G itself, in that order. Valkey 9.1 builds its
// states as 8.1 does.
func TestGlobalsOrder(t *testing.T) {
	ctx := context.Background()
	const (
		r70 = "string xpcall __redis__err__handler tostring _VERSION unpack setmetatable next assert tonumber rawequal collectgarbage struct getmetatable ARGV _G cjson math pcall KEYS redis type bit cmsgpack select rawset gcinfo rawget loadstring table coroutine pairs ipairs error load"
		f70 = "string xpcall tostring _VERSION unpack setmetatable next assert tonumber rawequal collectgarbage struct getmetatable _G cjson math pcall redis type bit cmsgpack select rawset gcinfo rawget loadstring table coroutine pairs ipairs error load"
		r80 = "string xpcall __redis__err__handler tostring _VERSION os unpack setmetatable next assert tonumber rawequal collectgarbage struct getmetatable ARGV _G cjson math pcall KEYS redis type bit cmsgpack select rawset rawget loadstring gcinfo coroutine table pairs ipairs error load"
		f80 = "string xpcall tostring _VERSION os unpack setmetatable next assert tonumber rawequal collectgarbage struct getmetatable _G cjson math pcall redis type bit cmsgpack select rawset rawget loadstring gcinfo coroutine table pairs ipairs error load"
		v81 = "type rawequal tostring _G load string error select _VERSION coroutine gcinfo setmetatable assert cjson pcall ARGV rawset next KEYS tonumber __server__err__handler redis collectgarbage server loadstring xpcall bit cmsgpack pairs unpack ipairs table os math struct rawget __redis__err__handler getmetatable"
		g81 = "type rawequal tostring _G load string error select _VERSION coroutine gcinfo setmetatable assert cjson pcall rawset next redis collectgarbage server loadstring xpcall bit cmsgpack pairs unpack ipairs table os math struct rawget tonumber getmetatable"
	)
	cases := []struct{ target, eval, fcall string }{
		{"redis-7.0", r70, f70},
		{"redis-8.0", r80, f80},
		{"valkey-8.1", v81, g81},
		{"valkey-9.1", v81, g81},
	}
	walks := []string{
		"local o = {} for k in pairs(_G) do o[#o+1] = k end return table.concat(o, ' ')",
		"local o = {} local k = next(_G) while k do o[#o+1] = k k = next(_G, k) end return table.concat(o, ' ')",
		"local o = {} table.foreach(_G, function(k) o[#o+1] = k end) return table.concat(o, ' ')",
		"local o = {} local s = cmsgpack.pack(_G) " +
			"local i = 4 while i <= #s do local n = s:byte(i) - 0xa0 local k = s:sub(i+1, i+n) o[#o+1] = k i = i + n + 1 " +
			"local v = s:byte(i) if v == 0xc0 then i = i + 1 else return table.concat(o, ' ') end end return table.concat(o, ' ')",
	}
	for _, c := range cases {
		e := New(Options{Target: c.target})
		for i, walk := range walks {
			want := c.eval
			if i == 3 {
				// the walk reads the keys of functions, up to the first
				// key whose value is not one (a table: string, _G)
				var keys []string
				for _, k := range strings.Fields(want) {
					keys = append(keys, k)
					if k == "string" || k == "_G" {
						break
					}
				}
				want = strings.Join(keys, " ")
			}
			r, err := e.Eval(ctx, []byte(walk), nil, nil)
			if err != nil || r.Str != want {
				t.Errorf("%s EVAL %s: %s %v\nwant %s", c.target, walk, r, err, want)
			}
			if w := e.Warnings(); len(w) != 0 {
				t.Errorf("%s EVAL: warned %q", c.target, w)
			}
			if i == 3 {
				continue
			}
			lib := "#!lua name=g\nredis.register_function('g', function(KEYS, ARGV) " + walk + " end)"
			if r, err := e.FunctionLoad([]byte(lib), true); err != nil || r.Str != "g" {
				t.Fatalf("%s FUNCTION LOAD: %s %v", c.target, r, err)
			}
			r, err = e.FCall(ctx, "g", nil, nil)
			if err != nil || r.Str != c.fcall {
				t.Errorf("%s FCALL %s: %s %v\nwant %s", c.target, walk, r, err, c.fcall)
			}
			if w := e.Warnings(); len(w) != 0 {
				t.Errorf("%s FCALL: warned %q", c.target, w)
			}
		}
	}
}
