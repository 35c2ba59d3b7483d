package keyspace

import (
	"math"

	"github.com/scriptctl/scriptctl/internal/cnum"
	"github.com/scriptctl/scriptctl/verify/crmath"
)

// Geohash, a port of redis-server 7.0.15's geohash.c and geohash_helper.c:
// a position is a 52-bit interleaving of 26 latitude and 26 longitude bits
// (latitude limited to +-85.05112878, as in EPSG:900913), stored as a
// sorted set score. Every floating-point step is kept as C computes it, in
// the same order and rounded one operation at a time (explicit float64
// conversions keep Go from fusing a multiply with an add).

const (
	geoStepMax = 26
	geoLatMin  = -85.05112878
	geoLatMax  = 85.05112878
	geoLongMin = -180.0
	geoLongMax = 180.0

	earthRadiusMeters = 6372797.560856
	mercatorMax       = 20037726.37
)

// geoDR is M_PI / 180.0 as C computes it: a double division, which a Go
// constant expression (exact arithmetic) would not round the same way.
// Written as that double's shortest decimal (bits 0x3f91df46a2529d39,
// TestGeoDR), so no code computes it at start.
var geoDR = 0.017453292519943295

func degRad(ang float64) float64 { return ang * geoDR }
func radDeg(ang float64) float64 { return ang / geoDR }

type geoHashBits struct {
	bits uint64
	step uint8
}

func (h geoHashBits) isZero() bool { return h.bits == 0 && h.step == 0 }

type geoRange struct{ min, max float64 }

type geoArea struct {
	hash      geoHashBits
	long, lat geoRange
}

// interleave64 puts x's bits in the even positions and y's in the odd.
func interleave64(xlo, ylo uint32) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF}
	s := [...]uint{1, 2, 4, 8, 16}
	x, y := uint64(xlo), uint64(ylo)
	for i := 4; i >= 0; i-- {
		x = (x | x<<s[i]) & b[i]
		y = (y | y<<s[i]) & b[i]
	}
	return x | y<<1
}

// deinterleave64 returns the even bits in the low 32 bits and the odd bits
// in the high 32.
func deinterleave64(v uint64) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF}
	s := [...]uint{0, 1, 2, 4, 8, 16}
	x, y := v, v>>1
	for i := 0; i < 6; i++ {
		x = (x | x>>s[i]) & b[i]
		y = (y | y>>s[i]) & b[i]
	}
	return x | y<<32
}

var (
	geoLongRange = geoRange{geoLongMin, geoLongMax}
	geoLatRange  = geoRange{geoLatMin, geoLatMax}
)

// c2uint32 is C's conversion of a non-negative double to uint32_t
// (truncation); out of range values wrap as x86-64's 64-bit conversion does.
func c2uint32(f float64) uint32 { return uint32(cnum.Long(f)) }

// geohashEncode is geohashEncode; false outside the ranges.
func geohashEncode(longR, latR geoRange, longitude, latitude float64, step uint8) (geoHashBits, bool) {
	if step > 32 || step == 0 || (latR.min == 0 && latR.max == 0) || (longR.min == 0 && longR.max == 0) {
		return geoHashBits{}, false
	}
	if longitude > geoLongMax || longitude < geoLongMin || latitude > geoLatMax || latitude < geoLatMin {
		return geoHashBits{}, false
	}
	if latitude < latR.min || latitude > latR.max || longitude < longR.min || longitude > longR.max {
		return geoHashBits{step: step}, false
	}
	latOff := (latitude - latR.min) / (latR.max - latR.min)
	longOff := (longitude - longR.min) / (longR.max - longR.min)
	latOff *= float64(uint64(1) << step)
	longOff *= float64(uint64(1) << step)
	return geoHashBits{bits: interleave64(c2uint32(latOff), c2uint32(longOff)), step: step}, true
}

