package keyspace

import (
	"context"
	"strings"
	"testing"
)

// HLL bytes below were read from redis-server 7.0.15 with GET.
const (
	hllEmpty  = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"
	hllABC    = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	hllABC3   = "HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00`\xf3\x80P\xb1\x84K\xfb\x80BZ" // PFCOUNT cached 3
	hllX      = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xf5\x84\b"
	hllABCX   = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BP\x84\b"
	hllShort  = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xfe"     // XZERO of 16383: one register short
	hllShortZ = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80J\xd9\x80u#"  // hllShort after PFADD zz
	hllLong   = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff\x00" // one register too many
	hllLongZ  = "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80J\xd9\x80u$\x00"
)

func TestHLLCommands(t *testing.T) {
	abc := []string{"PFADD", "h", "a", "b", "c"}
	runCmdCases(t, []cmdCase{
		{name: "pfadd creates", cmd: a("PFADD", "h", "a", "b", "c"), want: IntReply(1), keys: map[string]*Entry{"h": str(hllABC, -1)}},
		{name: "pfadd no elements creates", cmd: a("PFADD", "h"), want: IntReply(1), keys: map[string]*Entry{"h": str(hllEmpty, -1)}},
		{name: "pfadd no elements existing", setup: [][]string{abc}, cmd: a("PFADD", "h"), want: IntReply(0), keys: map[string]*Entry{"h": str(hllABC, -1)}},
		{name: "pfadd no change", setup: [][]string{abc}, cmd: a("PFADD", "h", "b", "a"), want: IntReply(0), keys: map[string]*Entry{"h": str(hllABC, -1)}},
		{name: "pfadd no change keeps cache", setup: [][]string{abc, {"PFCOUNT", "h"}}, cmd: a("PFADD", "h", "c"), want: IntReply(0), keys: map[string]*Entry{"h": str(hllABC3, -1)}},
		{name: "pfadd merges opcodes", setup: [][]string{abc}, cmd: a("PFADD", "h", "x"), want: IntReply(1), keys: map[string]*Entry{"h": str(hllABCX, -1)}},
		{name: "pfadd keeps ttl", setup: [][]string{abc, {"PEXPIRE", "h", "500"}}, cmd: a("PFADD", "h", "x"), want: IntReply(1), keys: map[string]*Entry{"h": str(hllABCX, 500)}},
		{name: "pfadd wrongtype", setup: [][]string{{"RPUSH", "h", "x"}}, cmd: a("PFADD", "h", "a"), want: errWrongType},
		{name: "pfadd not an hll", setup: [][]string{{"SET", "h", "abc"}}, cmd: a("PFADD", "h", "a"), want: errHLLType, keys: map[string]*Entry{"h": str("abc", -1)}},
		{name: "pfadd bad encoding", setup: [][]string{{"SET", "h", "HYLL\x02" + strings.Repeat("\x00", 11)}}, cmd: a("PFADD", "h", "a"), want: errHLLType},
		{name: "pfadd dense of wrong size", setup: [][]string{{"SET", "h", "HYLL" + strings.Repeat("\x00", 20)}}, cmd: a("PFADD", "h", "a"), want: errHLLType},
		{name: "pfadd into short sparse", setup: [][]string{{"SET", "h", hllShort}}, cmd: a("PFADD", "h", "zz"), want: IntReply(1), keys: map[string]*Entry{"h": str(hllShortZ, -1)}},
		{name: "pfadd into long sparse", setup: [][]string{{"SET", "h", hllLong}}, cmd: a("PFADD", "h", "zz"), want: IntReply(1), keys: map[string]*Entry{"h": str(hllLongZ, -1)}},
		{name: "pfadd past the sparse opcodes", setup: [][]string{{"SET", "h", "HYLL\x01" + strings.Repeat("\x00", 11) + "\x00"}}, cmd: a("PFADD", "h", "a"), want: errHLLInvalid},
		{name: "pfcount missing", cmd: a("PFCOUNT", "h"), want: IntReply(0), keys: map[string]*Entry{"h": gone()}},
		{name: "pfcount caches", setup: [][]string{abc}, cmd: a("PFCOUNT", "h"), want: IntReply(3), keys: map[string]*Entry{"h": str(hllABC3, -1)}},
		{name: "pfcount cached value is trusted", setup: [][]string{{"SET", "h", hllShort}}, cmd: a("PFCOUNT", "h"), want: IntReply(0)},
		{name: "pfcount corrupted", setup: [][]string{{"SET", "h", hllShortZ}}, cmd: a("PFCOUNT", "h"), want: errHLLInvalid},
		{name: "pfcount wrongtype", setup: [][]string{{"RPUSH", "h", "x"}}, cmd: a("PFCOUNT", "h"), want: errWrongType},
		{name: "pfcount not an hll", setup: [][]string{{"SET", "h", "12"}}, cmd: a("PFCOUNT", "h"), want: errHLLType},
		{name: "pfcount union", setup: [][]string{abc, {"PFADD", "h2", "x", "a"}}, cmd: a("PFCOUNT", "h", "h2", "nokey"), want: IntReply(4), keys: map[string]*Entry{"h": str(hllABC, -1)}},
		{name: "pfcount union corrupted", setup: [][]string{abc, {"SET", "b", hllShortZ}}, cmd: a("PFCOUNT", "h", "b"), want: errHLLInvalid},
		{name: "pfcount union wrongtype", setup: [][]string{abc, {"SET", "b", "x"}}, cmd: a("PFCOUNT", "b", "h"), want: errHLLType},
		{name: "pfmerge", setup: [][]string{abc, {"PFADD", "h2", "x"}}, cmd: a("PFMERGE", "d", "h", "h2"), want: okReply, keys: map[string]*Entry{"d": str(hllABCX, -1), "h2": str(hllX, -1)}},
		{name: "pfmerge into itself", setup: [][]string{abc, {"PFADD", "h2", "x"}}, cmd: a("PFMERGE", "h", "h2"), want: okReply, keys: map[string]*Entry{"h": str(hllABCX, -1)}},
		{name: "pfmerge only dest", cmd: a("PFMERGE", "d"), want: okReply, keys: map[string]*Entry{"d": str(hllEmpty, -1)}},
		{name: "pfmerge corrupted", setup: [][]string{abc, {"SET", "b", hllLongZ}}, cmd: a("PFMERGE", "b", "h"), want: errHLLInvalid, keys: map[string]*Entry{"b": str(hllLongZ, -1)}},
		{name: "pfmerge dest wrongtype", setup: [][]string{abc, {"RPUSH", "d", "x"}}, cmd: a("PFMERGE", "d", "h"), want: errWrongType},
		{name: "pfmerge source not an hll", setup: [][]string{{"SET", "s", "nope"}}, cmd: a("PFMERGE", "d", "s"), want: errHLLType, keys: map[string]*Entry{"d": gone()}},
	})
}

