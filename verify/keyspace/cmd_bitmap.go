package keyspace

import (
	"math"
	"math/bits"
	"strings"
)

// Bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO
// (bitops.c). Bit 0 is the most significant bit of the first byte.

func registerBitmap() {
	registerErr("setbit", firstKey, cmdSetbit)
	register("getbit", firstKey, cmdGetbit)
	register("bitcount", firstKey, cmdBitcount)
	register("bitpos", firstKey, cmdBitpos)
	register("bitop", func(a []string) []string { return a[2:] }, cmdBitop)
	registerErr("bitfield", firstKey, func(e *Server, a []string) (Reply, error) { return bitfield(e, a, false) })
	registerErr("bitfield_ro", firstKey, func(e *Server, a []string) (Reply, error) { return bitfield(e, a, true) })
}

var errBitOffset = ErrorReply("ERR bit offset is not an integer or out of range")

// parseBitOffset is getBitOffsetFromArgument: with hashBits > 0 a "#n"
// offset means n*hashBits (BITFIELD); the byte the offset lands in must be
// below proto-max-bulk-len.
func parseBitOffset(s string, hashBits int) (uint64, bool) {
	useHash := hashBits > 0 && s != "" && s[0] == '#'
	if useHash {
		s = s[1:]
	}
	n, ok := parseInt(s)
	if !ok {
		return 0, false
	}
	if useHash {
		n *= int64(hashBits) // wraps like C
	}
	if n < 0 || n>>3 >= protoMaxBulkLen {
		return 0, false
	}
	return uint64(n), true
}

// stringForBits is lookupStringForBitCommand: the key's string, created or
// zero-padded so that bit maxBit exists. The caller has checked the type.
func stringForBits(e *Server, key string, maxBit uint64) (*value, error) {
	need := int64(maxBit>>3) + 1
	v := e.db.get(key)
	have := int64(0)
	if v != nil {
		have = int64(len(v.str))
	}
	if have < need {
		if err := e.grow(need - have); err != nil {
			return nil, err
		}
	}
	if v == nil {
		e.db.setString(key, string(make([]byte, need)), false)
		return e.db.keys[key], nil
	}
	if int64(len(v.str)) < need {
		v.str += string(make([]byte, need-int64(len(v.str))))
	}
	return v, nil
}

// wrongKind reports a WRONGTYPE key: only strings hold bitmaps.
func wrongKind(e *Server, key string) bool {
	v := e.db.get(key)
	return v != nil && v.kind != kindString
}

func cmdSetbit(e *Server, a []string) (Reply, error) {
	off, ok := parseBitOffset(a[2], 0)
	if !ok {
		return errBitOffset, nil
	}
	errBit := ErrorReply("ERR bit is not an integer or out of range")
	on, ok := parseInt(a[3])
	if !ok || on&^1 != 0 {
		return errBit, nil
	}
	if wrongKind(e, a[1]) {
		return errWrongType, nil
	}
	v, err := stringForBits(e, a[1], off)
	if err != nil {
		return Reply{}, err
	}
	b := []byte(v.str)
	mask := byte(1) << (7 - off&7)
	old := b[off>>3]&mask != 0
	if on == 1 {
		b[off>>3] |= mask
	} else {
		b[off>>3] &^= mask
	}
	v.str = string(b)
	if old {
		return IntReply(1), nil
	}
	return IntReply(0), nil
}

func cmdGetbit(e *Server, a []string) Reply {
	off, ok := parseBitOffset(a[2], 0)
	if !ok {
		return errBitOffset
	}
	s, _, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	if off>>3 < uint64(len(s)) && s[off>>3]&(1<<(7-off&7)) != 0 {
		return IntReply(1)
	}
	return IntReply(0)
}

// bitRange is the start/end conversion BITCOUNT and BITPOS share: negative
// indexes count from the end, BIT ranges become byte ranges plus masks of
// the bits outside the range in the first and last bytes.
type bitRange struct {
	start, end          int64
	firstMask, lastMask byte
}