func geohashEncodeWGS84(longitude, latitude float64, step uint8) (geoHashBits, bool) {
	return geohashEncode(geoLongRange, geoLatRange, longitude, latitude, step)
}

// geohashDecode is geohashDecode: the cell of a hash.
func geohashDecode(longR, latR geoRange, h geoHashBits) (geoArea, bool) {
	if h.isZero() {
		return geoArea{}, false
	}
	sep := deinterleave64(h.bits)
	latScale := latR.max - latR.min
	longScale := longR.max - longR.min
	ilato := uint32(sep)
	ilono := uint32(sep >> 32)
	div := float64(uint64(1) << h.step)
	var a geoArea
	a.hash = h
	a.lat.min = latR.min + float64(float64(ilato)*1.0/div*latScale)
	a.lat.max = latR.min + float64(float64(ilato+1)*1.0/div*latScale)
	a.long.min = longR.min + float64(float64(ilono)*1.0/div*longScale)
	a.long.max = longR.min + float64(float64(ilono+1)*1.0/div*longScale)
	return a, true
}

// geoDecodeScore is decodeGeohash: a score as a 52-bit hash (C's cast of
// the double to uint64_t) to the center of its cell, clamped to the ranges.
func geoDecodeScore(score float64) (lon, lat float64) {
	a, _ := geohashDecode(geoLongRange, geoLatRange, geoHashBits{bits: cnum.ULong(score), step: geoStepMax})
	lon = (a.long.min + a.long.max) / 2
	if lon > geoLongMax {
		lon = geoLongMax
	}
	if lon < geoLongMin {
		lon = geoLongMin
	}
	lat = (a.lat.min + a.lat.max) / 2
	if lat > geoLatMax {
		lat = geoLatMax
	}
	if lat < geoLatMin {
		lat = geoLatMin
	}
	return lon, lat
}

// geoAlign52 is geohashAlign52Bits.
func geoAlign52(h geoHashBits) uint64 { return h.bits << (52 - uint(h.step)*2) }

// geoScore is the score GEOADD stores for a position.
func geoScore(lon, lat float64) uint64 {
	h, _ := geohashEncodeWGS84(lon, lat, geoStepMax)
	return geoAlign52(h)
}

// geohashMove is geohashMoveX (mask 0xaaaa...: the longitude bits) and
// geohashMoveY (mask 0x5555...: the latitude bits): one cell in direction
// d (-1, 0 or 1) along the axis whose bits mask holds.
func geohashMove(h *geoHashBits, d int, mask uint64) {
	if d == 0 {
		return
	}
	shift := 64 - uint(h.step)*2
	axis := h.bits & mask
	other := h.bits & ^mask
	zz := ^mask >> shift
	if d > 0 {
		axis = axis + (zz + 1)
	} else {
		axis = axis | zz
		axis = axis - (zz + 1)
	}
	axis &= mask >> shift
	h.bits = axis | other
}

const (
	geoMaskX = 0xaaaaaaaaaaaaaaaa // longitude bits
	geoMaskY = 0x5555555555555555 // latitude bits
)

// geoNeighbors lists the eight neighbours in geo.c's search order: north,
// south, east, west, north-east, north-west, south-east, south-west.
type geoNeighbors struct {
	north, south, east, west, northEast, northWest, southEast, southWest geoHashBits
}

func geohashNeighbors(h geoHashBits) geoNeighbors {
	move := func(dx, dy int) geoHashBits {
		n := h
		geohashMove(&n, dx, geoMaskX)
		geohashMove(&n, dy, geoMaskY)
		return n
	}
	return geoNeighbors{
		east: move(1, 0), west: move(-1, 0), south: move(0, -1), north: move(0, 1),
		northWest: move(-1, 1), northEast: move(1, 1), southEast: move(1, -1), southWest: move(-1, -1),
	}
}

