package keyspace

// hash keeps field order the way a small (listpack-encoded) Redis hash does:
// insertion order, an update keeps the field's place, a delete closes the gap.
//
// Redis converts a listpack hash to a hashtable, for good, once it holds more
// than hash-max-listpack-entries fields or is given a field or value longer
// than hash-max-listpack-value bytes (hashTypeSet). A hashtable's iteration
// order depends on a seed chosen at server start, so no offline order can
// match it: the engine keeps insertion order (the documented order) and the
// commands that list fields warn when they answer from a hashtable.
//
// Contract used outside cmd_hash.go (Entry, Put, COPY, SORT, OBJECT):
// newHash, set, get, del, len, fields (in Redis's order), clone, encoding.
type hash struct {
	order []string
	vals  map[string]string
	ht    bool // hashtable-encoded (one way: Redis never converts back)
	// ttl holds the Unix ms at which a field expires, for the fields that
	// have one (Redis 7.4's hash-field expiry); see cmd_hash_expire.go.
	ttl map[string]int64
	// ex: a listpack that took a field expiry is listpackex (for good), in
	// which fields with a TTL come first, by TTL, then the others.
	ex bool
}

// Redis 7.0's defaults for hash-max-listpack-entries and -value.
const (
	hashMaxListpackEntries = 512
	hashMaxListpackValue   = 64
)

func newHash() *hash { return &hash{vals: map[string]string{}} }

// set stores field and reports whether it is new.
func (h *hash) set(field, val string) bool {
	if len(field) > hashMaxListpackValue || len(val) > hashMaxListpackValue {
		h.ht = true
	}
	_, exists := h.vals[field]
	if !exists {
		h.order = append(h.order, field)
	}
	if _, volatile := h.ttl[field]; volatile {
		// hashTypeSet without HASH_SET_KEEP_TTL drops the field's TTL; a
		// listpackex re-inserts the field at its end.
		h.setTTL(field, 0)
	}
	h.vals[field] = val
	if len(h.vals) > hashMaxListpackEntries {
		h.ht = true
	}
	return !exists
}

func (h *hash) get(field string) (string, bool) {
	v, ok := h.vals[field]
	return v, ok
}

func (h *hash) del(field string) bool {
	if _, ok := h.vals[field]; !ok {
		return false
	}
	delete(h.vals, field)
	delete(h.ttl, field)
	for i, f := range h.order {
		if f == field {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
	return true
}

func (h *hash) len() int { return len(h.vals) }

// fields returns the field names in the order HKEYS/HGETALL answer (for a
// hashtable, the documented offline order: insertion order).
func (h *hash) fields() []string { return append([]string(nil), h.order...) }

func (h *hash) clone() *hash {
	c := newHash()
	for _, f := range h.order {
		c.set(f, h.vals[f])
	}
	c.ht, c.ex = h.ht, h.ex
	for f, at := range h.ttl {
		if c.ttl == nil {
			c.ttl = map[string]int64{}
		}
		c.ttl[f] = at
	}
	return c
}

// encoding is what OBJECT ENCODING answers.
func (h *hash) encoding() string {
	if h.ht {
		return "hashtable"
	}
	if h.ex {
		return "listpackex"
	}
	return "listpack"
}
