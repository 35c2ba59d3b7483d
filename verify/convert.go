package verify

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/scriptctl/scriptctl/verify/lualib"
)

// Conversions between Lua values and RESP2 replies, as Redis 7.0 does them
// (script_lua.c: redisProtocolToLuaType, luaReplyToRedisReply).

// toLua converts a command's reply for redis.call: integer -> number, bulk
// -> string, nil -> false, status -> {ok=s}, error -> {err=s}, array ->
// table (nil elements become false).
func toLua(L *lua.LState, r Reply) lua.LValue {
	switch r.Kind {
	case Int:
		return lua.LNumber(float64(r.Int))
	case Bulk:
		return lua.LString(r.Str)
	case Status:
		// One field: NewTable's room for 32 would cost every status
		// reply a map the script never fills.
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(r.Str))
		return t
	case Error:
		return errTable(L, r.Str)
	case Array:
		t := L.CreateTable(len(r.Elems), 0)
		for i, e := range r.Elems {
			t.RawSetInt(i+1, toLua(L, e))
		}
		return t
	}
	return lua.LFalse
}

// errTable is the error table of a command or script-layer error whose
// text carries its code ("ERR syntax error", "WRONGTYPE ...").
func errTable(L *lua.LState, text string) *lua.LTable {
	return errTableC(L, "-"+text)
}

// errTableC is luaPushErrorBuff: "-CODE message" keeps its code, any other
// text gets "ERR"; the message is trimmed of CR and LF at both ends.
func errTableC(L *lua.LState, raw string) *lua.LTable {
	code, msg := "ERR", raw
	if rest, ok := strings.CutPrefix(raw, "-"); ok {
		msg = rest
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			code, msg = rest[:i], rest[i+1:]
		}
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(code+" "+strings.Trim(msg, "\r\n")))
	return t
}

// sanitize replaces CR and LF with spaces, byte by byte, as Redis does in
// error and status replies.
func sanitize(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\r' || c == '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// cString is what C sees of a Lua string: the bytes before the first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// fromLua converts a script's return value as luaReplyToRedisReply does
// for a RESP2 client: number -> integer (truncated toward zero), string ->
// bulk, true -> 1, false -> nil (after redis.setresp(3) a RESP3 boolean: 1
// or 0), a table with a string err -> error, with a string ok -> status,
// with a number double -> the double as a bulk string, with a string
// big_number -> bulk, with a verbatim_string table holding string format
// and string -> bulk, with a table map -> its keys and values flattened,
// with a table set -> its keys, any other table -> array of t[1], t[2], ...
// up to the first nil; nil and anything else -> nil. The fields are tried
// in that order. Maps and sets are walked in the order of next.
func (r *scriptRun) fromLua(v lua.LValue, depth int) (Reply, error) {
	switch x := v.(type) {
	case lua.LNumber:
		return IntReply(cInt(float64(x))), nil
	case lua.LString:
		return BulkReply(string(x)), nil
	case lua.LBool:
		switch {
		case x == lua.LTrue:
			return IntReply(1), nil
		case r.resp3:
			return IntReply(0), nil
		}
		return NilReply(), nil
	case *lua.LTable:
		if depth >= maxReplyDepth {
			return Reply{}, notImplemented("a reply nested deeper than %d levels (Redis stops at its Lua stack limit)", maxReplyDepth)
		}
		if s, ok := x.RawGetString("err").(lua.LString); ok {
			// addReplyErrorFormat: trailing CR/LF trimmed, the rest mapped.
			return ErrorReply(sanitize(strings.TrimRight(cString(string(s)), "\r\n"))), nil
		}
		if s, ok := x.RawGetString("ok").(lua.LString); ok {
			return StatusReply(sanitize(cString(string(s)))), nil
		}
		if n, ok := x.RawGetString("double").(lua.LNumber); ok {
			return BulkReply(r.e.t.replyDouble(float64(n))), nil
		}
		if s, ok := x.RawGetString("big_number").(lua.LString); ok {
			if r.e.t.bigNumberCString {
				s = lua.LString(cString(string(s)))
			}
			return BulkReply(sanitize(string(s))), nil
		}
		if vt, ok := x.RawGetString("verbatim_string").(*lua.LTable); ok {
			_, okf := vt.RawGetString("format").(lua.LString)
			s, oks := vt.RawGetString("string").(lua.LString)
			if okf && oks {
				return BulkReply(string(s)), nil
			}
		}
		if m, ok := x.RawGetString("map").(*lua.LTable); ok {
			elems := []Reply{}
			for k, val := range r.orderedPairs(m) {
				kr, err := r.fromLua(k, depth+1)
				if err != nil {
					return Reply{}, err
				}
				vr, err := r.fromLua(val, depth+1)
				if err != nil {
					return Reply{}, err
				}
				elems = append(elems, kr, vr)
			}
			return ArrayReply(elems...), nil
		}
		if m, ok := x.RawGetString("set").(*lua.LTable); ok {
			elems := []Reply{}
			for k := range r.orderedPairs(m) {
				kr, err := r.fromLua(k, depth+1)
				if err != nil {
					return Reply{}, err
				}
				elems = append(elems, kr)
			}
			return ArrayReply(elems...), nil
		}
		elems := []Reply{}
		for i := 1; ; i++ {
			e := lualib.RawGetInt(x, i)
			if e == lua.LNil {
				break
			}
			er, err := r.fromLua(e, depth+1)
			if err != nil {
				return Reply{}, err
			}
			elems = append(elems, er)
		}
		return ArrayReply(elems...), nil
	}
	return NilReply(), nil
}
