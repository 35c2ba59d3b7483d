package verify

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// liveSteps runs each command on a fresh engine and a flushed live server
// and requires identical replies, step by step.
func liveSteps(t *testing.T, live func(...string) Reply, e *Engine, cmds [][]string) {
	t.Helper()
	for _, c := range cmds {
		want := live(c...)
		got, err := e.Do(context.Background(), c...)
		if err != nil {
			t.Fatalf("%.80q: %v (live %.200s)", c, err, want)
		}
		if !got.Equal(want) {
			t.Fatalf("%.80q:\noffline %.400s\nlive    %.400s", c, got, want)
		}
	}
}

// TestHLLLive adds thousands of elements, in batches, to HLLs that cross
// the sparse to dense promotion, and compares every PFADD reply, PFCOUNT and
// the bytes GET answers (cached cardinality included) with redis-server.
func TestHLLLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live differential: needs redis-server")
	}
	live := liveServer(t)
	live("FLUSHALL")
	e := New(Options{Target: liveTarget(t), Topology: TopologyStandalone})
	rng := rand.New(rand.NewSource(7))
	var cmds [][]string
	for round := 0; round < 60; round++ {
		for _, k := range []string{"h1", "h2", "h3"} {
			n := 1 + rng.Intn(40)
			if k == "h1" {
				n = 1 + rng.Intn(120)
			}
			if k == "h3" {
				n = 1 + rng.Intn(3)
			}
			c := []string{"PFADD", k}
			for i := 0; i < n; i++ {
				c = append(c, fmt.Sprintf("%s-%d", k, rng.Intn(100000)))
			}
			cmds = append(cmds, c, []string{"GET", k})
			if round%5 == 0 {
				cmds = append(cmds, []string{"PFCOUNT", k}, []string{"GET", k})
			}
		}
		if round%10 == 9 {
			cmds = append(cmds,
				[]string{"PFCOUNT", "h1", "h2", "h3", "nokey"},
				[]string{"PFMERGE", "m" + strconv.Itoa(round), "h3", "h1"},
				[]string{"GET", "m" + strconv.Itoa(round)},
				[]string{"PFMERGE", "s" + strconv.Itoa(round), "h3"},
				[]string{"GET", "s" + strconv.Itoa(round)},
				[]string{"PFCOUNT", "s" + strconv.Itoa(round)},
				[]string{"GET", "s" + strconv.Itoa(round)},
				[]string{"OBJECT", "ENCODING", "h1"},
			)
		}
	}
	// Binary elements, single elements one by one and a large merge.
	for i := 0; i < 300; i++ {
		cmds = append(cmds, []string{"PFADD", "b", string([]byte{byte(i), 0, byte(i * 7), '\n'})})
	}
	cmds = append(cmds, []string{"GET", "b"}, []string{"PFCOUNT", "b"}, []string{"PFMERGE", "b", "h1", "h2"},
		[]string{"GET", "b"}, []string{"PFCOUNT", "b"}, []string{"PFCOUNT", "b", "h3"})
	liveSteps(t, live, e, cmds)
	// The run must have crossed the promotion: h1 dense, h3 still sparse.
	if en, _ := e.Entry("h1"); len(en.Value) != 12304 || en.Value[4] != 0 { // HLL_DENSE_SIZE, HLL_DENSE
		t.Errorf("h1 is not dense: %d bytes", len(en.Value))
	}
	if en, _ := e.Entry("h3"); en.Value[4] != 1 { // HLL_SPARSE
		t.Errorf("h3 is not sparse")
	}
}

// geoRandCoord is a random longitude or latitude argument, printed with a
// random number of decimals (or as an integer).
func geoRandCoord(rng *rand.Rand, lim float64) string {
	v := (rng.Float64()*2 - 1) * lim
	if rng.Intn(8) == 0 {
		return strconv.Itoa(int(v))
	}
	return strconv.FormatFloat(v, 'f', rng.Intn(12), 64)
}

