package keyspace

import "strconv"

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

// value is one key's value. expireAt is the Unix ms of the key's expiry
// (0: none); a key is expired once now > expireAt, as in Redis
// (keyIsExpired: "now > when"): at now == expireAt it still exists, with
// PTTL 0.
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
	// strEnc is the encoding Redis chose when the string was stored (int,
	// embstr or raw) and encFor the string it was chosen for: a command
	// that edits str in place (APPEND) leaves them different, and Redis
	// answers such an edited string as raw. Empty: derive it from str.
	strEnc, encFor string
	// unshared marks a small integer that is its own object (a COPY):
	// Redis stores 0..9999 as shared integers, whose REFCOUNT is INT_MAX.
	unshared bool
	// rawObject: a string built as a raw object whatever its length
	// (an HLL), never embedded.
	rawObject bool
}

// keyspace is one numbered database of the offline server.
type keyspace struct {
	e    *Server
	id   int // 0..numDBs-1
	keys map[string]*value
}

// numDBs is redis.conf's default "databases 16".
const numDBs = 16

func newKeyspace(e *Server) *keyspace {
	return &keyspace{e: e, keys: map[string]*value{}}
}

// get returns the live value of key, deleting it first when it has expired.
func (db *keyspace) get(key string) *value {
	v, ok := db.keys[key]
	if !ok {
		return nil
	}
	if v.expireAt > 0 && db.e.now > v.expireAt {
		delete(db.keys, key)
		return nil
	}
	if v.kind == kindHash && len(v.hash.ttl) > 0 && v.hash.expireFields(db.e.now) {
		delete(db.keys, key) // its last field expired
		return nil
	}
	if v.kind == kindString && v.strEnc == "" {
		// A string stored without its encoding (Put): note it before a
		// command can edit it in place.
		v.strEnc, v.encFor = stringEncoding(v.str), v.str
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
	enc := stringEncoding(val)
	if enc == "int" && db.e.scriptCmd && db.e.t.data.scriptArgNoInt {
		enc = "embstr" // a script's argument is stored as it came
	}
	v := &value{kind: kindString, str: val, strEnc: enc, encFor: val}
	if keepTTL && old != nil {
		v.expireAt = old.expireAt
	}
	db.keys[key] = v
}

// setInt stores the integer n as a string (INCR's result: an integer
// object whoever ran the command); the expiry is dropped unless keepTTL.
func (db *keyspace) setInt(key string, n int64, keepTTL bool) {
	scriptCmd := db.e.scriptCmd
	db.e.scriptCmd = false
	db.setString(key, strconv.FormatInt(n, 10), keepTTL)
	db.e.scriptCmd = scriptCmd
}

// database returns the numbered database i (0..numDBs-1), creating it on
// first use; database 0 is the one New creates.
func (e *Server) database(i int) *keyspace {
	if e.dbs[i] == nil {
		e.dbs[i] = newKeyspace(e)
		e.dbs[i].id = i
	}
	return e.dbs[i]
}

// selectDB makes database i the current one (SELECT).
func (e *Server) selectDB(i int) { e.db = e.database(i) }

// liveKeys returns the names of the keys that have not expired, in no
// particular order. Expired keys stay stored: like Redis's lazy expiry, only
// an access deletes them.
func (db *keyspace) liveKeys() []string {
	out := make([]string, 0, len(db.keys))
	for k, v := range db.keys {
		if (v.expireAt == 0 || db.e.now <= v.expireAt) && (v.kind != kindHash || !v.hash.allExpired(db.e.now)) {
			out = append(out, k)
		}
	}
	return out
}

// Redis's string encodings (object.c): a string of at most 20 bytes that
// string2l accepts is stored as an integer, one of at most 44 bytes
// (OBJ_ENCODING_EMBSTR_SIZE_LIMIT) is embedded in its object, a longer one
// is raw.
const embstrSizeLimit = 44

// stringEncoding is tryObjectEncoding's choice for a freshly stored string.
func stringEncoding(s string) string {
	if len(s) <= 20 {
		if _, ok := parseInt(s); ok {
			return "int"
		}
	}
	if len(s) <= embstrSizeLimit {
		return "embstr"
	}
	return "raw"
}

// encoding is what OBJECT ENCODING answers.
func (v *value) encoding() string {
	switch v.kind {
	case kindString:
		if v.strEnc == "" {
			return stringEncoding(v.str)
		}
		if v.str != v.encFor {
			return "raw"
		}
		return v.strEnc
	case kindHash:
		return v.hash.encoding()
	case kindList:
		return v.list.encoding()
	case kindSet:
		return v.set.encoding()
	case kindZSet:
		return v.zset.encoding()
	default:
		return v.stream.encoding()
	}
}

// sharedIntegers is OBJ_SHARED_INTEGERS: with the default maxmemory policy
// Redis stores the integers 0..9999 as shared objects.
const sharedIntegers = 10000

// refcount is what OBJECT REFCOUNT answers: a shared integer reports
// OBJ_SHARED_REFCOUNT (INT_MAX), any other value its single reference.
func (v *value) refcount() int64 {
	if v.kind == kindString && !v.unshared && v.encoding() == "int" {
		if n, _ := parseInt(v.str); n >= 0 && n < sharedIntegers {
			return 1<<31 - 1
		}
	}
	return 1
}

// clone is a deep copy (COPY): the copy keeps the expiry and the
// encoding, and a small integer becomes its own object (dupStringObject).
func (v *value) clone() *value {
	c := *v
	switch v.kind {
	case kindString:
		c.strEnc, c.encFor = v.encoding(), v.str
		c.unshared = c.strEnc == "int"
	case kindHash:
		c.hash = v.hash.clone()
	case kindList:
		c.list = v.list.clone()
	case kindSet:
		c.set = v.set.clone()
	case kindZSet:
		c.zset = v.zset.clone()
	case kindStream:
		c.stream = v.stream.clone()
	}
	return &c
}
