package keyspace

import (
	"slices"
	"strconv"
)

// set is a Redis 7.0 set in one of its two encodings (t_set.c, intset.c).
//
// An intset holds only members string2ll reads as an int64, sorted
// ascending by value, at most maxIntsetEntries of them: SMEMBERS, SSCAN and
// the set operations answer in that order, so it is exact. Adding a member
// that is not such an integer, or a 513th integer, converts the set to a
// hashtable, once: removing members never converts it back.
//
// A hashtable's order comes from Redis's dict and its siphash seed, chosen
// at server start: no engine can reproduce it. The engine keeps insertion
// order (a conversion inserts the intset's members in ascending order; a
// removal closes the gap) and the commands warn when a reply depends on it.
//
// A new set starts as an empty intset: newSet then add(first) makes the same
// encoding as Redis's setTypeCreate(first) followed by setTypeAdd, and an
// empty newSet is Redis's createIntsetObject (the SINTERSTORE/SUNION target).
//
// Contract used outside cmd_set.go (Entry, Put, COPY, SORT, OBJECT):
// newSet, add, has, rem, len, members (in the order SMEMBERS answers),
// clone, encoding.
//
// From Redis 7.2 (dataFacts.listpackSets) a set of at most 128 members of
// at most 64 bytes that are not all integers is a listpack: its order is
// insertion order, exact, and the engine keeps it in the same linked list
// as a hashtable (ht and lp both set). Past either limit it becomes a
// hashtable, once.
type set struct {
	ints []int64 // intset encoding: ascending
	ht   bool    // listpack or hashtable encoding: the fields below are used
	lp   bool    // with ht: the listpack encoding
	// lpMax is set-max-listpack-entries on the target: 0 where sets have
	// no listpack encoding (7.0).
	lpMax int
	// The hashtable's members in insertion order: a linked list, so that
	// removing one (SREM, SPOP in a loop) does not move the others.
	nodes      map[string]*htNode
	head, tail *htNode
}

type htNode struct {
	m          string
	prev, next *htNode
}

// maxIntsetEntries is set-max-intset-entries' default.
const maxIntsetEntries = 512

// maxListpackEntries and maxListpackValue are set-max-listpack-entries
// and set-max-listpack-value's defaults (7.2).
const (
	maxListpackEntries = 128
	maxListpackValue   = 64
)

// newSet is an empty set with 7.0's encodings.
func newSet() *set { return &set{} }

// newSetFor is an empty intset with the target's encodings
// (createIntsetObject).
func newSetFor(e *Server) *set {
	s := &set{}
	if e.t.data.listpackSets {
		s.lpMax = maxListpackEntries
	}
	return s
}

// createSet is setTypeCreate(first, hint) from 7.2: an intset when first
// is an integer and hint fits one, else a listpack when hint fits one,
// else a hashtable. On 7.0 it is an empty intset that the first add
// converts.
func createSet(e *Server, first string, hint int) *set {
	s := newSetFor(e)
	if s.lpMax == 0 {
		return s
	}
	if _, ok := intMember(first); ok && hint <= maxIntsetEntries {
		return s
	}
	s.ht, s.lp, s.nodes = true, hint <= s.lpMax, map[string]*htNode{}
	return s
}

// createHashtable is createSetObject: an empty hashtable-encoded set.
func createHashtable(e *Server) *set {
	s := newSetFor(e)
	s.ht, s.nodes = true, map[string]*htNode{}
	return s
}

// maybeConvert is setTypeMaybeConvert (7.2): a listpack or intset about to
// take more than its limit of members becomes a hashtable first.
func (s *set) maybeConvert(hint int) {
	if s.lpMax == 0 {
		return
	}
	if (s.lp && hint > s.lpMax) || (!s.ht && hint > maxIntsetEntries) {
		s.toHashtable()
	}
}

// hashtable reports whether the set is hashtable-encoded: an order Redis
// does not fix.
func (s *set) hashtable() bool { return s.ht && !s.lp }

