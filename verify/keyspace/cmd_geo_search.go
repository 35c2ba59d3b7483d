package keyspace

import (
	"github.com/scriptctl/scriptctl/internal/pqsort"
	"math"
	"slices"

	"github.com/scriptctl/scriptctl/internal/cnum"
)

// Geo searches, after geo.c's georadiusGeneric: GEOSEARCH, GEOSEARCHSTORE
// and GEORADIUS, GEORADIUSBYMEMBER and their _RO forms: the shape (radius,
// box, Valkey's polygon), the nine cells around the center, glibc's sort
// of the matches, and the reply or the stored set.

// georadiusGeneric's flags.
const (
	geoRadiusCoords = 1 << iota // GEORADIUS: around coordinates
	geoRadiusMember             // GEORADIUSBYMEMBER: around a member
	geoNoStore                  // the _RO forms: no STORE/STOREDIST
	geoSearch                   // GEOSEARCH's arguments
	geoSearchStore              // GEOSEARCHSTORE: only STOREDIST
)

const (
	geoSortNone = iota
	geoSortAsc
	geoSortDesc
)

// geoPoint is one match: its position, distance to the center (meters,
// then in the unit), score and member.
type geoPoint struct {
	lon, lat, dist, score float64
	member                string
}

// geoQuery is what georadiusGeneric parsed.
type geoQuery struct {
	e                             *Server
	shape                         geoShape
	withDist, withHash, withCoord bool
	any                           bool
	sort                          int
	count                         int64
	storeKey                      string
	store, storeDist              bool
	fromOK, byOK                  bool // GEOSEARCH: a center and a shape were given
}

// geoSearchCmd is georadiusGeneric for one command: srcIdx is the source
// key's position.
func geoSearchCmd(srcIdx int, flags int) func(*Server, cmdCtx, []string) (Reply, error) {
	return func(e *Server, c cmdCtx, a []string) (Reply, error) {
		return geoSearchGeneric(e, c, a, srcIdx, flags), nil
	}
}

// geoNoMember is the error for a FROMMEMBER or BYMEMBER member the set
// lacks: Valkey 9.0 names it (geoMemberText).
func geoNoMember(e *Server, member string) Reply {
	if e.t.data.geoMemberText {
		return errorf("member %s does not exist", cTrunc(member))
	}
	return errorf("could not decode requested zset member")
}

func geoSearchGeneric(e *Server, c cmdCtx, a []string, srcIdx, flags int) Reply {
	z, errr := getZSet(e, a[srcIdx])
	if errr != nil {
		return *errr
	}
	q := geoQuery{e: e}
	var base int
	switch {
	case flags&geoRadiusCoords != 0:
		base = 6
		lon, lat, errr := geoLonLat(a[2], a[3])
		if errr != nil {
			return *errr
		}
		q.shape.lon, q.shape.lat = lon, lat
		if errr := q.parseRadius(a[4], a[5]); errr != nil {
			return *errr
		}
	case flags&geoRadiusMember != 0 && z == nil:
		// No source: the options are still parsed, to choose the reply.
		base = 5
	case flags&geoRadiusMember != 0:
		base = 5
		score, ok := z.score(a[2])
		if !ok {
			return geoNoMember(e, a[2])
		}
		q.shape.lon, q.shape.lat = geoDecodeScore(score)
		if errr := q.parseRadius(a[3], a[4]); errr != nil {
			return *errr
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			q.store, q.storeKey = true, a[1]
		}
	}
	if r := q.parseOptions(a[base:], z, flags); r != nil {
		return *r
	}
	if r := q.check(c, flags); r != nil {
		return *r
	}
	if z == nil {
		if q.store {
			e.db.del(q.storeKey)
			return IntReply(0)
		}
		return ArrayReply()
	}
	if q.count != 0 && q.sort == geoSortNone && !q.any {
		q.sort = geoSortAsc
	}
	var limit int64
	if q.any {
		limit = q.count
	}
	pts := geoMembersOfAllNeighbors(z, &q.shape, limit)
	if len(pts) == 0 && !q.store {
		return ArrayReply()
	}
	returned := len(pts)
	if q.count != 0 && int64(returned) > q.count {
		returned = int(q.count)
	}
	if q.sort != geoSortNone {
		cmp := geoCmpAsc
		if q.sort == geoSortDesc {
			cmp = func(x, y *geoPoint) int { return -geoCmpAsc(x, y) }
		}
		if returned == len(pts) {
			// glibc's qsort is a stable merge sort: ties keep the search's order.
			slices.SortStableFunc(pts, func(x, y geoPoint) int { return cmp(&x, &y) })
		} else {
			// Redis's partial quicksort (pqsort.c), over the first returned.
			pqsort.Sort(len(pts), func(i, j int) int { return cmp(&pts[i], &pts[j]) },
				func(i, j int) { pts[i], pts[j] = pts[j], pts[i] }, 0, returned-1)
		}
	}
	pts = pts[:returned]
	for i := range pts {
		pts[i].dist /= q.shape.conversion
	}
	if q.store {
		return q.storeResult(e, pts)
	}
	return q.reply(e, pts)
}

