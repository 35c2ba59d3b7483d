package lualib

import (
	"encoding/binary"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// cmsgpack is lua-cmsgpack 0.4.0 as Redis 7 bundles it (Lua 5.1, 64-bit):
// integers in the smallest MessagePack encoding, floats as float 32 when
// exact, tables with keys exactly 1..n as arrays, others as maps, nesting
// beyond 16 levels encoded as nil.

const msgpackMaxNesting = 16

// msgpackKeySlack: a decoded map's integer key may exceed twice the number
// of integer keys before it by this much; past that, gopher-lua's dense
// array would grow out of proportion to the input (see
// Options.Unsupported).
const msgpackKeySlack = 1 << 16

func newCmsgpack(L *lua.LState, opts Options) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(func(L *lua.LState) int { return msgpackPack(L, opts.Keys, opts.View) }))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		return msgpackUnpackFull(L, opts, "unpack", 0, 0)
	}))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		offset := optInteger(L, 2, "unpack_one", 0)
		return msgpackUnpackFull(L, opts, "unpack_one", 1, offset)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := checkInteger(L, 2, "unpack_limit")
		offset := optInteger(L, 3, "unpack_limit", 0)
		return msgpackUnpackFull(L, opts, "unpack_limit", limit, offset)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	copyright := "Copyright (C) 2012, Salvatore Sanfilippo"
	if opts.CmsgpackCopyright != "" {
		copyright = opts.CmsgpackCopyright
	}
	t.RawSetString("_COPYRIGHT", lua.LString(copyright))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

func msgpackPack(L *lua.LState, order KeyOrder, view func(*lua.LTable) *lua.LTable) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "pack", "MessagePack pack needs input.")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = msgpackEncode(b, L.Get(i), 0, order, view)
	}
	L.Push(lua.LString(b))
	return 1
}

func msgpackEncode(b []byte, v lua.LValue, level int, order KeyOrder, view func(*lua.LTable) *lua.LTable) []byte {
	switch x := v.(type) {
	case lua.LString:
		return msgpackBytes(b, string(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		// IS_INT64_EQUIVALENT: (int64_t)f == f, NaN and out of range failing.
		if !math.IsInf(f, 0) && float64(truncInt64(f)) == f {
			return msgpackInt(b, truncInt64(f))
		}
		return msgpackDouble(b, f)
	case *lua.LTable:
		x = viewOf(view, x)
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := msgpackArrayLen(x); ok {
			b = msgpackHeader(b, 0x90, 0xdc, 0xdd, uint64(n))
			for i := 1; i <= n; i++ {
				b = msgpackEncode(b, RawGetInt(x, i), level+1, order, view)
			}
			return b
		}
		if order != nil {
			if keys := order(x); keys != nil {
				b = msgpackHeader(b, 0x80, 0xde, 0xdf, uint64(len(keys)))
				for _, k := range keys {
					b = msgpackEncode(b, k, level+1, order, view)
					b = msgpackEncode(b, x.RawGet(k), level+1, order, view)
				}
				return b
			}
		}
		n := 0
		for k, _ := x.Next(lua.LNil); k != lua.LNil; k, _ = x.Next(k) {
			n++
		}
		b = msgpackHeader(b, 0x80, 0xde, 0xdf, uint64(n))
		for k, val := range order.Pairs(x) {
			b = msgpackEncode(b, k, level+1, order, view)
			b = msgpackEncode(b, val, level+1, order, view)
		}
		return b
	}
	return append(b, 0xc0)
}

// msgpackArrayLen is table_is_an_array: keys exactly 1..n.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, max := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f <= 0 || f != math.Trunc(f) || f > math.MaxInt32 {
			return 0, false
		}
		if int(f) > max {
			max = int(f)
		}
		count++
	}
	return count, max == count
}

func msgpackBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}

func msgpackHeader(b []byte, fix, c16, c32 byte, n uint64) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return append(b, c16, byte(n>>8), byte(n))
	}
	return append(b, c32, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func msgpackDouble(b []byte, d float64) []byte {
	f := float32(d)
	if float64(f) == d {
		return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(f))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(d))
}

func msgpackInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

type msgpackErr int

const (
	mpOK msgpackErr = iota
	mpEOF
	mpBadFmt
)

type msgpackCursor struct {
	L    *lua.LState
	opts Options
	s    string
	p    int
	err  msgpackErr
}

func (c *msgpackCursor) left() int { return len(c.s) - c.p }

func (c *msgpackCursor) need(n int) bool {
	if c.left() < n {
		c.err = mpEOF
		return false
	}
	return true
}

