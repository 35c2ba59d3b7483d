package lua51

import "math/bits"

// Kind is a key's Lua type, as far as the table layout cares.
type Kind uint8

const (
	KindNil Kind = iota
	KindBool
	KindNumber
	KindString
	// KindRef is a key Lua hashes by its address: a table, a function, a
	// userdata or a thread. Ref identifies it; its place is approximated.
	KindRef
)

// Key is a table key.
type Key struct {
	Kind Kind
	B    bool
	N    float64
	S    string
	Ref  any
}

// Str, Num and Bool build keys.
func Str(s string) Key   { return Key{Kind: KindString, S: s} }
func Num(n float64) Key  { return Key{Kind: KindNumber, N: n} }
func Bool(b bool) Key    { return Key{Kind: KindBool, B: b} }
func RefKey(ref any) Key { return Key{Kind: KindRef, Ref: ref} }
func (k Key) equal(o Key) bool {
	if k.Kind != o.Kind {
		return false
	}
	switch k.Kind {
	case KindBool:
		return k.B == o.B
	case KindNumber:
		return k.N == o.N
	case KindString:
		return k.S == o.S
	case KindRef:
		return k.Ref == o.Ref
	}
	return true
}

// maxBits is MAXBITS for a 32-bit int: the array part holds at most 2^26.
const maxBits = 26

type node struct {
	key  Key
	live bool  // the value is not nil
	next int32 // index of the next node of the chain, -1 for none
}

// Table is the layout of one Lua 5.1 table: which keys it holds, where, and
// whether their values are nil.
type Table struct {
	hash     StringHash
	array    []bool // array[i]: t[i+1] is not nil
	nodes    []node // nil: the shared dummy node (no hash part)
	lastfree int
	refs     map[any]uint32 // pseudo addresses of KindRef keys
	refSeq   uint32
	hasRef   bool
	rehashes int
}

// Rehashes counts the rehashes the table went through (each new key that
// found no free node).
func (t *Table) Rehashes() int { return t.rehashes }

// Contains reports whether next can continue from k: k lies in the array
// part's range or holds a node, whether or not its value is nil
// (findindex).
func (t *Table) Contains(k Key) bool {
	_, _, ok := t.find(k)
	return ok
}

// Slots returns every key luaH_next may stand on, in its order: the array
// part's indices 1..SizeArray, then the keys of the hash nodes; live[i]
// says whether the value of slots[i] is not nil.
func (t *Table) Slots() (slots []Key, live []bool) {
	slots = make([]Key, 0, len(t.array)+len(t.nodes))
	live = make([]bool, 0, len(t.array)+len(t.nodes))
	for i, l := range t.array {
		slots = append(slots, Num(float64(i+1)))
		live = append(live, l)
	}
	for _, n := range t.nodes {
		if n.key.Kind != KindNil {
			slots = append(slots, n.key)
			live = append(live, n.live)
		}
	}
	return slots, live
}

// New returns a table presized like luaH_new(narray, nhash): what
// lua_createtable and a constructor's OP_NEWTABLE build.
func New(h StringHash, narray, nhash int) *Table {
	t := &Table{hash: h}
	t.array = make([]bool, narray)
	t.setNodeVector(nhash)
	return t
}

// Approximate reports whether the table holds a key Lua places by its
// address, so that the order of its hash part cannot be the server's.
func (t *Table) Approximate() bool { return t.hasRef }

// SizeArray and SizeNode are the sizes of the two parts.
func (t *Table) SizeArray() int { return len(t.array) }
func (t *Table) SizeNode() int  { return len(t.nodes) }

func ceilLog2(x int) int {
	if x <= 1 {
		return 0
	}
	return bits.Len(uint(x - 1))
}

func (t *Table) setNodeVector(size int) {
	if size == 0 {
		t.nodes = nil
		t.lastfree = 0
		return
	}
	lsize := ceilLog2(size)
	if lsize > maxBits {
		lsize = maxBits // luaG_runerror "table overflow": out of reach offline
	}
	size = 1 << lsize
	t.nodes = make([]node, size)
	for i := range t.nodes {
		t.nodes[i].next = -1
	}
	t.lastfree = size
}

func (t *Table) strHash(s string) uint32 { return t.hash.Hash(s) }