// parseRadius is extractDistanceOrReply for a circle.
func (q *geoQuery) parseRadius(dist, unit string) *Reply {
	r, ok := parseDouble(dist)
	if !ok {
		e := errorf("need numeric radius")
		return &e
	}
	if r < 0 {
		e := errorf("radius cannot be negative")
		return &e
	}
	conv, errr := geoUnit(unit)
	if errr != nil {
		return errr
	}
	q.shape.box, q.shape.radius, q.shape.conversion = false, r, conv
	return nil
}

// parseBox is extractBoxOrReply.
func (q *geoQuery) parseBox(width, height, unit string) *Reply {
	w, ok := parseDouble(width)
	if !ok {
		e := errorf("need numeric width")
		return &e
	}
	h, ok := parseDouble(height)
	if !ok {
		e := errorf("need numeric height")
		return &e
	}
	if h < 0 || w < 0 {
		e := errorf("height or width cannot be negative")
		return &e
	}
	conv, errr := geoUnit(unit)
	if errr != nil {
		return errr
	}
	q.shape.box, q.shape.width, q.shape.height, q.shape.conversion = true, w, h, conv
	return nil
}

// parsePolygon reads BYPOLYGON's "num_vertices lon lat ..." (Valkey 9.0's
// georadiusGeneric): a count within C's int (else "invalid number of
// vertices"), at least 3 and no more than the pairs left (rest arguments
// follow the count), then each vertex as GEOADD reads one. The distance
// unit is meters. It answers the count.
func (q *geoQuery) parsePolygon(args []string, rest int) (int, *Reply) {
	nv, ok := parseInt(args[0])
	if !ok || nv < math.MinInt32 || nv > math.MaxInt32 {
		e := errorf("invalid number of vertices")
		return 0, &e
	}
	if nv < 3 || int64(rest/2) < nv {
		e := errorf("GEOSEARCH BYPOLYGON must have at least 3 vertices")
		return 0, &e
	}
	q.shape.box, q.shape.conversion = false, 1
	q.shape.polygon = make([][2]float64, nv)
	for j := range q.shape.polygon {
		lon, lat, errr := geoLonLat(args[1+2*j], args[2+2*j])
		if errr != nil {
			return 0, errr
		}
		q.shape.polygon[j] = [2]float64{lon, lat}
	}
	return int(nv), nil
}

// parseOptions is georadiusGeneric's option loop, in its order of checks.
func (q *geoQuery) parseOptions(opts []string, z *zset, flags int) *Reply {
	search := flags&geoSearch != 0
	canStore := flags&geoNoStore == 0 && !search
	var fromMember, fromLoc, byRadius, byBox, byPolygon bool
	n := len(opts)
	for i := 0; i < n; i++ {
		arg := opts[i]
		switch {
		case cEqualFold(arg, "withdist"):
			q.withDist = true
		case cEqualFold(arg, "withhash"):
			q.withHash = true
		case cEqualFold(arg, "withcoord"):
			q.withCoord = true
		case cEqualFold(arg, "any"):
			q.any = true
		case cEqualFold(arg, "asc"):
			q.sort = geoSortAsc
		case cEqualFold(arg, "desc"):
			q.sort = geoSortDesc
		case cEqualFold(arg, "count") && i+1 < n:
			cnt, ok := parseInt(opts[i+1])
			if !ok {
				return &errNotInt
			}
			if cnt <= 0 {
				e := errorf("COUNT must be > 0")
				return &e
			}
			q.count = cnt
			i++
		case cEqualFold(arg, "store") && i+1 < n && canStore:
			q.store, q.storeKey, q.storeDist = true, opts[i+1], false
			i++
		case cEqualFold(arg, "storedist") && i+1 < n && canStore:
			q.store, q.storeKey, q.storeDist = true, opts[i+1], true
			i++
		case cEqualFold(arg, "storedist") && search && flags&geoSearchStore != 0:
			q.storeDist = true
		case cEqualFold(arg, "frommember") && i+1 < n && search && !fromLoc && !byPolygon:
			if z != nil {
				score, ok := z.score(opts[i+1])
				if !ok {
					e := geoNoMember(q.e, opts[i+1])
					return &e
				}
				q.shape.lon, q.shape.lat = geoDecodeScore(score)
			}
			fromMember = true
			i++
		case cEqualFold(arg, "fromlonlat") && i+2 < n && search && !fromMember && !byPolygon:
			lon, lat, errr := geoLonLat(opts[i+1], opts[i+2])
			if errr != nil {
				return errr
			}
			q.shape.lon, q.shape.lat = lon, lat
			fromLoc = true
			i += 2
		case cEqualFold(arg, "byradius") && i+2 < n && search && !byBox && !byPolygon:
			if errr := q.parseRadius(opts[i+1], opts[i+2]); errr != nil {
				return errr
			}
			byRadius = true
			i += 2
		case cEqualFold(arg, "bybox") && i+3 < n && search && !byRadius && !byPolygon:
			if errr := q.parseBox(opts[i+1], opts[i+2], opts[i+3]); errr != nil {
				return errr
			}
			byBox = true
			i += 3
		case cEqualFold(arg, "bypolygon") && i+2 < n && search && q.e.t.data.geoPolygon && !byRadius && !byBox && !fromMember && !fromLoc:
			nv, errr := q.parsePolygon(opts[i+1:], n-i-2)
			if errr != nil {
				return errr
			}
			byPolygon = true
			i += 1 + nv*2
		default:
			return &errSyntax
		}
	}
	if search {
		// A polygon needs no center: its centroid is one.
		q.fromOK, q.byOK = fromMember || fromLoc || byPolygon, byRadius || byBox || byPolygon
	}
	return nil
}

