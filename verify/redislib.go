package verify

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// The redis table of Redis 7.0.15: call, pcall, error_reply, status_reply,
// sha1hex, log, setresp, set_repl, replicate_commands, breakpoint, debug,
// acl_check_cmd and the LOG_* / REPL_* / REDIS_VERSION constants.

// Version constants of the default target, Redis 7.0.15 (other targets:
// target.go).
const (
	RedisVersion    = "7.0.15"
	RedisVersionNum = 0x07000f
)

func (r *scriptRun) redisTable() *lua.LTable {
	L := r.L
	t := L.NewTable()
	fn := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	fn("call", func(L *lua.LState) int { return r.redisCall(L, true) })
	fn("pcall", func(L *lua.LState) int { return r.redisCall(L, false) })
	fn("error_reply", func(L *lua.LState) int {
		s, ok := L.Get(1).(lua.LString)
		if L.GetTop() != 1 || !ok {
			L.Push(errTable(L, "ERR wrong number or type of arguments"))
			return 1
		}
		if len(s) == 0 || s[0] != '-' {
			s = "-" + s
		}
		if r.e.t.errorReplyBare && !strings.Contains(string(s), " ") {
			// "-text" without a space: "ERR " and the text, untrimmed.
			t := L.NewTable()
			t.RawSetString("err", "ERR "+s[1:])
			L.Push(t)
			return 1
		}
		L.Push(errTableC(L, string(s)))
		return 1
	})
	fn("status_reply", func(L *lua.LState) int {
		s, ok := L.Get(1).(lua.LString)
		if L.GetTop() != 1 || !ok {
			L.Push(errTable(L, "ERR wrong number or type of arguments"))
			return 1
		}
		out := L.CreateTable(0, 1)
		out.RawSetString("ok", s)
		L.Push(out)
		return 1
	})
	fn("sha1hex", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			L.Error(errTable(L, "ERR wrong number of arguments"), 0)
		}
		sum := sha1.Sum([]byte(luaToString(L.Get(1))))
		L.Push(lua.LString(hex.EncodeToString(sum[:])))
		return 1
	})
	fn("log", func(L *lua.LState) int {
		if L.GetTop() < 2 {
			L.Error(errTable(L, r.e.t.text("ERR redis.log() requires two arguments or more.")), 0)
		}
		n, ok := L.Get(1).(lua.LNumber)
		if !ok {
			L.Error(errTable(L, "ERR First argument must be a number (log level)."), 0)
		}
		if n < 0 || n > 3 {
			L.Error(errTable(L, r.e.t.text("ERR Invalid debug level.")), 0)
		}
		return 0 // offline: nothing is logged
	})
	fn("setresp", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			L.Error(errTable(L, r.e.t.text("ERR redis.setresp() requires one argument.")), 0)
		}
		// lua_tonumber, then a cast to int: '3' and 3.9 are 3, anything
		// that is not a number is 0.
		f, _ := lualib.ToNumber(L.Get(1))
		n := cInt32(f)
		if n != 2 && n != 3 {
			L.Error(errTable(L, "ERR RESP version must be 2 or 3."), 0)
		}
		r.resp3 = n == 3
		return 0
	})
	fn("set_repl", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			// Redis 7.0.15's text says "two" although it wants one.
			L.Error(errTable(L, r.e.t.text("ERR redis.set_repl() requires two arguments.")), 0)
		}
		// lua_tonumber: anything that is not a number (or a string Lua
		// converts) counts as 0, REPL_NONE.
		f, _ := lualib.ToNumber(L.Get(1))
		if cInt32(f)&^3 != 0 {
			L.Error(errTable(L, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."), 0)
		}
		return 0
	})
	fn("replicate_commands", func(L *lua.LState) int {
		L.Push(lua.LTrue)
		return 1
	})
	fn("breakpoint", func(L *lua.LState) int {
		L.Push(lua.LFalse)
		return 1
	})
	fn("debug", func(L *lua.LState) int { return 0 })
	fn("acl_check_cmd", func(L *lua.LState) int {
		if L.GetTop() == 0 {
			L.Error(errTable(L, r.e.t.text("ERR Please specify at least one argument for this redis lib call")), 0)
		}
		name, _ := L.Get(1).(lua.LString)
		if _, ok := r.e.t.command(lowerASCII(string(name))); !ok {
			L.Error(errTable(L, r.e.t.text("ERR Invalid command passed to redis.acl_check_cmd()")), 0)
		}
		L.Push(lua.LTrue)
		return 1
	})
	for name, v := range map[string]int{
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3,
		"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
	} {
		t.RawSetString(name, lua.LNumber(v))
	}
	f := r.e.t
	t.RawSetString("REDIS_VERSION", lua.LString(f.redisVersion))
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(f.redisVersionNum))
	if f.valkeyVersion != "" {
		t.RawSetString("VALKEY_VERSION", lua.LString(f.valkeyVersion))
		t.RawSetString("VALKEY_VERSION_NUM", lua.LNumber(f.valkeyVersionNum))
		t.RawSetString("SERVER_NAME", lua.LString(f.serverName))
	}
	return t
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// redisCall is redis.call (raise) and redis.pcall.
func (r *scriptRun) redisCall(L *lua.LState, raise bool) int {
	n := L.GetTop()
	fail := func(text string) int {
		t := errTable(L, text)
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	if n == 0 {
		return fail(r.e.t.text("ERR Please specify at least one argument for this redis lib call"))
	}
	args := make([]string, n)
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			args[i-1] = string(v)
		case lua.LNumber:
			args[i-1] = r.e.t.numArg(float64(v))
		default:
			if r == r.e.funcs.run {
				r.e.funcs.badArgv = true
			}
			return fail(r.e.t.text("ERR Lua redis lib command arguments must be strings or integers"))
		}
	}
	if r == r.e.funcs.run {
		r.e.funcs.badArgv = false
	}
	reply, err := r.e.exec(r, args)
	if err != nil {
		re, ok := err.(*RunError)
		if !ok {
			re = &RunError{Code: CodeNotImplemented, Msg: err.Error()}
		}
		r.fail(L, re)
	}
	if reply.Kind == Error {
		t := cmdErrTable(L, reply.Str)
		if raise {
			L.Error(t, 0)
		}
		L.Push(t)
		return 1
	}
	if r.resp3 {
		args[0] = lowerASCII(args[0])
		L.Push(toLua3(L, resp3Reply(args, reply)))
		return 1
	}
	L.Push(toLua(L, reply))
	return 1
}