// mainPosition is the node a key hashes to (mainposition); -1 when the
// table has no hash part (the dummy node).
func (t *Table) mainPosition(k Key) int {
	size := len(t.nodes)
	if size == 0 {
		return -1
	}
	mod := func(n uint32) int { return int(n % uint32((size-1)|1)) }
	switch k.Kind {
	case KindNumber:
		if k.N == 0 {
			return 0
		}
		return mod(numHash(k.N))
	case KindString:
		return int(t.strHash(k.S) & uint32(size-1))
	case KindBool:
		if k.B {
			return 1 & (size - 1)
		}
		return 0
	default:
		return mod(t.refAddr(k.Ref))
	}
}

// refAddr gives each KindRef key a stable pseudo address, 8-aligned like a
// heap pointer.
func (t *Table) refAddr(r any) uint32 {
	if a, ok := t.refs[r]; ok {
		return a
	}
	if t.refs == nil {
		t.refs = map[any]uint32{}
	}
	t.refSeq++
	a := 0x1000 + t.refSeq*40
	t.refs[r] = a
	return a
}

// arrayIndex is arrayindex: the key's integer value when it is a number
// with one, else -1.
func arrayIndex(k Key) int {
	if k.Kind != KindNumber {
		return -1
	}
	i := number2int(k.N)
	if float64(i) == k.N {
		return int(i)
	}
	return -1
}

// find returns where the key is: ("array", index) or ("node", index), or
// ok false.
func (t *Table) find(k Key) (inArray bool, idx int, ok bool) {
	if i := arrayIndex(k); i >= 1 && i <= len(t.array) {
		return true, i - 1, true
	}
	mp := t.mainPosition(k)
	for n := mp; n >= 0; n = int(t.nodes[n].next) {
		if t.nodes[n].key.Kind != KindNil && t.nodes[n].key.equal(k) {
			return false, n, true
		}
	}
	return false, 0, false
}

// Has reports whether the table holds the key with a non-nil value.
func (t *Table) Has(k Key) bool {
	inArray, i, ok := t.find(k)
	if !ok {
		return false
	}
	if inArray {
		return t.array[i]
	}
	return t.nodes[i].live
}

// Set records t[k] = v, with live saying whether v is not nil, as
// luaH_set followed by the store: a new key takes a node (or the array
// slot) even when v is nil, as OP_SETTABLE does; an existing key keeps its
// place. k must not be nil or NaN.
func (t *Table) Set(k Key, live bool) {
	inArray, i, ok := t.find(k)
	if ok {
		if inArray {
			t.array[i] = live
		} else {
			t.nodes[i].live = live
		}
		return
	}
	t.newKey(k, live)
}

// Insert records a store that only creates: a rawset of a key with a
// non-nil value.
func (t *Table) Insert(k Key) { t.Set(k, true) }

func (t *Table) getFreePos() int {
	for t.lastfree > 0 {
		t.lastfree--
		if t.nodes[t.lastfree].key.Kind == KindNil {
			return t.lastfree
		}
	}
	return -1
}

func (t *Table) newKey(k Key, live bool) {
	if k.Kind == KindRef {
		t.hasRef = true
	}
	mp := t.mainPosition(k)
	// A main position whose value is nil is free, even when it still holds
	// a key set to nil: the new key takes the node and keeps its chain.
	if mp < 0 || t.nodes[mp].live {
		n := -1
		if mp >= 0 {
			n = t.getFreePos()
		}
		if n < 0 {
			t.rehash(k)
			t.Set(k, live)
			return
		}
		othern := t.mainPosition(t.nodes[mp].key)
		if othern != mp {
			for int(t.nodes[othern].next) != mp {
				othern = int(t.nodes[othern].next)
			}
			t.nodes[othern].next = int32(n)
			t.nodes[n] = t.nodes[mp]
			t.nodes[mp].next = -1
			t.nodes[mp].live = false
		} else {
			t.nodes[n].next = t.nodes[mp].next
			t.nodes[mp].next = int32(n)
			mp = n
		}
	}
	t.nodes[mp].key = k
	t.nodes[mp].live = live
}

// countInt is countint: counts an integer key 1..2^26 in nums.
func countInt(k Key, nums *[maxBits + 1]int) int {
	i := arrayIndex(k)
	if i > 0 && i <= 1<<maxBits {
		nums[ceilLog2(i)]++
		return 1
	}
	return 0
}