// intMember reads m the way an intset accepts it (isSdsRepresentableAsLongLong).
func intMember(m string) (int64, bool) { return parseInt(m) }

// findInt returns where v is, or where it would be inserted, in the intset.
func (s *set) findInt(v int64) (int, bool) {
	return slices.BinarySearch(s.ints, v)
}

// add inserts m and reports whether it is new.
func (s *set) add(m string) bool {
	if !s.ht {
		if v, ok := intMember(m); ok {
			i, found := s.findInt(v)
			if found {
				return false
			}
			s.ints = slices.Insert(s.ints, i, v)
			if len(s.ints) > maxIntsetEntries {
				s.toHashtable()
			}
			return true
		}
		// An integer's digits never pass set-max-listpack-value.
		if s.lpMax > 0 && len(s.ints) < s.lpMax && len(m) <= maxListpackValue {
			s.toHashtable()
			s.lp = true
		} else {
			s.toHashtable()
		}
	}
	if _, ok := s.nodes[m]; ok {
		return false
	}
	if s.lp && (len(s.nodes) >= s.lpMax || len(m) > maxListpackValue) {
		s.lp = false // the size limit is reached: a hashtable, in the same order
	}
	s.push(m)
	return true
}

// push appends a new member to the hashtable's order.
func (s *set) push(m string) {
	n := &htNode{m: m, prev: s.tail}
	if s.tail != nil {
		s.tail.next = n
	} else {
		s.head = n
	}
	s.tail = n
	s.nodes[m] = n
}

// toHashtable converts an intset, members in ascending order
// (setTypeConvert), or a listpack, in its order.
func (s *set) toHashtable() {
	if s.ht {
		s.lp = false
		return
	}
	s.ht = true
	s.nodes = make(map[string]*htNode, len(s.ints))
	for _, v := range s.ints {
		s.push(strconv.FormatInt(v, 10))
	}
	s.ints = nil
}

func (s *set) has(m string) bool {
	if s.ht {
		_, ok := s.nodes[m]
		return ok
	}
	v, ok := intMember(m)
	if !ok {
		return false
	}
	_, found := s.findInt(v)
	return found
}

// rem removes m and reports whether it was there.
func (s *set) rem(m string) bool {
	if !s.ht {
		v, ok := intMember(m)
		if !ok {
			return false
		}
		i, found := s.findInt(v)
		if found {
			s.ints = slices.Delete(s.ints, i, i+1)
		}
		return found
	}
	n, ok := s.nodes[m]
	if !ok {
		return false
	}
	delete(s.nodes, m)
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		s.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		s.tail = n.prev
	}
	return true
}

func (s *set) len() int {
	if s.ht {
		return len(s.nodes)
	}
	return len(s.ints)
}

// members returns the members in the order SMEMBERS answers: exact for an
// intset, insertion order for a hashtable.
func (s *set) members() []string {
	out := make([]string, 0, s.len())
	if s.ht {
		for n := s.head; n != nil; n = n.next {
			out = append(out, n.m)
		}
		return out
	}
	for _, v := range s.ints {
		out = append(out, strconv.FormatInt(v, 10))
	}
	return out
}

// first returns the first member of a non-empty set.
func (s *set) first() string {
	if s.ht {
		return s.head.m
	}
	return strconv.FormatInt(s.ints[0], 10)
}

// clone keeps the encoding, as COPY's setTypeDup does: a hashtable of
// integers stays a hashtable.
func (s *set) clone() *set {
	c := &set{ht: s.ht, lp: s.lp, lpMax: s.lpMax, ints: slices.Clone(s.ints)}
	if s.ht {
		c.nodes = make(map[string]*htNode, len(s.nodes))
		for n := s.head; n != nil; n = n.next {
			c.push(n.m)
		}
	}
	return c
}

// encoding is what OBJECT ENCODING answers.
func (s *set) encoding() string {
	if s.lp {
		return "listpack"
	}
	if s.ht {
		return "hashtable"
	}
	return "intset"
}
