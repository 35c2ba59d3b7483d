package redistest

import (
	"context"
	"os"
	"path/filepath"
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

// TestBuildLog: a test that asks for the run's build is logged once, by
// its top-level name.
func TestBuildLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "builds")
	t.Setenv(BuildLogEnv, path)
	t.Run("sub", func(t *testing.T) {
		DefaultKind(t)
		DefaultKind(t)
	})
	CLI(t)
	// A stand-in outside any test (a TestMain's, for the examples).
	DefaultKind(namelessTB{})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "TestBuildLog\nExample.*\n" {
		t.Errorf("log = %q, want the test's name once, then every example", data)
	}
}

// namelessTB stands in for a testing.TB outside any test: Name panics.
type namelessTB struct{ testing.TB }

func (namelessTB) Helper() {}

// TestBuildLogWithKind: servers of a build named by WithKind do not depend
// on the run's build: nothing is logged.
func TestBuildLogWithKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "builds")
	t.Setenv(BuildLogEnv, path)
	Standalone(t, WithKind(Kinds[0])).MustDo("PING")
	if data, err := os.ReadFile(path); !os.IsNotExist(err) {
		t.Errorf("log = %q (%v), want none", data, err)
	}
}