func (t *Table) numUseArray(nums *[maxBits + 1]int) int {
	ause := 0
	i := 1
	for lg, ttlg := 0, 1; lg <= maxBits; lg, ttlg = lg+1, ttlg*2 {
		lc := 0
		lim := ttlg
		if lim > len(t.array) {
			lim = len(t.array)
			if i > lim {
				break
			}
		}
		for ; i <= lim; i++ {
			if t.array[i-1] {
				lc++
			}
		}
		nums[lg] += lc
		ause += lc
	}
	return ause
}

func (t *Table) numUseHash(nums *[maxBits + 1]int, nasize *int) int {
	total, ause := 0, 0
	for i := len(t.nodes) - 1; i >= 0; i-- {
		if t.nodes[i].live {
			ause += countInt(t.nodes[i].key, nums)
			total++
		}
	}
	*nasize += ause
	return total
}

func computeSizes(nums *[maxBits + 1]int, narray *int) int {
	a, na, n := 0, 0, 0
	for i, twotoi := 0, 1; twotoi/2 < *narray; i, twotoi = i+1, twotoi*2 {
		if nums[i] > 0 {
			a += nums[i]
			if a > twotoi/2 {
				n = twotoi
				na = a
			}
		}
		if a == *narray {
			break
		}
	}
	*narray = n
	return na
}

func (t *Table) rehash(ek Key) {
	t.rehashes++
	var nums [maxBits + 1]int
	nasize := t.numUseArray(&nums)
	total := nasize
	total += t.numUseHash(&nums, &nasize)
	nasize += countInt(ek, &nums)
	total++
	na := computeSizes(&nums, &nasize)
	t.resize(nasize, total-na)
}

// ResizeArray is luaH_resizearray: what OP_SETLIST does when a
// constructor's list outgrows its presized array (a trailing call or ...).
func (t *Table) ResizeArray(nasize int) {
	t.resize(nasize, len(t.nodes))
}

func (t *Table) resize(nasize, nhsize int) {
	oldArray := t.array
	old := t.nodes
	if nasize > len(oldArray) {
		a := make([]bool, nasize)
		copy(a, oldArray)
		t.array = a
	}
	t.setNodeVector(nhsize)
	if nasize < len(oldArray) {
		t.array = oldArray[:nasize:nasize]
		for i := nasize; i < len(oldArray); i++ {
			if oldArray[i] {
				t.Set(Num(float64(i+1)), true)
			}
		}
		t.array = append([]bool(nil), t.array...)
	}
	for i := len(old) - 1; i >= 0; i-- {
		if old[i].live {
			t.Set(old[i].key, true)
		}
	}
}

// Keys returns the keys with non-nil values in the order luaH_next visits
// them: the array part, then the hash nodes.
func (t *Table) Keys() []Key {
	out := make([]Key, 0, len(t.array)+len(t.nodes))
	for i, live := range t.array {
		if live {
			out = append(out, Num(float64(i+1)))
		}
	}
	for _, n := range t.nodes {
		if n.live {
			out = append(out, n.key)
		}
	}
	return out
}

// getNum reports whether t[i] is not nil (luaH_getnum).
func (t *Table) getNum(i uint32) bool {
	if i-1 < uint32(len(t.array)) {
		return t.array[i-1]
	}
	return t.Has(Num(float64(i)))
}

// Border is luaH_getn: the #t Lua 5.1 gives.
func (t *Table) Border() int {
	j := uint32(len(t.array))
	if j > 0 && !t.array[j-1] {
		i := uint32(0)
		for j-i > 1 {
			m := (i + j) / 2
			if !t.array[m-1] {
				j = m
			} else {
				i = m
			}
		}
		return int(i)
	}
	if len(t.nodes) == 0 {
		return int(j)
	}
	return t.unboundSearch(j)
}

func (t *Table) unboundSearch(j uint32) int {
	i := j
	j++
	for t.getNum(j) {
		i = j
		j *= 2
		if j > 0x7fffffff {
			i = 1
			for t.getNum(i) {
				i++
			}
			return int(i - 1)
		}
	}
	for j-i > 1 {
		m := (i + j) / 2
		if !t.getNum(m) {
			j = m
		} else {
			i = m
		}
	}
	return int(i)
}
