package keyspace

import "sort"

// Entry is one key of the keyspace. Exactly one of Value, Hash, List, Set,
// ZSet and Stream holds the key's contents, by Type.
type Entry struct {
	Key   string
	Type  string    // "string", "hash", "list", "set", "zset" or "stream"
	Value string    // Type "string"
	Hash  []Field   // Type "hash": fields in the order HGETALL answers
	List  []string  // Type "list": head first, as LRANGE 0 -1 answers
	Set   []string  // Type "set": members in the order SMEMBERS answers
	ZSet  []ZMember // Type "zset": ascending, as ZRANGE 0 -1 answers
	// Stream is Type "stream": its entries, counters and groups.
	Stream *StreamState
	PTTL   int64 // remaining ms; -1 means no expiry
	// FieldTTL is Type "hash": the remaining ms of each field that expires
	// (hash-field expiry, Redis 7.4+); nil when none does.
	FieldTTL map[string]int64
}

// Field is one field of a hash with its value.
type Field struct {
	Name, Value string
}

// Entries returns the live (not expired) keys, sorted by key.
func (e *Server) Entries() []Entry {
	var out []Entry
	for k := range e.db.keys {
		if en, ok := e.Entry(k); ok {
			out = append(out, en)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Entry returns one live key: a copy, which the caller may change.
func (e *Server) Entry(key string) (Entry, bool) {
	v := e.db.get(key)
	if v == nil {
		return Entry{}, false
	}
	en := Entry{Key: key, Type: v.kind.String(), PTTL: -1}
	if v.expireAt > 0 {
		en.PTTL = v.expireAt - e.now
	}
	switch v.kind {
	case kindString:
		en.Value = v.str
	case kindHash:
		for _, f := range v.hash.fields() {
			val, _ := v.hash.get(f)
			en.Hash = append(en.Hash, Field{Name: f, Value: val})
			if at, ok := v.hash.ttl[f]; ok {
				if en.FieldTTL == nil {
					en.FieldTTL = map[string]int64{}
				}
				en.FieldTTL[f] = at - e.now
			}
		}
	case kindList:
		en.List = v.list.items()
	case kindSet:
		en.Set = v.set.members()
	case kindZSet:
		en.ZSet = v.zset.all()
	case kindStream:
		st := v.stream.Export()
		en.Stream = &st
	}
	return en, true
}

// Put creates or replaces a key (initial state), writing its contents in the
// order given, as HSET, RPUSH, SADD and ZADD with the same arguments would:
// a hash keeps its fields in that order (a field given twice
// keeps its first place and its last value), a list its elements; a
// stream is built as XADDs of its entries in order, then its counters and
// groups are set (CheckStream tells whether a StreamState is one Redis
// could hold; Put deletes the key for one it could not, or a nil Stream;
// a negative delivery or seen time is the virtual clock's now).
// Type "string" (or empty) is a string. A collection with nothing in it
// deletes the key instead, since Redis has no empty collections (a stream
// may be empty). A positive PTTL expires the key that many ms from now;
// any other PTTL means no expiry; a hash's FieldTTL expires its fields
// alike, given in field order as HPEXPIRE would. A NaN score is left out, as ZADD refuses
// it. stored is false when the key was deleted instead.
func (e *Server) Put(en Entry) (stored bool) {
	v := &value{}
	n := 1 // elements of a collection; a string always counts as one
	switch en.Type {
	case "hash":
		v.kind, v.hash = kindHash, newHash()
		for _, f := range en.Hash {
			v.hash.set(f.Name, f.Value)
		}
		v.hash.putTTLs(en.Hash, en.FieldTTL, e.now)
		n = v.hash.len()
	case "list":
		v.kind, v.list = kindList, newListFor(e)
		v.list.growing(en.List...)
		for _, x := range en.List {
			v.list.pushBack(x)
		}
		n = v.list.len()
	case "set":
		v.kind, v.set = kindSet, newSetFor(e)
		if len(en.Set) > 0 {
			v.set = createSet(e, en.Set[0], len(en.Set))
		}
		for _, m := range en.Set {
			v.set.add(m)
		}
		n = v.set.len()
	case "zset":
		v.kind, v.zset = kindZSet, newZSet()
		for _, m := range en.ZSet {
			if m.Score == m.Score { // a NaN score: ZADD refuses it
				v.zset.set(m.Member, m.Score)
			}
		}
		n = v.zset.len()
	case "stream":
		n = 0
		if en.Stream != nil {
			if s, err := streamFromState(e.streamTimes(*en.Stream)); err == nil {
				v.kind, v.stream, n = kindStream, s, 1
			}
		}
	default:
		v.kind, v.str = kindString, en.Value
	}
	if n == 0 {
		delete(e.db.keys, en.Key)
		return false
	}
	if en.PTTL > 0 {
		v.expireAt = e.now + en.PTTL
	}
	e.db.keys[en.Key] = v
	return true
}

// streamTimes is st with every negative delivery or seen time (one a state
// file does not give) set to the virtual clock's now.
func (e *Server) streamTimes(st StreamState) StreamState {
	st.Groups = append([]StreamGroup(nil), st.Groups...)
	for i := range st.Groups {
		g := &st.Groups[i]
		g.Consumers = append([]StreamConsumer(nil), g.Consumers...)
		for j := range g.Consumers {
			if g.Consumers[j].SeenTime < 0 {
				g.Consumers[j].SeenTime = e.now
			}
		}
		g.Pending = append([]StreamPending(nil), g.Pending...)
		for j := range g.Pending {
			if g.Pending[j].DeliveryTime < 0 {
				g.Pending[j].DeliveryTime = e.now
			}
		}
	}
	return st
}
