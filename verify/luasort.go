package verify

import "errors"

// errInvalidOrder is what luaSort returns when its partition loop runs past
// the array's bounds: Lua 5.1 raises "invalid order function for sorting".
var errInvalidOrder = errors.New("invalid order function for sorting")

// luaSort is Lua 5.1.5's table.sort algorithm (ltablib.c auxsort), written
// over callbacks so that any VM can drive it: get(i) reads element i of the
// array (lua_rawgeti: any index, nil past the ends), set(i, v) writes it
// (lua_rawseti), less(a, b) is sort_comp (the comparator, or lua_lessthan).
// It makes exactly Lua's reads, writes and comparisons, in Lua's order, so
// equal elements end where Lua leaves them and a comparator sees the same
// calls. The partition loop reads past the sorted range and compares what
// it finds before it checks the bounds, as Lua does; once past them it
// returns errInvalidOrder. less and set may raise (panic) to abort.
func luaSort[V any](n int, get func(int) V, set func(int, V), less func(a, b V) bool) error {
	return auxsort(1, n, get, set, less)
}

func auxsort[V any](l, u int, get func(int) V, set func(int, V), less func(a, b V) bool) error {
	for l < u { // tail recursion on the larger half
		// Sort a[l], a[(l+u)/2] and a[u].
		al, au := get(l), get(u)
		if less(au, al) {
			set(l, au)
			set(u, al)
		}
		if u-l == 1 {
			break // two elements
		}
		i := (l + u) / 2
		ai, al := get(i), get(l)
		if less(ai, al) {
			set(i, al)
			set(l, ai)
		} else {
			au := get(u)
			if less(au, ai) {
				set(i, au)
				set(u, ai)
			}
		}
		if u-l == 2 {
			break // three elements
		}
		// The pivot P = a[i] goes to a[u-1]: a[l] <= P == a[u-1] <= a[u],
		// so only l+1 .. u-2 remain to partition.
		p := get(i)
		aum1 := get(u - 1)
		set(i, aum1)
		set(u-1, p)
		i, j := l, u-1
		for { // invariant: a[l..i] <= P <= a[j..u]
			var ai, aj V
			for { // repeat ++i until a[i] >= P
				i++
				ai = get(i)
				if !less(ai, p) {
					break
				}
				if i > u {
					return errInvalidOrder
				}
			}
			for { // repeat --j until a[j] <= P
				j--
				aj = get(j)
				if !less(p, aj) {
					break
				}
				if j < l {
					return errInvalidOrder
				}
			}
			if j < i {
				break
			}
			set(i, aj)
			set(j, ai)
		}
		// Swap the pivot (a[u-1]) with a[i].
		last, ai := get(u-1), get(i)
		set(u-1, ai)
		set(i, last)
		// a[l..i-1] <= a[i] == P <= a[i+1..u]: recurse into the smaller
		// half [j..i], loop on the larger [l..u].
		if i-l < u-i {
			j = l
			i = i - 1
			l = i + 2
		} else {
			j = i + 1
			i = u
			u = j - 2
		}
		if err := auxsort(j, i, get, set, less); err != nil {
			return err
		}
	}
	return nil
}