// geoShape is a search area: a circle (radius) or a box (width, height),
// in the unit given by conversion (meters per unit), or a polygon (Valkey
// 9.0's BYPOLYGON: its vertices as longitude, latitude; lon and lat are
// then its centroid, set by boundingBox).
type geoShape struct {
	box                   bool
	polygon               [][2]float64
	lon, lat              float64
	conversion            float64
	radius, width, height float64
	bounds                [4]float64
}

func geohashEstimateStepsByRadius(rangeMeters, lat float64) int {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return max(1, min(26, step))
}

// boundingBox is geohashBoundingBox.
func (s *geoShape) boundingBox() {
	if s.polygon != nil {
		s.polygonBox()
		return
	}
	var height, width float64
	if s.box {
		height = s.conversion * (s.height / 2)
		width = s.conversion * (s.width / 2)
	} else {
		height = s.conversion * s.radius
		width = s.conversion * s.radius
	}
	latDelta := radDeg(height / earthRadiusMeters)
	longDeltaTop := radDeg(width / earthRadiusMeters / geoCos(degRad(s.lat+latDelta)))
	longDeltaBottom := radDeg(width / earthRadiusMeters / geoCos(degRad(s.lat-latDelta)))
	if s.lat < 0 {
		s.bounds[0] = s.lon - longDeltaBottom
		s.bounds[2] = s.lon + longDeltaBottom
	} else {
		s.bounds[0] = s.lon - longDeltaTop
		s.bounds[2] = s.lon + longDeltaTop
	}
	s.bounds[1] = s.lat - latDelta
	s.bounds[3] = s.lat + latDelta
}

// polygonBox is geohashBoundingBox of Valkey 9.0's polygon: the bounds of
// the vertices, and the centroid, the direction of the sum of their unit
// vectors.
func (s *geoShape) polygonBox() {
	minLon, maxLon, minLat, maxLat := geoLongMax, geoLongMin, geoLatMax, geoLatMin
	var x, y, z float64
	for _, v := range s.polygon {
		lon, lat := v[0], v[1]
		minLon, maxLon = min(minLon, lon), max(maxLon, lon)
		minLat, maxLat = min(minLat, lat), max(maxLat, lat)
		lonR, latR := degRad(lon), degRad(lat)
		x += float64(geoCos(latR) * geoCos(lonR))
		y += float64(geoCos(latR) * geoSin(lonR))
		z += geoSin(latR)
	}
	s.bounds = [4]float64{minLon, minLat, maxLon, maxLat}
	hyp := math.Sqrt(float64(x*x) + float64(y*y))
	s.lon, s.lat = radDeg(math.Atan2(y, x)), radDeg(math.Atan2(z, hyp))
}