// TestGeoLive adds random points all over the globe and a dense cluster,
// then compares GEOPOS, GEOHASH, GEODIST in every unit, and searches of
// every kind (distances, hashes and coordinates included) with
// redis-server; STOREDIST's stored distances are compared at full
// precision through ZRANGE WITHSCORES on the server.
func TestGeoLive(t *testing.T) {
	if testing.Short() {
		t.Skip("live differential: needs redis-server")
	}
	live := liveServer(t)
	live("FLUSHALL")
	e := New(Options{Target: liveTarget(t), Topology: TopologyStandalone})
	rng := rand.New(rand.NewSource(11))
	var cmds [][]string
	var members []string
	add := []string{"GEOADD", "g"}
	for i := 0; i < 400; i++ {
		m := "p" + strconv.Itoa(i)
		members = append(members, m)
		if i < 200 {
			add = append(add, geoRandCoord(rng, 180), geoRandCoord(rng, 85.05), m)
		} else { // a cluster around Sicily
			add = append(add, strconv.FormatFloat(13+rng.Float64()*3, 'f', 6, 64), strconv.FormatFloat(37+rng.Float64()*2, 'f', 6, 64), m)
		}
	}
	cmds = append(cmds, add, append([]string{"GEOPOS", "g", "nope"}, members...), append([]string{"GEOHASH", "g", "nope"}, members...))
	units := []string{"m", "km", "mi", "ft"}
	// Ties: many members at a few positions, sorted fully (glibc's stable
	// merge sort) and partially (Redis's pqsort, not stable).
	ties := []string{"GEOADD", "t"}
	for i := 0; i < 60; i++ {
		ties = append(ties, strconv.Itoa(10+i%3), strconv.Itoa(10+i%2), fmt.Sprintf("m%02d", (i*37)%60))
	}
	cmds = append(cmds, ties)
	for _, n := range []string{"1", "2", "5", "7", "8", "20", "41", "59", "60", "100"} {
		cmds = append(cmds,
			[]string{"GEOSEARCH", "t", "FROMLONLAT", "10.3", "10.2", "BYRADIUS", "500", "km", "COUNT", n, "ASC"},
			[]string{"GEOSEARCH", "t", "FROMLONLAT", "10.3", "10.2", "BYRADIUS", "500", "km", "COUNT", n, "DESC"},
			[]string{"GEORADIUS", "t", "11", "10.5", "500", "km", "COUNT", n, "ANY", "ASC"})
	}
	cmds = append(cmds, []string{"GEOSEARCH", "t", "FROMLONLAT", "10.3", "10.2", "BYRADIUS", "500", "km", "ASC"},
		[]string{"GEOSEARCH", "t", "FROMLONLAT", "10.3", "10.2", "BYRADIUS", "500", "km", "DESC"})
	// Huge areas: neighbours repeat, and boxes cross the poles' limits and
	// the antimeridian.
	cmds = append(cmds, [][]string{
		{"GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "7000", "km", "ASC", "WITHDIST"},
		{"GEOSEARCH", "g", "FROMLONLAT", "179.9", "84", "BYBOX", "3000", "500", "km", "ASC", "WITHDIST"},
		{"GEOSEARCH", "g", "FROMLONLAT", "-179.9", "-84", "BYRADIUS", "1500", "mi", "DESC", "WITHCOORD"},
		{"GEORADIUS", "g", "15", "38", "50000", "km", "ASC", "COUNT", "50"},
		{"GEORADIUS", "g", "15", "38", "200", "km", "COUNT", "7", "ANY", "DESC"},
		{"GEOSEARCH", "g", "FROMLONLAT", "15", "38", "BYBOX", "400", "400", "km", "COUNT", "30", "ASC"},
		{"GEOSEARCH", "g", "FROMLONLAT", "15", "38", "BYRADIUS", "inf", "km", "COUNT", "5", "ASC", "WITHDIST"},
		{"GEOSEARCH", "g", "FROMLONLAT", "15", "38", "BYBOX", "inf", "1", "m", "COUNT", "5", "DESC", "WITHDIST"},
		{"GEOSEARCH", "g", "FROMLONLAT", "-180", "85.05112878", "BYRADIUS", "1e300", "FT", "COUNT", "9223372036854775807", "WITHDIST"},
		{"GEORADIUS", "g", "0", "0", "0", "m", "WITHDIST"},
	}...)
	for i := 0; i < 200; i++ {
		cmds = append(cmds, []string{"GEODIST", "g", members[rng.Intn(400)], members[rng.Intn(400)], units[rng.Intn(4)]})
	}
	for i := 0; i < 150; i++ {
		unit := units[rng.Intn(4)]
		var from []string
		if rng.Intn(2) == 0 {
			from = []string{"FROMMEMBER", members[rng.Intn(400)]}
		} else {
			from = []string{"FROMLONLAT", geoRandCoord(rng, 180), geoRandCoord(rng, 85)}
		}
		size := strconv.FormatFloat(math.Pow(10, rng.Float64()*4), 'f', 3, 64)
		if unit == "m" || unit == "ft" {
			size = strconv.FormatFloat(math.Pow(10, 2+rng.Float64()*5), 'f', 1, 64)
		}
		var by []string
		if rng.Intn(2) == 0 {
			by = []string{"BYRADIUS", size, unit}
		} else {
			by = []string{"BYBOX", size, strconv.FormatFloat(math.Pow(10, rng.Float64()*4), 'f', 2, 64), unit}
		}
		c := append(append(append([]string{"GEOSEARCH", "g"}, from...), by...), "WITHDIST", "WITHHASH", "WITHCOORD", "ASC")
		cmds = append(cmds, c)
		if i%3 == 0 {
			cmds = append(cmds, append(append(append([]string{"GEOSEARCH", "g"}, from...), by...), "COUNT", strconv.Itoa(1+rng.Intn(10)), "DESC", "WITHDIST"))
		}
		if i%4 == 0 {
			r := []string{"GEORADIUS", "g", geoRandCoord(rng, 180), geoRandCoord(rng, 85), size, unit, "WITHDIST", "COUNT", strconv.Itoa(1 + rng.Intn(20))}
			if i%8 == 0 {
				r = append(r, "ANY")
			}
			cmds = append(cmds, r, []string{"GEORADIUSBYMEMBER_RO", "g", members[rng.Intn(400)], size, unit, "DESC", "WITHCOORD", "WITHHASH"},
				append(append(append([]string{"GEOSEARCH", "g"}, from...), by...), "COUNT", "3", "ANY"))
		}
		if i%2 == 0 {
			st := append(append(append([]string{"GEOSEARCHSTORE", "st", "g"}, from...), by...), "STOREDIST")
			cmds = append(cmds, st, []string{"ZRANGE", "st", "0", "-1", "WITHSCORES"})
		}
	}
	var total int
	for _, c := range cmds {
		want := live(c...)
		if c[0] == "ZRANGE" {
			total += checkStored(t, e, c[1], want)
			continue
		}
		got, err := e.Do(context.Background(), c...)
		if err != nil {
			t.Fatalf("%.80q: %v", c, err)
		}
		if !got.Equal(want) {
			t.Fatalf("%.200q:\noffline %.600s\nlive    %.600s", c, got, want)
		}
	}
	if total < 1000 {
		t.Errorf("STOREDIST: only %d distances compared", total)
	}
}

// checkStored compares a stored sorted set with the server's ZRANGE
// WITHSCORES reply, scores printed as the target does: the engine's sin,
// cos and asin are glibc's, so every STOREDIST distance has the server's
// last bit. It returns how many members it compared.
func checkStored(t *testing.T, e *Engine, key string, want Reply) (total int) {
	t.Helper()
	en, _ := e.Entry(key)
	var got []Reply
	for _, m := range en.ZSet {
		got = append(got, BulkReply(m.Member), BulkReply(e.t.replyDouble(m.Score)))
	}
	if len(got) != len(want.Elems) {
		t.Errorf("stored %s: %d replies offline, %d live", key, len(got), len(want.Elems))
		return 0
	}
	for i := range got {
		if !got[i].Equal(want.Elems[i]) {
			t.Errorf("stored %s, element %d: offline %s, live %s", key, i, got[i], want.Elems[i])
		}
	}
	return len(got) / 2
}
