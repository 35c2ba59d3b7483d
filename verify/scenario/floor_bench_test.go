package scenario

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// luaFloor is the floor of an offline call: what the same script call
// costs with nothing of the engine around it. Each script is compiled once;
// one gopher-lua LState is reused for every call; KEYS and ARGV are fresh
// tables per call; redis.call is a stub over Go maps that knows only the
// commands the bundled scripts send (no type checks, no TTL clock, no
// sandbox, no Lua 5.1 rules, no reply conversion beyond what the scripts
// read). No offline engine built on gopher-lua can run these calls in less.
type luaFloor struct {
	L    *lua.LState
	fns  map[string]*lua.LFunction
	str  map[string]string
	hash map[string]map[string]string
	ttl  map[string]int64
}

func newLuaFloor(sources map[string][]byte) (*luaFloor, error) {
	f := &luaFloor{L: lua.NewState(), fns: map[string]*lua.LFunction{}}
	for name, src := range sources {
		fn, err := f.L.LoadString(string(src))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		f.fns[name] = fn
	}
	redis := f.L.NewTable()
	f.L.SetField(redis, "call", f.L.NewFunction(f.call))
	f.L.SetField(redis, "pcall", f.L.NewFunction(f.call))
	f.L.SetField(redis, "error_reply", f.L.NewFunction(func(L *lua.LState) int {
		t := L.NewTable()
		t.RawSetString("err", L.CheckAny(1))
		L.Push(t)
		return 1
	}))
	f.L.SetGlobal("redis", redis)
	f.reset()
	return f, nil
}

func (f *luaFloor) reset() {
	f.str, f.hash, f.ttl = map[string]string{}, map[string]map[string]string{}, map[string]int64{}
}

func (f *luaFloor) put(k Key) {
	switch k.Type {
	case "hash":
		h := map[string]string{}
		for _, fv := range k.Hash {
			h[fv.Name] = fv.Value
		}
		f.hash[k.Name] = h
	default:
		f.str[k.Name] = k.Value
	}
	if k.PTTL > 0 {
		f.ttl[k.Name] = k.PTTL
	}
}

// run calls script with keys and args and returns its reply as Go values.
func (f *luaFloor) run(script string, keys, args []string) (any, error) {
	L := f.L
	L.SetGlobal("KEYS", strTable(L, keys))
	L.SetGlobal("ARGV", strTable(L, args))
	L.Push(f.fns[script])
	if err := L.PCall(0, 1, nil); err != nil {
		return nil, err
	}
	v := L.Get(-1)
	L.Pop(1)
	return floorReply(v), nil
}

func strTable(L *lua.LState, s []string) *lua.LTable {
	t := L.CreateTable(len(s), 0)
	for _, v := range s {
		t.Append(lua.LString(v))
	}
	return t
}

func floorReply(v lua.LValue) any {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return int64(v)
	case *lua.LTable:
		if e := v.RawGetString("err"); e != lua.LNil {
			return fmt.Errorf("%s", e)
		}
		var out []any
		for i := 1; i <= v.Len(); i++ {
			out = append(out, floorReply(v.RawGetInt(i)))
		}
		return out
	}
	return nil
}

// call is the redis.call stub.
func (f *luaFloor) call(L *lua.LState) int {
	n := L.GetTop()
	a := make([]string, n)
	for i := range n {
		a[i] = L.ToString(i + 1)
	}
	bulk := func(s string, ok bool) int {
		if !ok {
			L.Push(lua.LFalse)
		} else {
			L.Push(lua.LString(s))
		}
		return 1
	}
	switch strings.ToUpper(a[0]) {
	case "GET":
		s, ok := f.str[a[1]]
		return bulk(s, ok)
	case "SET":
		_, exists := f.str[a[1]]
		nx, ttl := false, int64(0)
		for i := 3; i < n; i++ {
			switch strings.ToUpper(a[i]) {
			case "NX":
				nx = true
			case "PX":
				i++
				ttl, _ = strconv.ParseInt(a[i], 10, 64)
			}
		}
		if nx && exists {
			L.Push(lua.LFalse)
			return 1
		}
		f.str[a[1]] = a[2]
		delete(f.ttl, a[1])
		if ttl > 0 {
			f.ttl[a[1]] = ttl
		}
		t := L.NewTable()
		t.RawSetString("ok", lua.LString("OK"))
		L.Push(t)
		return 1
	case "DEL":
		c := 0
		for _, k := range a[1:] {
			_, s := f.str[k]
			_, h := f.hash[k]
			if s || h {
				c++
			}
			delete(f.str, k)
			delete(f.hash, k)
			delete(f.ttl, k)
		}
		L.Push(lua.LNumber(c))
		return 1
	case "PEXPIRE":
		ms, _ := strconv.ParseInt(a[2], 10, 64)
		f.ttl[a[1]] = ms
		L.Push(lua.LNumber(1))
		return 1
	case "PTTL":
		t, ok := f.ttl[a[1]]
		if !ok {
			t = -1
		}
		L.Push(lua.LNumber(t))
		return 1
	case "HGET":
		s, ok := f.hash[a[1]][a[2]]
		return bulk(s, ok)
	case "HMGET":
		t := L.CreateTable(n-2, 0)
		for _, fld := range a[2:] {
			if s, ok := f.hash[a[1]][fld]; ok {
				t.Append(lua.LString(s))
			} else {
				t.Append(lua.LFalse)
			}
		}
		L.Push(t)
		return 1
	case "HSET", "HINCRBY":
		h := f.hash[a[1]]
		if h == nil {
			h = map[string]string{}
			f.hash[a[1]] = h
		}
		if strings.ToUpper(a[0]) == "HINCRBY" {
			v, _ := strconv.ParseInt(h[a[2]], 10, 64)
			d, _ := strconv.ParseInt(a[3], 10, 64)
			h[a[2]] = strconv.FormatInt(v+d, 10)
			L.Push(lua.LNumber(v + d))
			return 1
		}
		c := 0
		for i := 2; i+1 < n; i += 2 {
			if _, ok := h[a[i]]; !ok {
				c++
			}
			h[a[i]] = a[i+1]
		}
		L.Push(lua.LNumber(c))
		return 1
	}
	L.RaiseError("floor: %s not stubbed", a[0])
	return 0
}