func clampBitRange(start, end, strlen int64, isBit bool) bitRange {
	total := strlen
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	r := bitRange{start: start, end: end}
	if isBit && start <= end {
		r.firstMask = ^byte((1 << (8 - start&7)) - 1)
		r.lastMask = byte((1 << (7 - end&7)) - 1)
		r.start, r.end = start>>3, end>>3
	}
	return r
}

// parseBitUnit reads BITCOUNT's and BITPOS's optional BYTE or BIT.
func parseBitUnit(s string) (isBit, ok bool) {
	switch strings.ToLower(s) {
	case "bit":
		return true, true
	case "byte":
		return false, true
	}
	return false, false
}

// cmdBitcount is bitcountCommand: a missing key is 0 before any argument
// is looked at.
func cmdBitcount(e *Server, a []string) Reply {
	if !e.t.data.bitArgsFirst {
		// Up to 7.2 the key is looked up before the range is read.
		if _, found, errr := getString(e, a[1]); errr != nil {
			return *errr
		} else if !found {
			return IntReply(0)
		}
	}
	var (
		start, end int64
		isBit, ok  bool
	)
	n := len(a)
	switch {
	case n == 4 || n == 5 || (n == 3 && e.t.data.bitcountStart):
		if start, ok = parseInt(a[2]); !ok {
			return errNotInt
		}
		if e.t.data.bitcountStart && n == 5 {
			// Valkey reads the unit before the end.
			if isBit, ok = parseBitUnit(a[4]); !ok {
				return errSyntax
			}
		}
		if n >= 4 {
			if end, ok = parseInt(a[3]); !ok {
				return errNotInt
			}
		}
		if !e.t.data.bitArgsFirst && start < 0 && end < 0 && start > end {
			return IntReply(0) // 7.0 and 7.2: before the unit is read
		}
		if n == 5 && !e.t.data.bitcountStart {
			if isBit, ok = parseBitUnit(a[4]); !ok {
				return errSyntax
			}
		}
	case n != 2:
		return errSyntax
	}
	s, found, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	if !found {
		return IntReply(0)
	}
	var r bitRange
	switch {
	case n == 2:
		r = bitRange{start: 0, end: int64(len(s)) - 1}
	default:
		if n == 3 {
			end = int64(len(s)) - 1
		}
		if start < 0 && end < 0 && start > end {
			return IntReply(0)
		}
		r = clampBitRange(start, end, int64(len(s)), isBit)
	}
	if r.start > r.end {
		return IntReply(0)
	}
	var count int
	for i := r.start; i <= r.end; i++ {
		count += bits.OnesCount8(s[i])
	}
	count -= bits.OnesCount8(s[r.start]&r.firstMask) + bits.OnesCount8(s[r.end]&r.lastMask)
	return IntReply(int64(count))
}

// bitpos is redisBitpos: the first bit equal to bit in p, or -1 looking for
// a 1 that is not there; looking for a 0 in all-ones bytes it answers the
// bit just past them, as if the string went on with zeros.
func bitpos(p []byte, bit int64) int64 {
	skip := byte(0)
	if bit == 0 {
		skip = 0xff
	}
	for i, c := range p {
		if c != skip {
			if bit == 1 {
				return int64(i)*8 + int64(bits.LeadingZeros8(c))
			}
			return int64(i)*8 + int64(bits.LeadingZeros8(^c))
		}
	}
	if bit == 1 {
		return -1
	}
	return int64(len(p)) * 8
}