// TestHLLDense checks the promotion to dense: by size (the sparse form
// would pass hll-sparse-max-bytes) and by a register above 32, which only
// a crafted element reaches, so it is set through the HLL directly.
func TestHLLDense(t *testing.T) {
	h := newHLL()
	if h.sparseSet(5, 33) != 1 || h.encoding() != hllDense || len(h.b) != hllDenseSize {
		t.Fatalf("register 33 did not promote: %d bytes", len(h.b))
	}
	if got := denseGet(h.b[hllHdrSize:], 5); got != 33 {
		t.Errorf("register 5 = %d", got)
	}
	for i := 0; i < hllRegisters; i += 97 {
		denseSet(h.b[hllHdrSize:], i, uint8(i%64))
	}
	for i := 0; i < hllRegisters; i += 97 {
		if got := denseGet(h.b[hllHdrSize:], i); got != uint8(i%64) {
			t.Fatalf("register %d = %d, want %d", i, got, i%64)
		}
	}
	e := New(Options{})
	ctx := context.Background()
	args := []string{"PFADD", "big"}
	for i := 0; i < 3000; i++ {
		args = append(args, "e"+itoa(i))
	}
	if r, _ := e.Do(ctx, args...); !r.Equal(IntReply(1)) {
		t.Fatalf("PFADD: %s", r)
	}
	en, _ := e.Entry("big")
	if len(en.Value) != hllDenseSize || en.Value[4] != hllDense {
		t.Fatalf("3000 elements stayed sparse: %d bytes", len(en.Value))
	}
	// PFCOUNT's estimate for 3000 distinct elements, from redis-server.
	if r, _ := e.Do(ctx, "PFCOUNT", "big"); !r.Equal(IntReply(2979)) {
		t.Errorf("PFCOUNT big = %s", r)
	}
}
