package verify

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// RESP3 inside scripts. After redis.setresp(3), a script's Redis client
// speaks RESP3: redis.call's replies reach Lua as script_lua.c's
// redisProtocolToLuaType_* build them (a map is {map={k=v}}, a set
// {set={m=true}}, a double {double=n}, a null nil, a boolean a Lua
// boolean), and a Lua boolean returned goes out as a RESP3 boolean, which
// a RESP2 client reads as 1 or 0. The engine's handlers answer RESP2;
// resp3Reply reshapes their reply into the command's RESP3 shape (from
// the sources' addReplyMapLen, addReplySetLen, addReplyDouble and
// addReplyHumanLongDouble calls, checked live: difftest lua_resp3.yaml).
// The clients themselves stay RESP2, so the script's reply is converted
// down as addReply* does for a RESP2 client (fromLua).

// RESP3 kinds of a reshaped reply. They live only between resp3Reply and
// toLua3 and never reach a caller.
const (
	kind3Map    Kind = 100 + iota // Elems: key, value, key, value, ...
	kind3Set                      // Elems: the members
	kind3Double                   // Str: the double as the RESP2 reply printed it
)

// toLua3 converts a reshaped reply for redis.call in RESP3 mode.
func toLua3(L *lua.LState, r Reply) lua.LValue {
	switch r.Kind {
	case Nil:
		return lua.LNil
	case Int:
		return lua.LNumber(float64(r.Int))
	case Bulk:
		return lua.LString(r.Str)
	case Status:
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(r.Str))
		return t
	case Error:
		return cmdErrTable(L, r.Str)
	case Array:
		t := L.CreateTable(len(r.Elems), 0)
		for i, e := range r.Elems {
			// A null element leaves a hole, as lua_settable with nil does.
			if v := toLua3(L, e); v != lua.LNil {
				t.RawSetInt(i+1, v)
			}
		}
		return t
	case kind3Map:
		m := L.NewTable()
		for i := 0; i+1 < len(r.Elems); i += 2 {
			k, v := toLua3(L, r.Elems[i]), toLua3(L, r.Elems[i+1])
			if k != lua.LNil {
				m.RawSet(k, v)
			}
		}
		t := L.NewTable()
		t.RawSetString("map", m)
		return t
	case kind3Set:
		s := L.NewTable()
		for _, e := range r.Elems {
			if k := toLua3(L, e); k != lua.LNil {
				s.RawSet(k, lua.LTrue)
			}
		}
		t := L.NewTable()
		t.RawSetString("set", s)
		return t
	case kind3Double:
		t := L.NewTable()
		t.RawSetString("double", lua.LNumber(parseReplyDouble(r.Str)))
		return t
	}
	return lua.LNil
}

// cmdErrTable is the error table of a command's error reply, as
// redisProtocolToLuaType_Error builds it: the err text, and the
// ignore_error_stats_update flag Redis adds.
func cmdErrTable(L *lua.LState, text string) *lua.LTable {
	t := errTable(L, text)
	t.RawSetString("ignore_error_stats_update", lua.LTrue)
	return t
}

// parseReplyDouble reads a double the engine printed in a RESP2 reply
// ("%.17g", the shortest form, "inf", a human long double): RESP3's
// double carries the same value, which the reply parser reads with strtod.
func parseReplyDouble(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64) // a range error comes with the rounded value
	return f
}

