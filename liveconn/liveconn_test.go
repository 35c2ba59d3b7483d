package liveconn

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/slot"
	"github.com/scriptctl/scriptctl/verify"
)

func TestKeyPos(t *testing.T) {
	c := &Conn{target: verify.DefaultTarget}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"GET", "k"}, 1},
		{[]string{"EVAL", "return 1", "2", "a", "b", "x"}, 3},
		{[]string{"EVALSHA", "abc", "0", "x"}, 0},
		{[]string{"FCALL", "f", "1", "k"}, 3},
		{[]string{"XGROUP", "CREATE", "s", "g", "$"}, 2},
		{[]string{"OBJECT", "ENCODING", "k"}, 2},
		{[]string{"PING"}, 0},
		{[]string{"NOSUCHCOMMAND", "k"}, 0},
	} {
		if got := c.keyPos(tc.args); got != tc.want {
			t.Errorf("keyPos(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}

func TestRedirect(t *testing.T) {
	for _, tc := range []struct {
		r         verify.Reply
		addr      string
		ask, isRe bool
	}{
		{verify.Reply{Kind: verify.Error, Str: "MOVED 3999 127.0.0.1:7001"}, "127.0.0.1:7001", false, true},
		{verify.Reply{Kind: verify.Error, Str: "ASK 3999 127.0.0.1:7002"}, "127.0.0.1:7002", true, true},
		{verify.Reply{Kind: verify.Error, Str: "ERR MOVED 3999 x"}, "", false, false},
		{verify.Reply{Kind: verify.Bulk, Str: "MOVED 3999 127.0.0.1:7001"}, "", false, false},
		{verify.Reply{Kind: verify.Error, Str: "MOVED x 127.0.0.1:7001"}, "", false, false},
	} {
		addr, ask, ok := redirect(tc.r)
		if addr != tc.addr || ask != tc.ask || ok != tc.isRe {
			t.Errorf("redirect(%s) = %q, %v, %v", tc.r.String(), addr, ask, ok)
		}
	}
}

// TestClusterRoutesAndFollowsMoved: a Conn seeded with one replica finds
// the three primaries, writes each key on its slot's primary, sends
// FUNCTION LOAD to every primary, and follows MOVED when a slot moves to
// another primary after it connected.
func TestClusterRoutesAndFollowsMoved(t *testing.T) {
	cl := redistest.NewCluster(t)
	ctx := context.Background()
	cfg, err := connect.Resolve(connect.Settings{URLs: []string{"redis://" + cl.Replicas[0].Addr}, Timeout: 5 * time.Second}, false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Cluster() || len(c.Primaries()) != 3 {
		t.Fatalf("Cluster %v, primaries %v; want a cluster of 3", c.Cluster(), c.Primaries())
	}
	owner := func(key string) *redistest.Server {
		s := slot.Of(key)
		return cl.Primaries[s*3/slot.Count]
	}
	for i := 0; i < 12; i++ {
		key := "k" + strconv.Itoa(i)
		if r, err := c.Do(ctx, "SET", key, "v"+strconv.Itoa(i)); err != nil || r.Str != "OK" {
			t.Fatalf("SET %s: %v %v", key, r, err)
		}
		if v, _ := owner(key).Do(ctx, "GET", key).ToString(); v != "v"+strconv.Itoa(i) {
			t.Errorf("%s is not on its slot's primary %s", key, owner(key).Addr)
		}
	}
	lib := "#!lua name=lc_test\nredis.register_function('lc_get', function(keys) return redis.call('GET', keys[1]) end)"
	if r, err := c.DoAll(ctx, "FUNCTION", "LOAD", lib); err != nil || r.Str != "lc_test" {
		t.Fatalf("FUNCTION LOAD: %v %v", r, err)
	}
	for i := 0; i < 12; i++ {
		key := "k" + strconv.Itoa(i)
		if r, err := c.Do(ctx, "FCALL", "lc_get", "1", key); err != nil || r.Str != "v"+strconv.Itoa(i) {
			t.Errorf("FCALL lc_get %s = %v, %v", key, r, err)
		}
	}
	if _, err := c.DoAll(ctx, "FUNCTION", "DELETE", "lc_test"); err != nil {
		t.Fatal(err)
	}

	// Move an empty slot from primary 0 to primary 1 behind the client's
	// back: the next command on it gets MOVED, which is followed.
	key := "moved-key"
	for slot.Of(key)*3/slot.Count != 0 {
		key += "x"
	}
	s := strconv.Itoa(slot.Of(key))
	to := cl.Primaries[1].ID()
	for _, n := range cl.Primaries {
		n.MustDo("CLUSTER", "SETSLOT", s, "NODE", to)
	}
	r, err := c.Do(ctx, "SET", key, "here")
	if err != nil || r.Kind != verify.Status || r.Str != "OK" {
		t.Fatalf("SET after the slot moved = %s, %v; want OK", r.String(), err)
	}
	if v, _ := cl.Primaries[1].Do(ctx, "GET", key).ToString(); v != "here" {
		t.Errorf("the key is not on the slot's new primary")
	}
}

func TestDialURLErrorsNeverShowThePassword(t *testing.T) {
	_, err := DialURL(context.Background(), "redis://:s3cr3t-pw@127.0.0.1:1")
	if err == nil {
		t.Fatal("dial of a closed port succeeded")
	}
	if strings.Contains(err.Error(), "s3cr3t-pw") {
		t.Errorf("error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("error does not name the address: %v", err)
	}
}
