package verify

import (
	"context"
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
