package lint

import (
	"context"
	"strings"
	"testing"
)

// TestServerGlobalByTarget: Valkey 8's `server` global is fine when every
// target has it, and a target-command finding naming the targets that lack
// it otherwise (undeclared-global for a file without a manifest entry).
func TestServerGlobalByTarget(t *testing.T) {
	src := []byte("return server.call('GET', KEYS[1])\n")
	for _, tc := range []struct {
		targets []string
		want    string
	}{
		{[]string{"valkey-8.1"}, ""},
		{[]string{"valkey-8.0", "valkey-8.1"}, ""},
		{[]string{"redis-7.0", "valkey-8.1"}, "server is Valkey 8's alias of redis: it does not exist on redis-7.0 (the manifest's targets: redis-7.0, valkey-8.1)"},
		{nil, "it does not exist on redis-7.0"},
		{[]string{"valkey-7.2"}, "it does not exist on valkey-7.2"},
	} {
		decl := &Decl{Script: "s", Keys: []string{"k"}, Targets: tc.targets}
		diags, err := Run(context.Background(), Config{Files: []File{{Path: "s.lua", Source: src, Decl: decl}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range diags {
			if d.Code == "target-command" {
				got = append(got, d.Message)
			}
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("targets %v: unexpected %q", tc.targets, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("targets %v: got %q, want one containing %q", tc.targets, got, tc.want)
		}
	}
	diags := Source("s.lua", src, nil)
	if len(diags) != 1 || diags[0].Code != "undeclared-global" || !strings.Contains(diags[0].Message, "it does not exist on redis-7.0; use redis") {
		t.Errorf("without a manifest entry: got %v, want one undeclared-global naming redis-7.0", diags)
	}
}

// TestValkey91Commands: DELIFEQ and MSETEX exist on valkey-9.1 only (its
// recorded command table); a manifest that also lists an older server
// gets a target-command finding naming the targets without it.
func TestValkey91Commands(t *testing.T) {
	for _, tc := range []struct {
		src     string
		targets []string
		want    string
	}{
		{"return redis.call('DELIFEQ', KEYS[1], ARGV[1])\n", []string{"valkey-9.1"}, ""},
		{"return server.call('MSETEX', 1, KEYS[1], ARGV[1], 'EX', 10)\n", []string{"valkey-9.1"}, ""},
		{"return redis.call('DELIFEQ', KEYS[1], ARGV[1])\n", []string{"valkey-8.1", "valkey-9.1"}, "valkey-8.1"},
	} {
		decl := &Decl{Script: "s", Keys: []string{"k"}, Targets: tc.targets}
		diags, err := Run(context.Background(), Config{Files: []File{{Path: "s.lua", Source: []byte(tc.src), Decl: decl}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range diags {
			if d.Code == "target-command" || d.Code == "unknown-command" {
				got = append(got, d.Code+": "+d.Message)
			}
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s on %v: unexpected %q", tc.src, tc.targets, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%s on %v: got %q, want one naming %q", tc.src, tc.targets, got, tc.want)
		}
	}
}
