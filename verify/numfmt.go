package verify

import (
	"math"
	"strconv"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// Number formatting the way Redis's Lua 5.1 (C printf) does it; gopher-lua
// uses Go's formatting, which differs (0.1+0.2 is 0.30000000000000004 in Go,
// 0.3 in Lua 5.1).

// luaNumber is lua_Number2str: "%.14g".
func luaNumber(f float64) string { return cFloat(f, 'g', 14, false) }

// argNumber is how Redis 7.0 turns a number passed to redis.call into a
// string: "%.17g".
func argNumber(f float64) string { return cFloat(f, 'g', 17, false) }

// argNumberShortest is the same conversion from Redis 7.2 on
// (luaArgsToRedisArgv with double2ll, #13115): an integral value within
// +-2^62 prints as an integer, anything else as fpconv_dtoa writes it.
func argNumberShortest(f float64) string {
	if f >= -(1<<62) && f <= 1<<62 && f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10)
	}
	return fpconvDtoa(f)
}

// C number formatting and casts (internal/cnum), by the names the engine
// uses.
func fpconvDtoa(f float64) string { return cnum.Dtoa(f) }
func cFloat(f float64, verb byte, prec int, alt bool) string {
	return cnum.Format(f, verb, prec, alt)
}
func cInt(f float64) int64   { return cnum.Long(f) }
func cUint(f float64) uint64 { return cnum.ULong(f) }
func cInt32(f float64) int32 { return cnum.Int(f) }
