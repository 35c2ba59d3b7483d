package verify

import (
	"crypto/sha1"
	"encoding/hex"
	"sync"
)

// The SHA1 of a script's body is asked on every call (its name in
// EVALSHA and error texts, and the compile cache's key): shaMemo keeps it
// per body, so a scenario or an exploration calling the same few scripts
// thousands of times hashes each once. A lookup compares the body's bytes,
// which costs a small part of hashing them with SHA1.
var shaMemo struct {
	sync.Mutex
	m     map[string]shaSums
	bytes int
}

type shaSums struct {
	sum [sha1.Size]byte
	hex string
}

// The memo is emptied when it would pass these (a process generating
// scripts keeps a bounded memo).
const (
	maxMemoScripts = 4096
	maxMemoBytes   = 32 << 20
)

// scriptSums returns sha1.Sum(src) and its hex form.
func scriptSums(src []byte) shaSums {
	shaMemo.Lock()
	s, ok := shaMemo.m[string(src)]
	shaMemo.Unlock()
	if ok {
		return s
	}
	s.sum = sha1.Sum(src)
	s.hex = hex.EncodeToString(s.sum[:])
	shaMemo.Lock()
	if shaMemo.m == nil || len(shaMemo.m) >= maxMemoScripts || shaMemo.bytes+len(src) > maxMemoBytes {
		shaMemo.m, shaMemo.bytes = map[string]shaSums{}, 0
	}
	shaMemo.m[string(src)] = s
	shaMemo.bytes += len(src)
	shaMemo.Unlock()
	return s
}

// scriptSHA is SHA1(src), remembered.
func scriptSHA(src []byte) string { return scriptSums(src).hex }
