package verify

type valueKind int

const (
	kindString valueKind = iota
	kindHash
	kindList
	kindSet
	kindZSet
	kindStream
)

// typeNames are the names TYPE answers, by kind.
var typeNames = [...]string{
	kindString: "string",
	kindHash:   "hash",
	kindList:   "list",
	kindSet:    "set",
	kindZSet:   "zset",
	kindStream: "stream",
}

func (k valueKind) String() string { return typeNames[k] }

// value is one key's value. expireAt is the Unix ms at which the key is
// gone (0: no expiry); a key is expired once now >= expireAt, as in Redis.
// Exactly one of str, hash, list, set, zset, stream is used, by kind.
type value struct {
	kind     valueKind
	str      string
	hash     *hash
	list     *list
	set      *set
	zset     *zset
	stream   *stream
	expireAt int64
}

// keyspace is one numbered database of the offline server.
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
