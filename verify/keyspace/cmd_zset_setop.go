package keyspace

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Sorted set algebra, after t_zset.c's zunionInterDiffGenericCommand:
// ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD (weights,
// AGGREGATE, sets read as sorted sets of score 1).

type zsetOp int

const (
	opUnion zsetOp = iota
	opInter
	opDiff
)

// zsetOpSrc is one input of ZUNION/ZINTER/ZDIFF: a sorted set, a set
// (every member scores 1) or nothing.
type zsetOpSrc struct {
	z      *zset
	s      *set
	weight float64
}

func (o zsetOpSrc) len() int {
	switch {
	case o.z != nil:
		return o.z.len()
	case o.s != nil:
		return o.s.len()
	}
	return 0
}

func (o zsetOpSrc) members() []ZMember {
	switch {
	case o.z != nil:
		return o.z.all()
	case o.s != nil:
		ms := o.s.members()
		out := make([]ZMember, len(ms))
		for i, m := range ms {
			out[i] = ZMember{m, 1}
		}
		return out
	}
	return nil
}

func (o zsetOpSrc) find(member string) (float64, bool) {
	switch {
	case o.z != nil:
		return o.z.score(member)
	case o.s != nil && o.s.has(member):
		return 1, true
	}
	return 0, false
}

const (
	aggrSum = iota
	aggrMin
	aggrMax
)

// aggregate is zunionInterAggregate: a sum that is NaN (inf + -inf) is 0.
func aggregate(target *float64, v float64, aggr int) {
	switch aggr {
	case aggrSum:
		*target += v
		if math.IsNaN(*target) {
			*target = 0
		}
	case aggrMin:
		if v < *target {
			*target = v
		}
	case aggrMax:
		if v > *target {
			*target = v
		}
	}
}

// zsetOpArgs is a parsed ZUNION/ZINTER/ZDIFF/ZINTERCARD command.
type zsetOpArgs struct {
	src        []zsetOpSrc
	aggr       int
	withScores bool
	limit      int64 // ZINTERCARD's LIMIT; 0 is none
}

// parseZsetOp reads numkeys, looks the inputs up (a wrong type fails
// before any option is read, as in Redis) and parses the options.
func parseZsetOp(e *Server, a []string, nkIdx int, op zsetOp, store, card bool) (zsetOpArgs, *Reply) {
	var p zsetOpArgs
	fail := func(r Reply) (zsetOpArgs, *Reply) { return p, &r }
	setnum, ok := parseLong(a[nkIdx])
	if !ok {
		return fail(errNotInt)
	}
	if setnum < 1 {
		return fail(ErrorReply(fmt.Sprintf("ERR at least 1 input key is needed for '%s' command", a[0])))
	}
	if setnum > int64(len(a)-nkIdx-1) {
		return fail(errSyntax)
	}
	p.src = make([]zsetOpSrc, setnum)
	j := nkIdx + 1
	for i := range p.src {
		p.src[i].weight = 1
		if v := e.db.get(a[j]); v != nil {
			switch v.kind {
			case kindZSet:
				p.src[i].z = v.zset
			case kindSet:
				p.src[i].s = v.set
			default:
				return fail(errWrongType)
			}
		}
		j++
	}
	for j < len(a) {
		remaining := len(a) - j
		opt := strings.ToLower(a[j])
		switch {
		case op != opDiff && !card && remaining >= len(p.src)+1 && opt == "weights":
			j++
			for i := range p.src {
				w, ok := string2d(a[j])
				if !ok {
					return fail(ErrorReply("ERR weight value is not a float"))
				}
				p.src[i].weight = w
				j++
			}
		case op != opDiff && !card && remaining >= 2 && opt == "aggregate":
			switch strings.ToLower(a[j+1]) {
			case "sum":
				p.aggr = aggrSum
			case "min":
				p.aggr = aggrMin
			case "max":
				p.aggr = aggrMax
			default:
				return fail(errSyntax)
			}
			j += 2
		case !store && !card && opt == "withscores":
			p.withScores = true
			j++
		case card && remaining >= 2 && opt == "limit":
			l, ok := parseLong(a[j+1])
			if !ok || l < 0 {
				return fail(ErrorReply("ERR LIMIT can't be negative"))
			}
			p.limit = l
			j += 2
		default:
			return fail(errSyntax)
		}
	}
	return p, nil
}

