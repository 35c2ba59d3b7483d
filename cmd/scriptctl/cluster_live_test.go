package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
	"github.com/scriptctl/scriptctl/slot"
)

// TestLiveComparisonsOnCluster: verify --against and eval --against/--diff
// given one node (or two) of a 6-node cluster route every key to its slot's
// primary: the bundled scenarios and scripts with keys in many slots agree
// with the offline run, 20 runs in a row, and no reply is a redirect.
func TestLiveComparisonsOnCluster(t *testing.T) {
	testtier.Full(t, "a 6-node cluster, 20 live runs")
	if testing.Short() {
		t.Skip("starts a redis cluster")
	}
	c := redistest.NewCluster(t)
	ctx := context.Background()
	manifestPath := filepath.Join("..", "..", "manifest.yaml")
	scenarios, err := filepath.Glob(filepath.Join("..", "..", "lua_test", "*.yaml"))
	if err != nil || len(scenarios) == 0 {
		t.Fatalf("no bundled scenarios: %v", err)
	}
	wantPass := fmt.Sprintf(`"pass": %d`, 2*len(scenarios)) // EVAL and FCALL
	// Seeded with a replica, then with two nodes separated by a comma.
	for _, url := range []string{
		"redis://" + c.Replicas[2].Addr,
		"redis://" + c.Primaries[0].Addr + ",redis://" + c.Primaries[1].Addr,
	} {
		code, out, errOut := runEvalCLI(t, "verify", "-m", manifestPath, "--against", url, "--format", "json")
		if code != 0 || !strings.Contains(out, wantPass) || strings.Contains(out, "MOVED") {
			t.Fatalf("verify --against %s: exit %d\nstdout:\n%s\nstderr:\n%s", url, code, out, errOut)
		}
	}

	dir := t.TempDir()
	publish := filepath.Join(dir, "publish.lua")
	writeFile(t, publish, `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[1])
return {1, redis.call('GET', KEYS[2])}
`)
	url := "redis://" + c.Primaries[2].Addr
	slots := map[int]bool{}
	for i := 0; i < 20; i++ {
		tag := fmt.Sprintf("{p%d}", i)
		slots[slot.Of(tag)*3/slot.Count] = true
		state := filepath.Join(dir, fmt.Sprintf("state%d.yaml", i))
		writeFile(t, state, fmt.Sprintf("%q:\n  value: tok-old\n  ttl_ms: 60000\n", tag+"lease"))
		mode := []string{"eval", "function"}[i%2]
		code, out, errOut := runEvalCLI(t, "eval", "--diff", "--mode", mode, "--against", url, "--state", state, publish,
			tag+"lease", tag+"value", ",", "tok-old", "v"+tag, "60000")
		want := fmt.Sprintf("1) (integer) 1\n2) \"v%s\"\n", tag)
		if code != 0 || out != want {
			t.Fatalf("run %d (%s, slot %d): exit %d\nstdout:\n%s\nstderr:\n%s", i, mode, slot.Of(tag), code, out, errOut)
		}
	}
	if len(slots) != 3 {
		t.Errorf("the runs reached %d of the 3 primaries' slot ranges, want all", len(slots))
	}
	// --against alone prints the owner's reply, never MOVED.
	get := filepath.Join(dir, "get.lua")
	writeFile(t, get, "return redis.call('GET', KEYS[1])\n")
	for i := 0; i < 20; i++ {
		tag := fmt.Sprintf("{p%d}", i)
		code, out, errOut := runEvalCLI(t, "eval", "--against", url, get, tag+"value")
		if code != 0 || out != fmt.Sprintf("\"v%s\"\n", tag) {
			t.Fatalf("--against GET %svalue: exit %d, stdout %q, stderr %q", tag, code, out, errOut)
		}
	}
	for _, p := range c.Primaries {
		if libs, _ := p.Do(ctx, "FUNCTION", "LIST").ToArray(); len(libs) != 0 {
			t.Errorf("%s: the generated library was left (%d libraries)", p.Addr, len(libs))
		}
	}
}