// decode reads one value; on error it sets c.err and returns nil.
func (c *msgpackCursor) decode() lua.LValue {
	if !c.need(1) {
		return lua.LNil
	}
	s, p := c.s, c.p
	u := func(i, n int) uint64 {
		var v uint64
		for k := 0; k < n; k++ {
			v = v<<8 | uint64(s[p+i+k])
		}
		return v
	}
	num := func(f float64, n int) lua.LValue {
		c.p += n
		return lua.LNumber(f)
	}
	switch t := s[p]; t {
	case 0xcc:
		if c.need(2) {
			return num(float64(u(1, 1)), 2)
		}
	case 0xd0:
		if c.need(2) {
			return num(float64(int8(u(1, 1))), 2)
		}
	case 0xcd:
		if c.need(3) {
			return num(float64(u(1, 2)), 3)
		}
	case 0xd1:
		if c.need(3) {
			return num(float64(int16(u(1, 2))), 3)
		}
	case 0xce:
		if c.need(5) {
			return num(float64(u(1, 4)), 5)
		}
	case 0xd2:
		if c.need(5) {
			return num(float64(int32(u(1, 4))), 5)
		}
	case 0xcf:
		if c.need(9) {
			// lua_pushinteger of a uint64: the bits read as a signed integer.
			return num(float64(int64(u(1, 8))), 9)
		}
	case 0xd3:
		if c.need(9) {
			return num(float64(int64(u(1, 8))), 9)
		}
	case 0xc0:
		c.p++
		return lua.LNil
	case 0xc3:
		c.p++
		return lua.LTrue
	case 0xc2:
		c.p++
		return lua.LFalse
	case 0xca:
		if c.need(5) {
			return num(float64(math.Float32frombits(uint32(u(1, 4)))), 5)
		}
	case 0xcb:
		if c.need(9) {
			return num(math.Float64frombits(u(1, 8)), 9)
		}
	case 0xd9, 0xda, 0xdb:
		hl := 1 << (t - 0xd9) // length field: 1, 2 or 4 bytes
		if c.need(1 + hl) {
			n := int(u(1, hl))
			if c.need(1 + hl + n) {
				c.p += 1 + hl + n
				return lua.LString(s[p+1+hl : p+1+hl+n])
			}
		}
	case 0xdc, 0xdd:
		hl := 2
		if t == 0xdd {
			hl = 4
		}
		if c.need(1 + hl) {
			n := int(u(1, hl))
			c.p += 1 + hl
			return c.array(n)
		}
	case 0xde, 0xdf:
		hl := 2
		if t == 0xdf {
			hl = 4
		}
		if c.need(1 + hl) {
			n := int(u(1, hl))
			c.p += 1 + hl
			return c.hash(n)
		}
	default:
		switch {
		case t&0x80 == 0:
			c.p++
			return lua.LNumber(t)
		case t&0xe0 == 0xe0:
			c.p++
			return lua.LNumber(int8(t))
		case t&0xe0 == 0xa0:
			n := int(t & 0x1f)
			if c.need(1 + n) {
				c.p += 1 + n
				return lua.LString(s[p+1 : p+1+n])
			}
		case t&0xf0 == 0x90:
			c.p++
			return c.array(int(t & 0xf))
		case t&0xf0 == 0x80:
			c.p++
			return c.hash(int(t & 0xf))
		default:
			c.err = mpBadFmt
		}
	}
	return lua.LNil
}

func (c *msgpackCursor) array(n int) lua.LValue {
	t := c.L.NewTable()
	for i := 1; i <= n; i++ {
		v := c.decode()
		if c.err != mpOK {
			return t
		}
		c.store(t, lua.LNumber(i), v)
		if v != lua.LNil {
			t.RawSetInt(i, v)
		}
	}
	return t
}

// store tells Options.Store of lua_settable's store of v at k in a table
// unpack builds.
func (c *msgpackCursor) store(t *lua.LTable, k, v lua.LValue) {
	if c.opts.Store != nil {
		c.opts.Store(t, k, v)
	}
}

func (c *msgpackCursor) hash(n int) lua.LValue {
	t := c.L.NewTable()
	maxKey, intKeys := 0.0, 0
	for i := 0; i < n; i++ {
		k := c.decode()
		if c.err != mpOK {
			return t
		}
		v := c.decode()
		if c.err != mpOK {
			return t
		}
		if k == lua.LNil {
			// Raised by lua_settable inside C code: no position.
			c.L.Error(lua.LString("table index is nil"), 0)
		}
		if f, ok := k.(lua.LNumber); ok {
			if math.IsNaN(float64(f)) {
				c.L.Error(lua.LString("table index is NaN"), 0)
			}
			if x := float64(f); x >= 1 && x < float64(lua.MaxArrayIndex) && x == math.Trunc(x) {
				if x > maxKey+1 && x > float64(2*intKeys+msgpackKeySlack) {
					c.opts.Unsupported(c.L, fmt.Sprintf("not available offline: cmsgpack.unpack of a map with integer key %.0f far past its other keys", x))
				}
				maxKey = math.Max(maxKey, x)
				intKeys++
			}
		}
		c.store(t, k, v)
		t.RawSet(k, v)
	}
	return t
}

func msgpackUnpackFull(L *lua.LState, opts Options, fname string, limit, offset int64) int {
	s := checkString(L, 1, fname)
	decodeAll := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		raise(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	}
	if offset > int64(len(s)) {
		raise(L, "Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	if decodeAll {
		limit = math.MaxInt32
	}
	c := &msgpackCursor{L: L, opts: opts, s: s, p: int(offset)}
	var out []lua.LValue
	for cnt := int64(0); c.left() > 0 && cnt < limit; cnt++ {
		v := c.decode()
		switch c.err {
		case mpEOF:
			raise(L, "Missing bytes in input.")
		case mpBadFmt:
			raise(L, "Bad data format in input.")
		}
		out = append(out, v)
	}
	if !decodeAll {
		next := int64(len(s) - c.left())
		if c.left() == 0 {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range out {
		L.Push(v)
	}
	if !decodeAll {
		return len(out) + 1
	}
	return len(out)
}
