package keyspace

import (
	"math"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// Geo commands (geo.c): GEOADD GEOPOS GEODIST GEOHASH GEOSEARCH
// GEOSEARCHSTORE GEORADIUS GEORADIUSBYMEMBER GEORADIUS_RO
// GEORADIUSBYMEMBER_RO. A geo set is a sorted set whose scores are 52-bit
// geohashes (geohash.go); only the zset contract of zset.go is used here.

func registerGeo() {
	register("geoadd", firstKey, cmdGeoadd)
	register("geopos", firstKey, cmdGeopos)
	register("geohash", firstKey, cmdGeohash)
	register("geodist", firstKey, cmdGeodist)
	registerCtx("georadius", georadiusKeys, geoSearchCmd(1, geoRadiusCoords))
	registerCtx("georadiusbymember", georadiusKeys, geoSearchCmd(1, geoRadiusMember))
	registerCtx("georadius_ro", firstKey, geoSearchCmd(1, geoRadiusCoords|geoNoStore))
	registerCtx("georadiusbymember_ro", firstKey, geoSearchCmd(1, geoRadiusMember|geoNoStore))
	registerCtx("geosearch", firstKey, geoSearchCmd(1, geoSearch))
	registerCtx("geosearchstore", func(a []string) []string { return a[1:3] }, geoSearchCmd(2, geoSearch|geoSearchStore))
}

// georadiusKeys is georadiusGetKeys: the source key, and the key after the
// last STORE or STOREDIST from the sixth argument on.
func georadiusKeys(a []string) []string {
	keys := []string{a[1]}
	stored := -1
	for i := 5; i < len(a); i++ {
		if (cEqualFold(a[i], "store") || cEqualFold(a[i], "storedist")) && i+1 < len(a) {
			stored = i + 1
			i++
		}
	}
	if stored >= 0 {
		keys = append(keys, a[stored])
	}
	return keys
}

// cEqualFold is strcasecmp(a, b) == 0 for an argument a (read as a C
// string, up to its first NUL) and a lowercase ASCII keyword b.
func cEqualFold(a, b string) bool {
	a = cTrunc(a)
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}

// parseDouble is Redis's string2d: strtod must consume the whole string,
// which may not be empty or start with white space; NaN, overflow and an
// underflow to zero are refused (an underflow to a subnormal is not).
func parseDouble(s string) (float64, bool) {
	if s == "" || strings.IndexByte(s, 0) >= 0 || strings.ContainsRune(" \t\n\v\f\r", rune(s[0])) || strings.ContainsRune(s, '_') {
		return 0, false
	}
	num := strings.TrimLeft(s, "+-")
	if len(s)-len(num) > 1 {
		return 0, false
	}
	body := s
	if len(num) > 2 && (num[:2] == "0x" || num[:2] == "0X") && !strings.ContainsAny(num, "pP") {
		body += "p0"
	}
	f, err := strconv.ParseFloat(body, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false // not a number, or an overflow (HUGE_VAL with ERANGE)
	}
	if f == 0 && !zeroMantissa(num) {
		return 0, false // an underflow to zero
	}
	return f, true
}

// geoLonLat is extractLongLatOrReply.
func geoLonLat(lonArg, latArg string) (lon, lat float64, errr *Reply) {
	lon, ok := parseDouble(lonArg)
	if !ok {
		return 0, 0, &errNotFloat
	}
	lat, ok = parseDouble(latArg)
	if !ok {
		return 0, 0, &errNotFloat
	}
	if lon < geoLongMin || lon > geoLongMax || lat < geoLatMin || lat > geoLatMax {
		r := errorf("invalid longitude,latitude pair %s,%s", cnum.Format(lon, 'f', 6, false), cnum.Format(lat, 'f', 6, false))
		return 0, 0, &r
	}
	return lon, lat, nil
}

var errGeoUnit = ErrorReply("ERR unsupported unit provided. please use M, KM, FT, MI")

// geoUnit is extractUnitOrReply: meters per unit.
func geoUnit(u string) (float64, *Reply) {
	switch {
	case cEqualFold(u, "m"):
		return 1, nil
	case cEqualFold(u, "km"):
		return 1000, nil
	case cEqualFold(u, "ft"):
		return 0.3048, nil
	case cEqualFold(u, "mi"):
		return 1609.34, nil
	}
	return 0, &errGeoUnit
}

func cmdGeoadd(e *Server, a []string) Reply {
	nx, xx, ch := false, false, false
	longidx := 2
	for ; longidx < len(a); longidx++ {
		switch opt := a[longidx]; {
		case cEqualFold(opt, "nx"):
			nx = true
		case cEqualFold(opt, "xx"):
			xx = true
		case cEqualFold(opt, "ch"):
			ch = true
		default:
			goto parsed
		}
	}
parsed:
	if (len(a)-longidx)%3 != 0 || (xx && nx) || len(a) == longidx {
		// No elements at all fails ZADD's own check, with the same error.
		return errSyntax
	}
	type elem struct {
		member string
		score  float64
	}
	var elems []elem
	for i := longidx; i < len(a); i += 3 {
		if e.t.data.noHexDouble && (hexNumber(a[i]) || hexNumber(a[i+1])) {
			return ErrorReply("ERR value is not a valid float")
		}
		lon, lat, errr := geoLonLat(a[i], a[i+1])
		if errr != nil {
			return *errr
		}
		elems = append(elems, elem{a[i+2], float64(geoScore(lon, lat))})
	}
	v := e.db.get(a[1])
	if v != nil && v.kind != kindZSet {
		return errWrongType
	}
	if v == nil {
		if xx {
			return IntReply(0)
		}
		v = &value{kind: kindZSet, zset: newZSet()}
		e.db.keys[a[1]] = v
	}
	var added, updated int64
	for _, el := range elems {
		cur, exists := v.zset.score(el.member)
		switch {
		case exists && !nx && cur != el.score:
			v.zset.set(el.member, el.score)
			updated++
		case !exists && !xx:
			v.zset.set(el.member, el.score)
			added++
		}
	}
	if ch {
		return IntReply(added + updated)
	}
	return IntReply(added)
}

// geoHuman is addReplyHumanLongDouble over RESP2: "%.17Lf" of the double,
// trailing zeros and point removed, "-0" printed as "0"; Redis 8.0 replies
// with addReplyDouble (geoDouble).
func geoHuman(e *Server, d float64) Reply {
	if e.t.data.geoDouble {
		return BulkReply(e.t.replyDouble(d))
	}
	if math.IsInf(d, 0) || math.IsNaN(d) {
		return BulkReply(cnum.Format(d, 'f', 17, false))
	}
	s := strconv.FormatFloat(d, 'f', 17, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return BulkReply(s)
}

// geoDistanceReply is addReplyDoubleDistance: fixedpoint_d2string with 4
// decimals, the value rounded by llrint (ties to even).
func geoDistanceReply(d float64) Reply {
	if d == 0 {
		return BulkReply("0.0000")
	}
	sv := cnum.Long(math.RoundToEven(d * 10000))
	neg := sv < 0
	u := uint64(sv)
	if neg {
		u = -u
	}
	digits := strconv.FormatUint(u, 10)
	if len(digits) <= 4 {
		digits = strings.Repeat("0", 5-len(digits)) + digits
	}
	s := digits[:len(digits)-4] + "." + digits[len(digits)-4:]
	if neg {
		s = "-" + s
	}
	return BulkReply(s)
}

// geoMembers answers GEOPOS and GEOHASH: for each member a[2:], nil when
// the key or the member is missing, else reply of its score.
func geoMembers(e *Server, a []string, reply func(score float64) Reply) Reply {
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	out := make([]Reply, 0, len(a)-2)
	for _, m := range a[2:] {
		score, ok := 0.0, false
		if z != nil {
			score, ok = z.score(m)
		}
		if !ok {
			out = append(out, NilReply())
			continue
		}
		out = append(out, reply(score))
	}
	return ArrayReply(out...)
}

func cmdGeopos(e *Server, a []string) Reply {
	return geoMembers(e, a, func(score float64) Reply {
		lon, lat := geoDecodeScore(score)
		return ArrayReply(geoHuman(e, lon), geoHuman(e, lat))
	})
}

const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

func cmdGeohash(e *Server, a []string) Reply {
	return geoMembers(e, a, func(score float64) Reply { return BulkReply(geohashString(score)) })
}

// geohashString re-encodes a score's position with the standard ranges
// (latitude +-90) as 11 geohash characters, the last always '0' (52 bits).
func geohashString(score float64) string {
	lon, lat := geoDecodeScore(score)
	h, _ := geohashEncode(geoRange{-180, 180}, geoRange{-90, 90}, lon, lat, geoStepMax)
	buf := make([]byte, 11)
	for i := 0; i < 10; i++ {
		buf[i] = geoAlphabet[(h.bits>>(52-uint(i+1)*5))&0x1f]
	}
	buf[10] = geoAlphabet[0]
	return string(buf)
}

func cmdGeodist(e *Server, a []string) Reply {
	toMeter := 1.0
	if len(a) == 5 {
		u, errr := geoUnit(a[4])
		if errr != nil {
			return *errr
		}
		toMeter = u
	} else if len(a) > 5 {
		return errSyntax
	}
	z, errr := getZSet(e, a[1])
	if errr != nil {
		return *errr
	}
	if z == nil {
		return NilReply()
	}
	s1, ok1 := z.score(a[2])
	s2, ok2 := z.score(a[3])
	if !ok1 || !ok2 {
		return NilReply()
	}
	lon1, lat1 := geoDecodeScore(s1)
	lon2, lat2 := geoDecodeScore(s2)
	return geoDistanceReply(geoDistance(lon1, lat1, lon2, lat2) / toMeter)
}
