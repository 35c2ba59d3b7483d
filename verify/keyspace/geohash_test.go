package keyspace

import (
	"context"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// TestHLLGeoNoPanic runs random argument lists, built from the commands'
// keywords, numbers at and beyond their limits and corrupted HLL bytes,
// through every HLL and geo command: each must answer with a reply.
func TestHLLGeoNoPanic(t *testing.T) {
	cmds := []string{"PFADD", "PFCOUNT", "PFMERGE", "GEOADD", "GEOPOS", "GEODIST", "GEOHASH", "GEOSEARCH", "GEOSEARCHSTORE",
		"GEORADIUS", "GEORADIUSBYMEMBER", "GEORADIUS_RO", "GEORADIUSBYMEMBER_RO"}
	tokens := []string{"k", "g", "h", "d", "m", "km", "mi", "ft", "M", "x", "", "0", "1", "-1", "180", "-180", "85.05112878", "90",
		"inf", "-inf", "nan", "1e308", "1e-320", "0x1p-1074", "3", "1000000", "9223372036854775807", "WITHDIST", "WITHHASH", "WITHCOORD",
		"ASC", "DESC", "COUNT", "ANY", "STORE", "STOREDIST", "FROMMEMBER", "FROMLONLAT", "BYRADIUS", "BYBOX", "NX", "XX", "CH", "a", "b"}
	ctx := context.Background()
	rng := rand.New(rand.NewSource(3))
	bad := []string{"HYLL", "HYLL\x01" + strings.Repeat("\xff", 20), "HYLL\x01" + strings.Repeat("\x00", 11) + "\x7f", "HYLL\x01" + strings.Repeat("\x00", 11) + strings.Repeat("\x83", 40),
		"HYLL\x00" + strings.Repeat("\xff", hllDenseSize-5), "HYLL\x01" + strings.Repeat("\x00", 11) + strings.Repeat("\x40\x00", 20000)}
	for i := 0; i < 4000; i++ {
		e := New(Options{})
		e.Do(ctx, "GEOADD", "g", "13.3", "38.1", "a", "15", "37.5", "b", "180", "85.05112878", "x", "-180", "-85.05112878", "m")
		e.Do(ctx, "PFADD", "h", "a", "b")
		e.Do(ctx, "SET", "k", bad[rng.Intn(len(bad))])
		for j := 0; j < 3; j++ {
			args := []string{cmds[rng.Intn(len(cmds))]}
			for n := rng.Intn(12); n >= 0; n-- {
				args = append(args, tokens[rng.Intn(len(tokens))])
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%q panics: %v", args, p)
					}
				}()
				if _, err := e.Do(ctx, args...); err != nil {
					t.Fatalf("%q: %v", args, err)
				}
			}()
		}
	}
}

// TestPolygonShape: Valkey's BYPOLYGON test is PNPOLY over the vertices
// (a concave notch is outside), the centroid is the vertices' mean
// direction, and an inside point's distance is from that centroid.
func TestPolygonShape(t *testing.T) {
	s := geoShape{polygon: [][2]float64{{0, 0}, {10, 0}, {10, 10}, {5, 5}, {0, 10}}, conversion: 1}
	s.boundingBox()
	if s.bounds != [4]float64{0, 0, 10, 10} {
		t.Errorf("bounds %v", s.bounds)
	}
	if s.lon < 4.9 || s.lon > 5.1 || s.lat < 4.9 || s.lat > 5.1 {
		t.Errorf("centroid %v, %v: want about 5, 5", s.lon, s.lat)
	}
	for _, tc := range []struct {
		lon, lat float64
		in       bool
	}{{5, 2, true}, {1, 8, true}, {9, 8, true}, {5, 8, false}, {-1, 5, false}, {11, 5, false}} {
		d, in := s.within(tc.lon, tc.lat)
		if in != tc.in {
			t.Errorf("(%v, %v) inside = %v, want %v", tc.lon, tc.lat, in, tc.in)
		}
		if in && d != geoDistance(s.lon, s.lat, tc.lon, tc.lat) {
			t.Errorf("(%v, %v) distance %v, not from the centroid", tc.lon, tc.lat, d)
		}
	}
}

// TestGeoDR: geoDR, written as a literal, is C's M_PI / 180.0, a double
// division.
func TestGeoDR(t *testing.T) {
	pi := math.Pi
	if want := pi / 180.0; geoDR != want || math.Float64bits(geoDR) != 0x3f91df46a2529d39 {
		t.Errorf("geoDR = %v (%#x), want %v (%#x)", geoDR, math.Float64bits(geoDR), want, math.Float64bits(want))
	}
}