// resp3Reply gives the RESP2 reply r of command args (args[0] lowercased)
// the shape the command has in RESP3. Errors and replies that do not
// differ pass unchanged.
func resp3Reply(args []string, r Reply) Reply {
	if r.Kind == Error || r.Kind == Nil {
		return r
	}
	name := args[0]
	switch name {
	case "zscore", "zincrby", "zadd":
		if r.Kind == Bulk { // ZADD replies a score only with INCR
			return double3(r)
		}
	case "zmscore":
		return mapElems(r, double3)
	case "hgetall":
		return map3(r)
	case "hrandfield":
		if len(args) == 4 { // WITHVALUES
			return pairs3(r, nil)
		}
	case "smembers", "sinter", "sunion", "sdiff":
		return set3(r)
	case "spop":
		if len(args) == 3 {
			return set3(r)
		}
	case "zrange", "zrangebyscore", "zrevrange", "zrevrangebyscore":
		if len(args) > 4 && hasWord(args[4:], "withscores") {
			return pairs3(r, double3)
		}
	case "zunion", "zinter", "zdiff":
		if n, err := strconv.Atoi(args[1]); err == nil && n >= 0 && 2+n <= len(args) && hasWord(args[2+n:], "withscores") {
			return pairs3(r, double3)
		}
	case "zrandmember":
		if len(args) == 4 {
			return pairs3(r, double3)
		}
	case "zpopmin", "zpopmax":
		if len(args) >= 3 {
			return pairs3(r, double3)
		}
		return elemAt(r, 1, double3)
	case "bzpopmin", "bzpopmax":
		return elemAt(r, 2, double3)
	case "zmpop", "bzmpop":
		// RESP2 already pairs the members with their scores.
		return elemAt(r, 1, func(e Reply) Reply {
			return mapElems(e, func(p Reply) Reply { return elemAt(p, 1, double3) })
		})
	case "zrank", "zrevrank":
		return elemAt(r, 1, double3) // WITHSCORE
	case "geopos":
		return mapElems(r, func(e Reply) Reply { return mapElems(e, double3) })
	case "georadius", "georadius_ro", "georadiusbymember", "georadiusbymember_ro", "geosearch":
		return mapElems(r, func(e Reply) Reply {
			if e.Kind != Array || len(e.Elems) == 0 || e.Elems[len(e.Elems)-1].Kind != Array {
				return e
			}
			return elemAt(e, len(e.Elems)-1, func(c Reply) Reply { return mapElems(c, double3) })
		})
	case "lcs":
		return map3(r)
	case "xread", "xreadgroup":
		if r.Kind != Array {
			return r
		}
		out := Reply{Kind: kind3Map}
		for _, s := range r.Elems {
			if s.Kind == Array && len(s.Elems) == 2 {
				out.Elems = append(out.Elems, s.Elems[0], s.Elems[1])
			}
		}
		return out
	case "xinfo":
		switch strings.ToLower(args[1]) {
		case "stream":
			return mapValues(map3(r), map[string]func(Reply) Reply{
				"groups": func(g Reply) Reply {
					return mapElems(g, func(e Reply) Reply {
						return mapValues(map3(e), map[string]func(Reply) Reply{
							"consumers": func(c Reply) Reply { return mapElems(c, map3) },
						})
					})
				},
			})
		case "groups", "consumers":
			return mapElems(r, map3)
		}
	}
	return r
}

func double3(r Reply) Reply {
	if r.Kind != Bulk {
		return r
	}
	return Reply{Kind: kind3Double, Str: r.Str}
}

// map3 is a flat RESP2 array of keys and values as a RESP3 map.
func map3(r Reply) Reply {
	if r.Kind != Array {
		return r
	}
	return Reply{Kind: kind3Map, Elems: r.Elems}
}

func set3(r Reply) Reply {
	if r.Kind != Array {
		return r
	}
	return Reply{Kind: kind3Set, Elems: r.Elems}
}

// pairs3 is a flat RESP2 array a, b, c, d as RESP3's [[a, b], [c, d]],
// with second applied to every second element.
func pairs3(r Reply, second func(Reply) Reply) Reply {
	if r.Kind != Array {
		return r
	}
	out := make([]Reply, 0, len(r.Elems)/2)
	for i := 0; i+1 < len(r.Elems); i += 2 {
		v := r.Elems[i+1]
		if second != nil {
			v = second(v)
		}
		out = append(out, ArrayReply(r.Elems[i], v))
	}
	return ArrayReply(out...)
}

// mapElems applies f to every element of an array.
func mapElems(r Reply, f func(Reply) Reply) Reply {
	if r.Kind != Array {
		return r
	}
	out := make([]Reply, len(r.Elems))
	for i, e := range r.Elems {
		out[i] = f(e)
	}
	return Reply{Kind: r.Kind, Elems: out}
}

// elemAt applies f to element i of an array that has it.
func elemAt(r Reply, i int, f func(Reply) Reply) Reply {
	if r.Kind != Array || i >= len(r.Elems) {
		return r
	}
	out := append([]Reply(nil), r.Elems...)
	out[i] = f(out[i])
	return Reply{Kind: Array, Elems: out}
}

// mapValues applies fs[key] to the values of a map whose key is a bulk.
func mapValues(m Reply, fs map[string]func(Reply) Reply) Reply {
	if m.Kind != kind3Map {
		return m
	}
	out := append([]Reply(nil), m.Elems...)
	for i := 0; i+1 < len(out); i += 2 {
		if f, ok := fs[out[i].Str]; ok && out[i].Kind == Bulk {
			out[i+1] = f(out[i+1])
		}
	}
	return Reply{Kind: kind3Map, Elems: out}
}

// hasWord reports whether args holds w, case-insensitively.
func hasWord(args []string, w string) bool {
	for _, a := range args {
		if strings.EqualFold(a, w) {
			return true
		}
	}
	return false
}