// geoAreas is geohashCalculateAreasByShapeWGS84: the center cell and its
// neighbours (zeroed when useless) covering the shape, in search order.
func (s *geoShape) areas() [9]geoHashBits {
	s.boundingBox()
	minLon, minLat, maxLon, maxLat := s.bounds[0], s.bounds[1], s.bounds[2], s.bounds[3]
	var radiusMeters float64
	switch {
	case s.polygon != nil:
		// The farthest corner of the bounds from the centroid.
		radiusMeters = max(geoDistance(s.lon, s.lat, minLon, maxLat), geoDistance(s.lon, s.lat, maxLon, maxLat),
			geoDistance(s.lon, s.lat, minLon, minLat), geoDistance(s.lon, s.lat, maxLon, minLat))
	case s.box:
		radiusMeters = math.Sqrt(float64(s.width/2*(s.width/2)) + float64(s.height/2*(s.height/2)))
	default:
		radiusMeters = s.radius
	}
	radiusMeters *= s.conversion
	steps := geohashEstimateStepsByRadius(radiusMeters, s.lat)

	hash, _ := geohashEncode(geoLongRange, geoLatRange, s.lon, s.lat, uint8(steps))
	nb := geohashNeighbors(hash)
	area, _ := geohashDecode(geoLongRange, geoLatRange, hash)

	north, _ := geohashDecode(geoLongRange, geoLatRange, nb.north)
	south, _ := geohashDecode(geoLongRange, geoLatRange, nb.south)
	east, _ := geohashDecode(geoLongRange, geoLatRange, nb.east)
	west, _ := geohashDecode(geoLongRange, geoLatRange, nb.west)
	decrease := north.lat.max < maxLat || south.lat.min > minLat || east.long.max < maxLon || west.long.min > minLon
	if steps > 1 && decrease {
		steps--
		hash, _ = geohashEncode(geoLongRange, geoLatRange, s.lon, s.lat, uint8(steps))
		nb = geohashNeighbors(hash)
		area, _ = geohashDecode(geoLongRange, geoLatRange, hash)
	}
	if steps >= 2 {
		if area.lat.min < minLat {
			nb.south, nb.southWest, nb.southEast = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
		if area.lat.max > maxLat {
			nb.north, nb.northEast, nb.northWest = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
		if area.long.min < minLon {
			nb.west, nb.southWest, nb.northWest = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
		if area.long.max > maxLon {
			nb.east, nb.southEast, nb.northEast = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
	}
	return [9]geoHashBits{hash, nb.north, nb.south, nb.east, nb.west, nb.northEast, nb.northWest, nb.southEast, nb.southWest}
}

// geoLatDistance is geohashGetLatDistance.
func geoLatDistance(lat1, lat2 float64) float64 {
	return earthRadiusMeters * math.Abs(degRad(lat2)-degRad(lat1))
}

// geoDistance is geohashGetDistance: the haversine distance in meters.
func geoDistance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r, lon2r := degRad(lon1), degRad(lon2)
	v := geoSin((lon2r - lon1r) / 2)
	if v == 0 {
		return geoLatDistance(lat1, lat2)
	}
	lat1r, lat2r := degRad(lat1), degRad(lat2)
	u := geoSin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(geoCos(lat1r)*geoCos(lat2r))*v)*v)
	return 2.0 * earthRadiusMeters * geoAsin(math.Sqrt(a))
}

// within is geoWithinShape after decoding: whether the point is inside the
// shape, and its distance to the shape's center in meters.
func (s *geoShape) within(lon, lat float64) (float64, bool) {
	if s.polygon != nil {
		return s.inPolygon(lon, lat)
	}
	if !s.box {
		d := geoDistance(s.lon, s.lat, lon, lat)
		return d, !(d > s.radius*s.conversion)
	}
	widthM, heightM := s.width*s.conversion, s.height*s.conversion
	if geoLatDistance(lat, s.lat) > heightM/2 {
		return 0, false
	}
	if geoDistance(lon, lat, s.lon, lat) > widthM/2 {
		return 0, false
	}
	return geoDistance(s.lon, s.lat, lon, lat), true
}

// inPolygon is geohashGetDistanceIfInPolygon: W. Randolph Franklin's
// PNPOLY ray casting over the vertices, and the distance from the
// centroid.
func (s *geoShape) inPolygon(lon, lat float64) (float64, bool) {
	inside := false
	n := len(s.polygon)
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		a, b := s.polygon[i], s.polygon[j]
		if (a[1] > lat) != (b[1] > lat) &&
			lon < float64(float64(float64(b[0]-a[0])*float64(lat-a[1]))/float64(b[1]-a[1]))+a[0] {
			inside = !inside
		}
	}
	if !inside {
		return 0, false
	}
	return geoDistance(s.lon, s.lat, lon, lat), true
}

// geoSin, geoCos and geoAsin are glibc's sin, cos and asin, bit for bit
// (package crmath): Go's math functions can be one unit in the last place
// off glibc's (which the servers use), and the distances STOREDIST keeps
// are printed with 17 digits, so the haversine formula needs the same
// last bits.
func geoSin(x float64) float64  { return crmath.Sin(x) }
func geoCos(x float64) float64  { return crmath.Cos(x) }
func geoAsin(y float64) float64 { return crmath.Asin(y) }