// zsetOpGeneric is zunionInterDiffGenericCommand: ZUNION ZINTER ZDIFF
// ZINTERCARD (card) at nkIdx 1, the STORE forms (destination a[1]) at 2.
func zsetOpGeneric(e *Server, a []string, nkIdx int, op zsetOp, card bool) Reply {
	store := nkIdx == 2
	p, errr := parseZsetOp(e, a, nkIdx, op, store, card)
	if errr != nil {
		return *errr
	}
	if op != opDiff {
		// Redis sorts the inputs by size (glibc's qsort is a stable merge
		// sort here); the order of a sum's additions follows.
		sort.SliceStable(p.src, func(x, y int) bool { return p.src[x].len() < p.src[y].len() })
	}
	// The result is a skiplist, as Redis builds it: a reply keeps -0.
	dst := newZSetSkiplist()
	switch op {
	case opInter:
		n := zinter(p, dst, card)
		if card {
			return IntReply(n)
		}
	case opUnion:
		zunion(p, dst)
	case opDiff:
		zdiff(p.src, dst)
	}
	if store {
		storeZSet(e, a[1], compactZSet(dst))
		return IntReply(int64(dst.len()))
	}
	return zmembersReply(e, dst.all(), p.withScores)
}

// zinter adds to dst the members of every input, walking the smallest;
// with card it only counts them (up to the limit) and returns the count.
func zinter(p zsetOpArgs, dst *zset, card bool) int64 {
	var n int64
	if p.src[0].len() == 0 {
		return 0
	}
	for _, m := range p.src[0].members() {
		score := p.src[0].weight * m.Score
		if math.IsNaN(score) {
			score = 0
		}
		in := true
		for _, o := range p.src[1:] {
			v, found := o.find(m.Member)
			if !found {
				in = false
				break
			}
			aggregate(&score, v*o.weight, p.aggr)
		}
		switch {
		case !in:
		case card:
			n++
			if p.limit > 0 && n >= p.limit {
				return n
			}
		default:
			dst.set(m.Member, score)
		}
	}
	return n
}

// zunion aggregates every input's weighted scores into dst, inputs in
// order (a weighted score that is NaN counts as 0).
func zunion(p zsetOpArgs, dst *zset) {
	acc := map[string]float64{}
	var order []string
	for _, o := range p.src {
		for _, m := range o.members() {
			score := o.weight * m.Score
			if math.IsNaN(score) {
				score = 0
			}
			if cur, seen := acc[m.Member]; seen {
				aggregate(&cur, score, p.aggr)
				acc[m.Member] = cur
				continue
			}
			acc[m.Member] = score
			order = append(order, m.Member)
		}
	}
	for _, m := range order {
		dst.set(m, acc[m])
	}
}

// zdiff adds to dst the members of the first input found in no other.
func zdiff(src []zsetOpSrc, dst *zset) {
	for _, m := range src[0].members() {
		in := false
		for _, o := range src[1:] {
			if _, found := o.find(m.Member); found {
				in = true
				break
			}
		}
		if !in {
			dst.set(m.Member, m.Score)
		}
	}
}

// compactZSet is zsetConvertToListpackIfNeeded for a computed skiplist:
// small results become listpacks (which store -0 as 0).
func compactZSet(z *zset) *zset {
	if z.len() > zsetMaxListpackEntries {
		return z
	}
	for n := z.first(); n != nil; n = n.following() {
		if len(n.Member) > zsetMaxListpackValue {
			return z
		}
	}
	c := newZSet()
	for n := z.first(); n != nil; n = n.following() {
		c.set(n.Member, n.Score)
	}
	return c
}
