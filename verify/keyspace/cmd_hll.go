package keyspace

// HyperLogLog commands: PFADD PFCOUNT PFMERGE (hyperloglog.c). PFDEBUG and
// PFSELFTEST are left unimplemented.

func registerHll() {
	register("pfadd", firstKey, cmdPfadd)
	register("pfcount", allKeys, cmdPfcount)
	register("pfmerge", allKeys, cmdPfmerge)
}

// getHLL is isHLLObjectOrReply after a lookup: (value or nil when missing,
// its HLL bytes, error reply).
func getHLL(e *Server, key string) (*value, *hll, *Reply) {
	v := e.db.get(key)
	if v == nil {
		return nil, nil, nil
	}
	if v.kind != kindString {
		return nil, nil, &errWrongType
	}
	if !isHLL(v.str) {
		return nil, nil, &errHLLType
	}
	return v, &hll{b: []byte(v.str)}, nil
}

// storeHLL writes h back into v. Redis edits the string in place after
// dbUnshareStringValue, which leaves it raw-encoded and keeps the TTL.
func storeHLL(v *value, h *hll) {
	v.str = string(h.b)
	v.strEnc, v.encFor, v.rawObject = "raw", v.str, true
}

// createHLL adds key holding a new empty HLL (createHLLObject + dbAdd).
func createHLL(e *Server, key string) (*value, *hll) {
	h := newHLL()
	v := &value{kind: kindString}
	storeHLL(v, h)
	e.db.keys[key] = v
	return v, h
}

func cmdPfadd(e *Server, a []string) Reply {
	v, h, errr := getHLL(e, a[1])
	if errr != nil {
		return *errr
	}
	updated := 0
	if v == nil {
		v, h = createHLL(e, a[1])
		updated++
	}
	for _, ele := range a[2:] {
		switch h.add([]byte(ele)) {
		case 1:
			updated++
		case -1:
			// Redis edits the value in place: what was added stays.
			storeHLL(v, h)
			return errHLLInvalid
		}
	}
	if updated > 0 {
		h.invalidateCache()
	}
	storeHLL(v, h)
	if updated > 0 {
		return IntReply(1)
	}
	return IntReply(0)
}

func cmdPfcount(e *Server, a []string) Reply {
	if len(a) > 2 {
		return pfcountUnion(e, a[1:])
	}
	v, h, errr := getHLL(e, a[1])
	if errr != nil {
		return *errr
	}
	if v == nil {
		return IntReply(0)
	}
	storeHLL(v, h) // unshared: raw from now on
	if h.validCache() {
		return IntReply(int64(h.cachedCount()))
	}
	n, ok := h.count()
	if !ok {
		return errHLLInvalid
	}
	// The cache is written into the value: PFCOUNT of one key changes the
	// bytes GET answers (Redis propagates it as a write).
	h.setCachedCount(n)
	storeHLL(v, h)
	return IntReply(int64(n))
}

// pfcountUnion is PFCOUNT of several keys: the cardinality of their union,
// computed without touching any of them.
func pfcountUnion(e *Server, keys []string) Reply {
	max := make([]uint8, hllRegisters)
	for _, k := range keys {
		v, h, errr := getHLL(e, k)
		if errr != nil {
			return *errr
		}
		if v == nil {
			continue
		}
		if !h.mergeInto(max) {
			return errHLLInvalid
		}
	}
	var hist [64]int
	for _, r := range max {
		hist[r]++
	}
	return IntReply(int64(hllEstimate(&hist)))
}

func cmdPfmerge(e *Server, a []string) Reply {
	max := make([]uint8, hllRegisters)
	useDense := false
	for _, k := range a[1:] {
		v, h, errr := getHLL(e, k)
		if errr != nil {
			return *errr
		}
		if v == nil {
			continue
		}
		if h.encoding() == hllDense {
			useDense = true
		}
		if !h.mergeInto(max) {
			return errHLLInvalid
		}
	}
	v, h, _ := getHLL(e, a[1]) // checked above
	if v == nil {
		v, h = createHLL(e, a[1])
	}
	if useDense && !h.toDense() {
		storeHLL(v, h)
		return errHLLInvalid
	}
	for j, m := range max {
		if m == 0 {
			continue
		}
		if h.encoding() == hllDense {
			regs := h.b[hllHdrSize:]
			if m > denseGet(regs, j) {
				denseSet(regs, j, m)
			}
		} else {
			h.sparseSet(j, m)
		}
	}
	h.invalidateCache()
	storeHLL(v, h)
	return okReply
}
