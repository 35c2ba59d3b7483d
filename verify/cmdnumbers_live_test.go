package verify

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// commandNumbers are the operands commandNumberScript passes: numbers Lua
// and the commands format, parse and refuse in their own ways (-0,
// integers past 2^53 and 2^63, infinities, NaN, tiny and huge floats, the
// strings a number converts from).
var commandNumbers = []string{"0", "-0", "0.1", "1/3", "-1/3", "1e15", "1e16", "1e17", "2^53", "2^53+1", "2^63", "-2^63", "2^64", "1e21", "1e300", "1/0", "-1/0", "0/0", "123456789.123", "3.0", "-7.5", "1e-5", "5e-324", "0.1+0.2", "100", "-100", "2^31", "4294967295.5", "'12'", "'0x10'", "' 5 '", "'1e3'", "'abc'", "true", "nil", "'-0'", "'inf'", "'nan'", "'+5'", "'5.'", "'.5'"}

// commandNumberCalls are the calls an operand goes into: a command
// argument read as an integer, a float, a score, a count, a range bound,
// an expiry or stored as written; tostring and string.format.
var commandNumberCalls = []string{
	"redis.pcall('SET', KEYS[1], %s) and redis.pcall('GET', KEYS[1])",
	"redis.pcall('INCRBYFLOAT', KEYS[1], %s)",
	"redis.pcall('INCRBY', KEYS[1], %s)",
	"redis.pcall('ZADD', KEYS[2], %s, 'm') and redis.pcall('ZSCORE', KEYS[2], 'm')",
	"redis.pcall('ZINCRBY', KEYS[2], %s, 'm')",
	"redis.pcall('HINCRBYFLOAT', KEYS[3], 'f', %s)",
	"redis.pcall('HSET', KEYS[3], 'g', %s) and redis.pcall('HGET', KEYS[3], 'g')",
	"redis.pcall('EXPIRE', KEYS[1], %s)",
	"redis.pcall('PEXPIRE', KEYS[1], %s)",
	"redis.pcall('LRANGE', KEYS[4], %s, -1)",
	"redis.pcall('RPUSH', KEYS[4], %s)",
	"redis.pcall('ZRANGEBYSCORE', KEYS[2], %s, '+inf')",
	"redis.pcall('SETRANGE', KEYS[5], %s, 'x')",
	"redis.pcall('GETRANGE', KEYS[1], 0, %s)",
	"redis.pcall('ZRANGE', KEYS[2], 0, %s)",
	"redis.pcall('XADD', KEYS[7], 'MAXLEN', %s, '*', 'a', 1) and 1",
	"redis.pcall('LPOS', KEYS[4], 'a', 'RANK', %s)",
	"redis.pcall('BITCOUNT', KEYS[1], 0, %s)",
	"redis.pcall('SETEX', KEYS[5], %s, 'v')",
	"redis.pcall('ZADD', KEYS[2], 'INCR', %s, 'm')",
	"redis.pcall('GEOADD', KEYS[8], %s, 10, 'p') and redis.pcall('GEOPOS', KEYS[8], 'p')",
	"redis.pcall('HSET', KEYS[3], %s, 1) and redis.pcall('HKEYS', KEYS[3])",
	"tostring(%s)",
	"string.format('%%.3f|%%d|%%s|%%g', %s, 1, 1, 1)",
	"redis.pcall('MSET', KEYS[1], %s, KEYS[5], %s) and redis.pcall('MGET', KEYS[1], KEYS[5])",
}

// commandNumberScript writes four random calls of commandNumberCalls with
// operands from commandNumbers, each under pcall, and returns every result
// as text (error and status tables by their text, arrays element by
// element).
func commandNumberScript(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("local out = {}\n")
	b.WriteString("local function ser(x) if type(x) ~= 'table' then return tostring(x) end if x.err then return 'E:' .. x.err end if x.ok then return 'S:' .. x.ok end local p = {} for j = 1, #x do p[j] = ser(x[j]) end return '[' .. table.concat(p, ',') .. ']' end\n")
	b.WriteString("local function put(...) for j = 1, select('#', ...) do out[#out + 1] = ser((select(j, ...))) end end\n")
	b.WriteString("redis.call('SADD', KEYS[6], 'a', 'b') redis.call('RPUSH', KEYS[4], 'a', 'b', 'a')\n")
	for j := 0; j < 4; j++ {
		n := commandNumbers[r.IntN(len(commandNumbers))]
		call := strings.ReplaceAll(commandNumberCalls[r.IntN(len(commandNumberCalls))], "%s", n)
		fmt.Fprintf(&b, "put(pcall(function() return %s end))\n", strings.ReplaceAll(call, "%%", "%"))
	}
	b.WriteString("return out")
	return b.String()
}

// TestCommandNumbersLive passes tricky numbers through commands,
// tostring and string.format on the engine and a real server: the
// replies, errors and stored values must agree.
func TestCommandNumbersLive(t *testing.T) {
	ctx, srv, e := liveEngine(t)
	r := rand.New(rand.NewPCG(1, 11))
	keys := []string{"{n}1", "{n}2", "{n}3", "{n}4", "{n}5", "{n}6", "{n}7", "{n}8"}
	for i := 0; i < 150; i++ {
		evalBothKeys(t, ctx, srv, e, i, commandNumberScript(r), keys)
	}
}
