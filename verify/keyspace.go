package verify

type valueKind int

const (
	kindString valueKind = iota
	kindHash
)

// value is one key's value. expireAt is the Unix ms at which the key is
// gone (0: no expiry); a key is expired once now >= expireAt, as in Redis.
type value struct {
	kind     valueKind
	str      string
	hash     *hash
	expireAt int64
}

// hash keeps field order the way a small (listpack-encoded) Redis hash does:
// insertion order, an update keeps the field's place, a delete closes the gap.
type hash struct {
	order []string
	vals  map[string]string
}

func newHash() *hash { return &hash{vals: map[string]string{}} }

// set stores field and reports whether it is new.
func (h *hash) set(field, val string) bool {
	_, exists := h.vals[field]
	if !exists {
		h.order = append(h.order, field)
	}
	h.vals[field] = val
	return !exists
}

func (h *hash) del(field string) bool {
	if _, ok := h.vals[field]; !ok {
		return false
	}
	delete(h.vals, field)
	for i, f := range h.order {
		if f == field {
			h.order = append(h.order[:i], h.order[i+1:]...)
			break
		}
	}
	return true
}

// keyspace is database 0 of the offline server.
type keyspace struct {
	e    *Engine
	keys map[string]*value
}

func newKeyspace(e *Engine) *keyspace {
	return &keyspace{e: e, keys: map[string]*value{}}
}

// get returns the live value of key, deleting it first when it has expired.
func (db *keyspace) get(key string) *value {
	v, ok := db.keys[key]
	if !ok {
		return nil
	}
	if v.expireAt > 0 && db.e.now >= v.expireAt {
		delete(db.keys, key)
		return nil
	}
	return v
}

func (db *keyspace) del(key string) bool {
	if db.get(key) == nil {
		return false
	}
	delete(db.keys, key)
	return true
}

// setString stores a string value; the expiry is dropped unless keepTTL.
func (db *keyspace) setString(key, val string, keepTTL bool) {
	old := db.get(key)
	v := &value{kind: kindString, str: val}
	if keepTTL && old != nil {
		v.expireAt = old.expireAt
	}
	db.keys[key] = v
}