// cmdBitpos is bitposCommand, including its handling of a partial first and
// last byte in BIT ranges and of an explicit end when looking for a 0.
func cmdBitpos(e *Server, a []string) Reply {
	bit, ok := parseInt(a[2])
	if !ok {
		return errNotInt
	}
	if bit != 0 && bit != 1 {
		return ErrorReply("ERR The bit argument must be 1 or 0.")
	}
	missing := IntReply(0)
	if bit == 1 {
		missing = IntReply(-1)
	}
	if !e.t.data.bitArgsFirst {
		// Up to 7.2 the key is looked up before the range is read.
		if _, found, errr := getString(e, a[1]); errr != nil {
			return *errr
		} else if !found {
			return missing
		}
	}
	var (
		start, end int64
		isBit      bool
		endGiven   bool
	)
	switch len(a) {
	case 3:
	case 4, 5, 6:
		if start, ok = parseInt(a[3]); !ok {
			return errNotInt
		}
		if len(a) == 6 {
			if isBit, ok = parseBitUnit(a[5]); !ok {
				return errSyntax
			}
		}
		if len(a) >= 5 {
			if end, ok = parseInt(a[4]); !ok {
				return errNotInt
			}
			endGiven = true
		}
	default:
		return errSyntax
	}
	s, found, errr := getString(e, a[1])
	if errr != nil {
		return *errr
	}
	if !found {
		return missing
	}
	strlen := int64(len(s))
	r := bitRange{start: 0, end: strlen - 1}
	if len(a) > 3 {
		if !endGiven {
			end = strlen - 1
		}
		r = clampBitRange(start, end, strlen, isBit)
	}
	if r.start > r.end {
		return IntReply(-1)
	}
	pos, start, bytes := bitposRange(s, bit, r)
	if endGiven && bit == 0 && pos == bytes<<3 {
		return IntReply(-1)
	}
	if pos != -1 {
		pos += start << 3
	}
	return IntReply(pos)
}

// bitposRange is the search part of bitposCommand: it returns the position
// found relative to the byte start it ends at, and the bytes left there,
// which the caller needs for its end-of-range rule.
func bitposRange(s string, bit int64, r bitRange) (pos, start, bytes int64) {
	start, bytes = r.start, r.end-r.start+1
	if r.firstMask != 0 {
		c := s[start]
		if bit == 1 {
			c &^= r.firstMask
		} else {
			c |= r.firstMask
		}
		if r.lastMask != 0 && bytes == 1 {
			if bit == 1 {
				c &^= r.lastMask
			} else {
				c |= r.lastMask
			}
		}
		pos = bitpos([]byte{c}, bit)
		if bytes == 1 || (pos != -1 && pos != 8) {
			return pos, start, bytes
		}
		start++
		bytes--
	}
	cur := bytes
	if r.lastMask != 0 {
		cur--
	}
	if cur > 0 {
		pos = bitpos([]byte(s[start:start+cur]), bit)
		if bytes == cur || (pos != -1 && pos != cur<<3) {
			return pos, start, bytes
		}
		start += cur
		bytes -= cur
	}
	c := s[r.end]
	if bit == 1 {
		c &^= r.lastMask
	} else {
		c |= r.lastMask
	}
	return bitpos([]byte{c}, bit), start, bytes
}

// cmdBitop is bitopCommand: missing keys are empty strings, shorter ones
// are padded with zeros; an empty result deletes the destination.
func cmdBitop(e *Server, a []string) Reply {
	op := strings.ToLower(a[1])
	switch op {
	case "and", "or", "xor", "not":
	default:
		return errSyntax
	}
	if op == "not" && len(a) != 4 {
		return ErrorReply("ERR BITOP NOT must be called with a single source key.")
	}
	srcs := make([]string, 0, len(a)-3)
	maxLen := 0
	for _, k := range a[3:] {
		s, _, errr := getString(e, k)
		if errr != nil {
			return *errr
		}
		srcs = append(srcs, s)
		maxLen = max(maxLen, len(s))
	}
	if maxLen == 0 {
		e.db.del(a[2])
		return IntReply(0)
	}
	res := make([]byte, maxLen)
	for j := range res {
		res[j] = bitopByte(op, srcs, j)
	}
	e.db.setString(a[2], string(res), false)
	return IntReply(int64(maxLen))
}

func bitopByte(op string, srcs []string, j int) byte {
	at := func(s string) byte {
		if j < len(s) {
			return s[j]
		}
		return 0
	}
	out := at(srcs[0])
	if op == "not" {
		return ^out
	}
	for _, s := range srcs[1:] {
		switch op {
		case "and":
			out &= at(s)
		case "or":
			out |= at(s)
		case "xor":
			out ^= at(s)
		}
	}
	return out
}

// BITFIELD overflow behaviours.
const (
	bfWrap = iota
	bfSat
	bfFail
)

// bitfieldOp is one GET, SET or INCRBY of a BITFIELD call.
type bitfieldOp struct {
	op       string // "get", "set" or "incrby"
	offset   uint64
	arg      int64
	overflow int
	bits     int
	signed   bool
}

