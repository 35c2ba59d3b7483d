package verify

import (
	"strings"
	"testing"
)

// registerLibraries are libraries whose top-level code only registers
// functions, in the shapes scriptctl generates (manifest.FunctionBlock)
// and the positional form, among them loads every target refuses.
var registerLibraries = []string{
	"redis.register_function{function_name='lib_a_v1', callback=function(KEYS, ARGV)\nreturn 1\nend, flags={}}\n",
	"redis.register_function{function_name='lib_a_v1', callback=function(KEYS, ARGV)\nreturn redis.call('GET', KEYS[1])\nend, flags={'no-writes'}}\n" +
		"\nredis.register_function{function_name='lib_b_v1', callback=function(KEYS, ARGV)\nlocal x = 1\nreturn x\nend, flags={'no-writes', 'allow-stale', 'no-cluster'}}\n",
	"redis.register_function('f1', function(keys, args) return 1 end)\nredis.register_function('f2', function(keys, args) return 2 end)\n",
	"redis.register_function{function_name='f', callback=function() end, description='a function'}\n",
	// The names and flags without case, a number as a name or description.
	"redis.register_function{FUNCTION_NAME='f', Callback=function() end, FLAGS={'NO-WRITES', 'Allow-Oom'}, Description='d'}\n",
	"redis.register_function(12, function() end)\nredis.register_function{function_name=3.5, callback=function() end, description=4}\n",
	"redis.register_function{function_name='f', callback=function() end, flags={1}}\n",
	// Lua's table rules: the flags up to the first nil, the last of a
	// key given twice, names differing in case.
	"redis.register_function{function_name='f', callback=function() end, flags={'no-writes', nil, 'bogus'}}\n",
	"redis.register_function{function_name='bad name', callback=function() end, function_name='g'}\n",
	"redis.register_function{function_name='f', callback=function() end, flags={x='no-writes'}}\n",
	"redis.register_function('F', function() end)\nredis.register_function('f', function() end)\n",
	"local t = {function_name='f'}\nt.callback = function() end\nredis.register_function(t)\n",
	// Refused everywhere, in each target's words.
	"redis.register_function{function_name='bad name', callback=function() end}\n",
	"redis.register_function{function_name='f', callback=function() end}\nredis.register_function{function_name='f', callback=function() end}\n",
	"redis.register_function{function_name='f', callback=function() end, flags={'no-such-flag'}}\n",
	"redis.register_function{function_name='f', callback=function() end, flags={1}}\n",
	"redis.register_function{function_name='f'}\n",
	"redis.register_function{function_name=7, callback=function() end}\n",
	"redis.register_function{function_name='f', callback=function() end, other='x'}\n",
	"redis.register_function{callback=function() end}\n",
	"redis.register_function{}\n",
	"",
}

// TestRegistersOnly: the generated shapes are recognised; code that does
// anything else at load time (reads another global or field, branches,
// loops, calls anything but register_function, closes over a local,
// passes a value computed at load) is not.
func TestRegistersOnly(t *testing.T) {
	for _, body := range registerLibraries[:9] {
		if !RegistersOnly([]byte("#!lua name=lib\n" + body)) {
			t.Errorf("not recognised as registerLibraries only:\n%s", body)
		}
	}
	for _, body := range []string{
		"local v = redis.REDIS_VERSION\nredis.register_function('f', function() return v end)\n",
		"redis.log(redis.LOG_NOTICE, 'x')\nredis.register_function('f', function() end)\n",
		"if redis then redis.register_function('f', function() end) end\n",
		"for i = 1, 2 do redis.register_function('f' .. i, function() end) end\n",
		"server.register_function('f', function() end)\n",
		"redis.register_function(('f'):upper(), function() end)\n",
		"redis.register_function{function_name='f', callback=function() end, flags={('no-writes'):lower()}}\n",
		"local n = 'f'\nredis.register_function(n .. 'x', function() end)\n",
		"local x = 1\nredis.register_function('f', function() return x end)\n",
		"local f = function() end\nf()\nredis.register_function('f', f)\n",
		"redis.register_function('f', function() end)\nreturn 1\n",
		// A script whose text ends its function early, and runs code at
		// load time.
		"redis.register_function{function_name='f', callback=function(KEYS, ARGV)\nreturn 1\nend, flags={}}\nredis.setresp(3)\nredis.register_function{function_name='g', callback=function(KEYS, ARGV)\nend, flags={}}\n",
		"redis.register_function('f', function() end, 'extra')\n",
		"local t = {}\nsetmetatable(t, {})\nredis.register_function('f', function() end)\n",
		"x = 1\nredis.register_function('f', function() end)\n",
		"redis.register_function('f', function() end)\nlocal _ = (' '):rep(3)\n",
	} {
		// Each compiles: the shape, not a syntax error, is refused.
		if c := compileCached([]byte("\n"+body), "@user_function"); c.err != nil {
			t.Fatalf("%v:\n%s", c.err, body)
		}
		if RegistersOnly([]byte("#!lua name=lib\n" + body)) {
			t.Errorf("recognised as registerLibraries only:\n%s", body)
		}
	}
	if RegistersOnly([]byte("#!lua name=lib\nredis.register_function('f'\n")) {
		t.Error("code that does not compile recognised as registerLibraries only")
	}
	if RegistersOnly([]byte("redis.register_function('f', function() end)\n")) {
		t.Error("a library without its metadata line recognised as registerLibraries only")
	}
}

// TestRegistersOnlyAgrees is what RegistersOnly promises: for each such
// library, a load that succeeds on one target succeeds on every target;
// and LoadsOnEveryTarget says so exactly when every target's engine
// loads it.
func TestRegistersOnlyAgrees(t *testing.T) {
	for _, body := range registerLibraries {
		code := []byte("#!lua name=lib\n" + body)
		if !RegistersOnly(code) {
			t.Errorf("not recognised as registerLibraries only:\n%s", body)
			continue
		}
		var ok, refused []string
		for _, target := range Targets() {
			r, err := New(Options{Target: target, Once: true}).FunctionLoad(code, false)
			switch {
			case err != nil:
				t.Fatalf("%s: %v", target, err)
			case r.IsError():
				refused = append(refused, target+": "+r.Str)
			default:
				ok = append(ok, target)
			}
		}
		if len(ok) > 0 && len(refused) > 0 {
			t.Errorf("loaded on %s but refused on:\n%s\nlibrary:\n%s", strings.Join(ok, ", "), strings.Join(refused, "\n"), body)
		}
		// LoadsOnEveryTarget judges these without an engine, and as
		// every target's engine does.
		if got := LoadsOnEveryTarget(code, 0); got != (len(refused) == 0) {
			t.Errorf("LoadsOnEveryTarget %v, but refused on %d targets:\n%s\nlibrary:\n%s", got, len(refused), strings.Join(refused, "\n"), body)
		}
	}
	// A budget a load could reach is not judged without an engine.
	if code := []byte("#!lua name=lib\n" + registerLibraries[0]); LoadsOnEveryTarget(code, 5) || !LoadsOnEveryTarget(code, 0) {
		t.Error("LoadsOnEveryTarget ignores the load budget")
	}
	// Nor is code that does anything else while it loads.
	if LoadsOnEveryTarget([]byte("#!lua name=lib\nlocal v = redis.REDIS_VERSION\nredis.register_function('f', function() return v end)\n"), 0) {
		t.Error("LoadsOnEveryTarget judged code that reads a target's fact")
	}
}