// check is georadiusGeneric's checks after the options, in their order.
func (q *geoQuery) check(c cmdCtx, flags int) *Reply {
	var r Reply
	switch {
	case q.store && (q.withDist || q.withHash || q.withCoord):
		what := "STORE option in GEORADIUS"
		if flags&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		r = errorf("%s is not compatible with WITHDIST, WITHHASH and WITHCOORD options", what)
	case flags&geoSearch != 0 && !q.fromOK:
		r = errorf("exactly one of FROMMEMBER or FROMLONLAT can be specified for %s", cTrunc(c.name))
	case flags&geoSearch != 0 && !q.byOK && q.e.t.data.geoPolygon:
		r = errorf("exactly one of BYRADIUS, BYBOX and BYPOLYGON can be specified for %s", cTrunc(c.name))
	case flags&geoSearch != 0 && !q.byOK:
		r = errorf("exactly one of BYRADIUS and BYBOX can be specified for %s", cTrunc(c.name))
	case q.any && q.count == 0:
		r = errorf("the ANY argument requires COUNT argument")
	default:
		return nil
	}
	return &r
}

// geoMembersOfAllNeighbors is membersOfAllNeighbors: the matches in the
// center cell and its neighbours, in that order, each cell's members by
// ascending score; limit (ANY's count, 0 for none) stops the search early.
func geoMembersOfAllNeighbors(z *zset, s *geoShape, limit int64) []geoPoint {
	cells := s.areas()
	var pts []geoPoint
	last := 0 // like Redis, 0 also means "none processed yet"
	for i, cell := range cells {
		if cell.isZero() {
			continue
		}
		if last != 0 && cell == cells[last] {
			continue // a huge radius makes neighbours repeat
		}
		if len(pts) > 0 && limit > 0 && int64(len(pts)) >= limit {
			break
		}
		pts = geoPointsInCell(z, cell, s, pts, limit)
		last = i
	}
	return pts
}

// geoPointsInCell is membersOfGeoHashBox: the members whose score is in the
// cell's range [min, max) and inside the shape.
func geoPointsInCell(z *zset, cell geoHashBits, s *geoShape, pts []geoPoint, limit int64) []geoPoint {
	min := float64(geoAlign52(cell))
	cell.bits++
	max := float64(geoAlign52(cell))
	for _, m := range z.rangeByScore(min, max) {
		if m.Score >= max {
			break
		}
		lon, lat := geoDecodeScore(m.Score)
		if d, ok := s.within(lon, lat); ok {
			pts = append(pts, geoPoint{lon: lon, lat: lat, dist: d, score: m.Score, member: m.Member})
		}
		if len(pts) > 0 && limit > 0 && int64(len(pts)) >= limit {
			break
		}
	}
	return pts
}

// geoCmpAsc is sort_gp_asc.
func geoCmpAsc(x, y *geoPoint) int {
	switch {
	case x.dist > y.dist:
		return 1
	case x.dist == y.dist:
		return 0
	}
	return -1
}

// reply answers the matches: members alone, or each as [member, dist,
// hash, [lon, lat]] with the options asked for.
func (q *geoQuery) reply(e *Server, pts []geoPoint) Reply {
	out := make([]Reply, 0, len(pts))
	opts := q.withDist || q.withHash || q.withCoord
	for _, p := range pts {
		if !opts {
			out = append(out, BulkReply(p.member))
			continue
		}
		row := []Reply{BulkReply(p.member)}
		if q.withDist {
			row = append(row, geoDistanceReply(p.dist))
		}
		if q.withHash {
			row = append(row, IntReply(cnum.Long(p.score)))
		}
		if q.withCoord {
			row = append(row, ArrayReply(geoHuman(e, p.lon), geoHuman(e, p.lat)))
		}
		out = append(out, ArrayReply(row...))
	}
	return ArrayReply(out...)
}

// storeResult writes the matches into the store key as a new sorted set
// (scores: the geohashes, or the distances with STOREDIST), replacing any
// value and its TTL; no match deletes the key.
func (q *geoQuery) storeResult(e *Server, pts []geoPoint) Reply {
	if len(pts) == 0 {
		e.db.del(q.storeKey)
		return IntReply(0)
	}
	z := newZSet()
	for _, p := range pts {
		score := p.score
		if q.storeDist {
			score = p.dist
		}
		z.set(p.member, score)
	}
	e.db.keys[q.storeKey] = &value{kind: kindZSet, zset: z}
	return IntReply(int64(len(pts)))
}
