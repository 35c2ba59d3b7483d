package slot

// Lookup is the slot of each of a list of keys, as `scriptctl slot` reports
// it. It marshals to the JSON documented in docs/json.md.
type Lookup struct {
	FormatVersion string    `json:"format_version"` // "1"
	Keys          []KeyInfo `json:"keys"`
	// Same is set when every key is in one slot (also for zero or one key).
	Same bool `json:"same"`
}

// KeyInfo is one key, its slot and the part of it Redis hashes: its hash
// tag, or the whole key.
type KeyInfo struct {
	Key    string `json:"key"`
	Slot   int    `json:"slot"`
	Hashed string `json:"hashed"`
}

// Group is the keys of a Lookup that share one slot.
type Group struct {
	Slot int
	Keys []string
}

// LookupKeys computes the slot of every key.
func LookupKeys(keys []string) *Lookup {
	l := &Lookup{FormatVersion: "1", Keys: make([]KeyInfo, 0, len(keys)), Same: true}
	for _, k := range keys {
		ki := KeyInfo{Key: k, Slot: Of(k), Hashed: HashTag(k)}
		if len(l.Keys) > 0 && ki.Slot != l.Keys[0].Slot {
			l.Same = false
		}
		l.Keys = append(l.Keys, ki)
	}
	return l
}

// Groups returns the keys grouped by slot, slots in order of their first
// key.
func (l *Lookup) Groups() []Group {
	var gs []Group
	at := map[int]int{}
	for _, k := range l.Keys {
		i, ok := at[k.Slot]
		if !ok {
			i = len(gs)
			at[k.Slot] = i
			gs = append(gs, Group{Slot: k.Slot})
		}
		gs[i].Keys = append(gs[i].Keys, k.Key)
	}
	return gs
}
