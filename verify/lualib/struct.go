package lualib

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// struct is Roberto Ierusalimschy's struct library (struct.c 1.4) as Redis
// 7 bundles it, on x86-64: native order little endian, short 2 bytes, int 4,
// long and size_t 8, maximum alignment 8, integers of at most 32 bytes.

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

func newStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

type structHeader struct {
	little bool
	align  int
}

// structFormat walks a format string the way struct.c does.
type structFormat struct {
	L     *lua.LState
	fname string
	fmt   string
	pos   int
}

func (f *structFormat) more() bool { return f.pos < len(f.fmt) && f.fmt[f.pos] != 0 }

func (f *structFormat) next() byte {
	c := f.fmt[f.pos]
	f.pos++
	return c
}

// getnum reads an optional decimal count, like struct.c's getnum with
// Redis's overflow check.
func (f *structFormat) getnum(def int) int {
	if f.pos >= len(f.fmt) || !isDigit(f.fmt[f.pos]) {
		return def
	}
	a := 0
	for f.pos < len(f.fmt) && isDigit(f.fmt[f.pos]) {
		d := int(f.fmt[f.pos] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			raise(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.pos++
	}
	return a
}

// optsize is the size of option opt, reading its count.
func (f *structFormat) optsize(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return f.getnum(1)
	case 'i', 'I':
		sz := f.getnum(4)
		if sz > structMaxIntSize {
			raise(f.L, "integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

func gettoalign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

// control handles the options that are not data: ' ', '>', '<', '!'.
func (f *structFormat) control(opt byte, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := f.getnum(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raise(f.L, "alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		argError(f.L, 1, f.fname, fmt.Sprintf("invalid format option '%c'", opt))
	}
}

func structPack(L *lua.LState) int {
	f := &structFormat{L: L, fname: "pack", fmt: checkString(L, 1, "pack")}
	h := structHeader{little: true, align: 1}
	arg := 2
	top := L.GetTop()
	// struct.c pushes a nil mark after the arguments: a missing argument
	// is reported as "got nil" rather than "got no value".
	get := func(n int) {
		if n > top {
			for L.GetTop() < n {
				L.Push(lua.LNil)
			}
		}
	}
	var b strings.Builder
	total := 0
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		toalign := gettoalign(total, &h, opt, size)
		total += toalign
		for ; toalign > 0; toalign-- {
			b.WriteByte(0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			get(arg)
			n := checkNumber(L, arg, "pack")
			arg++
			var v uint64
			if n < 0 {
				v = uint64(truncInt64(n))
			} else {
				v = truncUint64(n)
			}
			buf := make([]byte, size)
			for i := 0; i < size; i++ {
				j := i
				if !h.little {
					j = size - 1 - i
				}
				buf[j] = byte(v)
				v >>= 8
			}
			b.Write(buf)
		case 'x':
			b.WriteByte(0)
		case 'f':
			get(arg)
			n := checkNumber(L, arg, "pack")
			arg++
			var buf [4]byte
			if h.little {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(float32(n)))
			} else {
				binary.BigEndian.PutUint32(buf[:], math.Float32bits(float32(n)))
			}
			b.Write(buf[:])
		case 'd':
			get(arg)
			n := checkNumber(L, arg, "pack")
			arg++
			var buf [8]byte
			if h.little {
				binary.LittleEndian.PutUint64(buf[:], math.Float64bits(n))
			} else {
				binary.BigEndian.PutUint64(buf[:], math.Float64bits(n))
			}
			b.Write(buf[:])
		case 'c', 's':
			get(arg)
			s := checkString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			b.WriteString(s[:size])
			if opt == 's' {
				b.WriteByte(0)
				size++
			}
		default:
			f.control(opt, &h)
		}
		total += size
	}
	L.Push(lua.LString(b.String()))
	return 1
}

func structUnpack(L *lua.LState) int {
	f := &structFormat{L: L, fname: "unpack", fmt: checkString(L, 1, "unpack")}
	data := checkString(L, 2, "unpack")
	pos := optInteger(L, 3, "unpack", 1)
	// Redis's check is on a size_t: a negative offset passes it (and is
	// then too far into the data).
	if pos == 0 {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	pos--
	h := structHeader{little: true, align: 1}
	ld := int64(len(data))
	var out []lua.LValue
	for f.more() {
		opt := f.next()
		size := int64(f.optsize(opt))
		pos += int64(gettoalign(int(pos), &h, opt, int(size)))
		if !(size <= ld && pos >= 0 && pos <= ld-size) {
			argError(L, 2, "unpack", "data string too short")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a'
			var l uint64
			if !h.little {
				for i := int64(0); i < size; i++ {
					l = l<<8 | uint64(data[pos+i])
				}
			} else {
				for i := size - 1; i >= 0; i-- {
					l = l<<8 | uint64(data[pos+i])
				}
			}
			var res float64
			if !signed {
				res = float64(l)
			} else {
				// C shifts by (size*8-1) mod 64 on x86-64, even past 8 bytes.
				mask := ^uint64(0) << (uint(size*8-1) & 63)
				if l&mask != 0 {
					l |= mask
				}
				res = float64(int64(l))
			}
			out = append(out, lua.LNumber(res))
		case 'x':
		case 'f':
			var u uint32
			if h.little {
				u = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				u = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			out = append(out, lua.LNumber(float64(math.Float32frombits(u))))
		case 'd':
			var u uint64
			if h.little {
				u = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				u = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			out = append(out, lua.LNumber(math.Float64frombits(u)))
		case 'c':
			if size == 0 {
				var prev lua.LValue = lua.LNil
				if len(out) > 0 {
					prev = out[len(out)-1]
				} else if L.GetTop() >= 2 {
					prev = L.Get(2) // the data argument sits below the results
				}
				n, ok := ToNumber(prev)
				if !ok {
					raise(L, "format 'c0' needs a previous size")
				}
				if len(out) > 0 {
					out = out[:len(out)-1]
				}
				size = int64(truncUint64(n))
				if !(size >= 0 && size <= ld && pos <= ld-size) {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				raise(L, "unfinished string in data")
			}
			size = int64(e) + 1
			out = append(out, lua.LString(data[pos:pos+size-1]))
		default:
			f.control(opt, &h)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(pos + 1))
	return len(out) + 1
}

func structSize(L *lua.LState) int {
	f := &structFormat{L: L, fname: "size", fmt: checkString(L, 1, "size")}
	h := structHeader{little: true, align: 1}
	pos := 0
	for f.more() {
		opt := f.next()
		size := f.optsize(opt)
		pos += gettoalign(pos, &h, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !(isDigit(opt) || opt|0x20 >= 'a' && opt|0x20 <= 'z') {
			f.control(opt, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