// parseBitfieldType is getBitfieldTypeFromArgument: i1..i64 or u1..u63,
// read as a C string.
func parseBitfieldType(s string) (signed bool, nbits int, ok bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if s == "" || (s[0] != 'i' && s[0] != 'u') {
		return false, 0, false
	}
	signed = s[0] == 'i'
	n, ok := parseInt(s[1:])
	if !ok || n < 1 || (signed && n > 64) || (!signed && n > 63) {
		return false, 0, false
	}
	return signed, int(n), true
}

// parseBitfieldOps parses every subcommand before anything runs, as
// bitfieldGeneric does; it also returns the highest bit a write reaches.
func parseBitfieldOps(args []string) ([]bitfieldOp, bool, uint64, *Reply) {
	var ops []bitfieldOp
	readonly := true
	var highest uint64
	overflow := bfWrap
	for j := 0; j < len(args); j++ {
		rem := len(args) - j - 1
		sub := strings.ToLower(args[j])
		switch {
		case sub == "get" && rem >= 2, sub == "set" && rem >= 3, sub == "incrby" && rem >= 3:
		case sub == "overflow" && rem >= 1:
			j++
			switch strings.ToLower(args[j]) {
			case "wrap":
				overflow = bfWrap
			case "sat":
				overflow = bfSat
			case "fail":
				overflow = bfFail
			default:
				r := ErrorReply("ERR Invalid OVERFLOW type specified")
				return nil, false, 0, &r
			}
			continue
		default:
			return nil, false, 0, &errSyntax
		}
		signed, nbits, ok := parseBitfieldType(args[j+1])
		if !ok {
			r := ErrorReply("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
			return nil, false, 0, &r
		}
		off, ok := parseBitOffset(args[j+2], nbits)
		if !ok {
			return nil, false, 0, &errBitOffset
		}
		op := bitfieldOp{op: sub, offset: off, overflow: overflow, bits: nbits, signed: signed}
		if sub != "get" {
			readonly = false
			highest = max(highest, off+uint64(nbits)-1)
			if op.arg, ok = parseInt(args[j+3]); !ok {
				return nil, false, 0, &errNotInt
			}
			j++
		}
		ops = append(ops, op)
		j += 2
	}
	return ops, readonly, highest, nil
}

// bitfield is bitfieldGeneric; ro is BITFIELD_RO, which allows GET only.
func bitfield(e *Server, a []string, ro bool) (Reply, error) {
	ops, readonly, highest, errr := parseBitfieldOps(a[2:])
	if errr != nil {
		return *errr, nil
	}
	var v *value
	if readonly {
		if wrongKind(e, a[1]) {
			return errWrongType, nil
		}
		v = e.db.get(a[1])
	} else {
		if ro {
			return ErrorReply("ERR BITFIELD_RO only supports the GET subcommand"), nil
		}
		if wrongKind(e, a[1]) {
			return errWrongType, nil
		}
		var err error
		if v, err = stringForBits(e, a[1], highest); err != nil {
			return Reply{}, err
		}
	}
	var buf []byte
	if v != nil {
		buf = []byte(v.str)
	}
	out := make([]Reply, 0, len(ops))
	for _, op := range ops {
		if op.op == "get" {
			out = append(out, bitfieldGet(buf, op))
			continue
		}
		out = append(out, bitfieldWrite(buf, op))
	}
	if !readonly {
		v.str = string(buf)
	}
	return ArrayReply(out...), nil
}

// bitfieldGet reads past the end of the string as zeros.
func bitfieldGet(buf []byte, op bitfieldOp) Reply {
	var tmp [9]byte
	byteOff := op.offset >> 3
	for i := uint64(0); i < 9 && byteOff+i < uint64(len(buf)); i++ {
		tmp[i] = buf[byteOff+i]
	}
	off := op.offset - byteOff*8
	if op.signed {
		return IntReply(getSignedBits(tmp[:], off, op.bits))
	}
	return IntReply(int64(getUnsignedBits(tmp[:], off, op.bits)))
}

// bitfieldWrite runs a SET or INCRBY on buf (already long enough): the
// reply is the old value for SET, the new one for INCRBY, nil when FAIL
// refuses an overflow (nothing is written then).
func bitfieldWrite(buf []byte, op bitfieldOp) Reply {
	if op.signed {
		old := getSignedBits(buf, op.offset, op.bits)
		var newVal, ret int64
		var over bool
		if op.op == "incrby" {
			wrapped, o := signedOverflow(old, op.arg, op.bits, op.overflow)
			newVal, over = old+op.arg, o
			if over {
				newVal = wrapped
			}
			ret = newVal
		} else {
			wrapped, o := signedOverflow(op.arg, 0, op.bits, op.overflow)
			newVal, over = op.arg, o
			if over {
				newVal = wrapped
			}
			ret = old
		}
		if over && op.overflow == bfFail {
			return NilReply()
		}
		setBits(buf, op.offset, op.bits, uint64(newVal))
		return IntReply(ret)
	}
	old := getUnsignedBits(buf, op.offset, op.bits)
	var newVal, ret uint64
	var over bool
	if op.op == "incrby" {
		wrapped, o := unsignedOverflow(old, op.arg, op.bits, op.overflow)
		newVal, over = old+uint64(op.arg), o
		if over {
			newVal = wrapped
		}
		ret = newVal
	} else {
		wrapped, o := unsignedOverflow(uint64(op.arg), 0, op.bits, op.overflow)
		newVal, over = uint64(op.arg), o
		if over {
			newVal = wrapped
		}
		ret = old
	}
	if over && op.overflow == bfFail {
		return NilReply()
	}
	setBits(buf, op.offset, op.bits, newVal)
	return IntReply(int64(ret))
}

func setBits(p []byte, offset uint64, nbits int, v uint64) {
	for j := 0; j < nbits; j++ {
		bit := byte(1) << (7 - offset&7)
		if v&(1<<(nbits-1-j)) != 0 {
			p[offset>>3] |= bit
		} else {
			p[offset>>3] &^= bit
		}
		offset++
	}
}

func getUnsignedBits(p []byte, offset uint64, nbits int) uint64 {
	var v uint64
	for j := 0; j < nbits; j++ {
		v = v<<1 | uint64(p[offset>>3]>>(7-offset&7)&1)
		offset++
	}
	return v
}

func getSignedBits(p []byte, offset uint64, nbits int) int64 {
	v := getUnsignedBits(p, offset, nbits)
	if nbits < 64 && v&(1<<(nbits-1)) != 0 {
		v |= math.MaxUint64 << nbits
	}
	return int64(v)
}

// unsignedOverflow is checkUnsignedBitfieldOverflow: whether value+incr
// leaves nbits, and the value WRAP or SAT gives then.
func unsignedOverflow(value uint64, incr int64, nbits int, mode int) (uint64, bool) {
	maxV := uint64(1)<<nbits - 1
	maxIncr := int64(maxV - value)
	minIncr := -int64(value)
	var limit uint64
	switch {
	case value > maxV || (incr > 0 && incr > maxIncr):
		limit = maxV
	case incr < 0 && incr < minIncr:
		limit = 0
	default:
		return 0, false
	}
	if mode == bfWrap {
		limit = (value + uint64(incr)) &^ (math.MaxUint64 << nbits)
	}
	return limit, true
}

// signedOverflow is checkSignedBitfieldOverflow.
func signedOverflow(value, incr int64, nbits int, mode int) (int64, bool) {
	maxV := int64(math.MaxInt64)
	if nbits != 64 {
		maxV = int64(1)<<(nbits-1) - 1
	}
	minV := -maxV - 1
	maxIncr := int64(uint64(maxV) - uint64(value))
	minIncr := minV - value
	var limit int64
	switch {
	case value > maxV || (nbits != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		limit = maxV
	case value < minV || (nbits != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		limit = minV
	default:
		return 0, false
	}
	if mode == bfWrap {
		c := uint64(value) + uint64(incr)
		if nbits < 64 {
			if c&(1<<(nbits-1)) != 0 {
				c |= math.MaxUint64 << nbits
			} else {
				c &^= math.MaxUint64 << nbits
			}
		}
		limit = int64(c)
	}
	return limit, true
}
