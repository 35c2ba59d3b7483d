package redistest

import (
	"context"
	"strings"
	"testing"
)

func TestStandalone(t *testing.T) {
	s := Standalone(t)
	if s.Pid() == 0 {
		t.Fatal("no pid")
	}
	s.MustDo("SET", "k", "v")
	if got, _ := s.Do(context.Background(), "GET", "k").ToString(); got != "v" {
		t.Fatalf("GET k = %q, want v", got)
	}
	s.Stop()
	if err := s.Do(context.Background(), "PING").Error(); err == nil {
		t.Fatal("PING after Stop succeeded")
	}
	s.Restart()
	s.MustDo("PING")
}

func TestReplicatedWithPassword(t *testing.T) {
	p, r := Replicated(t, WithPassword("s3cret"))
	p.MustDo("SET", "k", "v")
	info, _ := r.Do(context.Background(), "INFO", "replication").ToString()
	if !strings.Contains(info, "role:slave") {
		t.Fatalf("replica INFO: %s", info)
	}
}

func TestCluster(t *testing.T) {
	c := NewCluster(t)
	cl := c.Client()
	ctx := context.Background()
	for _, k := range []string{"a", "b", "c", "{x}1", "{x}2"} {
		if err := cl.Do(ctx, cl.B().Set().Key(k).Value("1").Build()).Error(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
	}
	if n := len(cl.Nodes()); n != 6 {
		t.Fatalf("client sees %d nodes, want 6", n)
	}
	c.Failover(0)
	if err := cl.Do(ctx, cl.B().Get().Key("a").Build()).Error(); err != nil {
		t.Fatalf("GET after failover: %v", err)
	}
}
