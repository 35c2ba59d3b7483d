package lint

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/ast"

	"github.com/scriptctl/scriptctl/internal/cmdtable"
)

// nativeFindings runs the linter on src with targets and returns the
// native-alternative messages.
func nativeFindings(t *testing.T, src string, targets []string) []Diagnostic {
	t.Helper()
	decl := &Decl{Script: "s", Keys: []string{"lease"}, Args: []string{"token", "ttl"}, Targets: targets}
	diags, err := Run(context.Background(), Config{Files: []File{{Path: "s.lua", Source: []byte(src), Decl: decl}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []Diagnostic
	for _, d := range diags {
		if d.Code == "native-alternative" {
			out = append(out, d)
		}
	}
	return out
}

// TestNativeAlternative: the token-safe shapes are named with their native
// command when every target has it (SET IFEQ: valkey-8.1), and not when a
// target lacks it or the script does more.
func TestNativeAlternative(t *testing.T) {
	renew, err := os.ReadFile("../lua/renew.lua")
	if err != nil {
		t.Fatal(err)
	}
	release, err := os.ReadFile("../lua/release.lua")
	if err != nil {
		t.Fatal(err)
	}
	v81 := []string{"valkey-8.1"}
	cases := []struct {
		name    string
		src     string
		targets []string
		want    string // "" for no finding
	}{
		{"bundled renew", string(renew), v81, "one native command on every target (valkey-8.1): SET KEYS[1] ARGV[1] IFEQ ARGV[1] PX ARGV[2] (the script's argument checks aside)"},
		{"renew inline", "if redis.call('get', KEYS[1]) == ARGV[1] then\n  redis.call('pexpire', KEYS[1], ARGV[2])\n  return 1\nend\nreturn 0\n", v81,
			"SET KEYS[1] ARGV[1] IFEQ ARGV[1] PX ARGV[2]; it replies OK"},
		{"renew seconds, negated", "local t = ARGV[1]\nif redis.call('GET', KEYS[1]) ~= t then return 0 end\nredis.call('EXPIRE', KEYS[1], ARGV[2])\nreturn 1\n", v81,
			"SET KEYS[1] ARGV[1] IFEQ ARGV[1] EX ARGV[2]"},
		{"compare and set", "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])\nelse\n  return nil\nend\n", v81,
			"SET KEYS[1] ARGV[2] IFEQ ARGV[1] PX ARGV[3]"},
		{"renew on a target without IFEQ", string(renew), []string{"valkey-8.1", "redis-8.0"}, ""},
		{"renew on redis-7.0", string(renew), []string{"redis-7.0"}, ""},
		{"release needs DELIFEQ", string(release), v81, ""},
		{"more than one write", "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  redis.call('DEL', KEYS[1])\n  redis.call('INCR', KEYS[2])\n  return 1\nend\nreturn 0\n", v81, ""},
		{"token from a key", "if redis.call('GET', KEYS[1]) == redis.call('GET', KEYS[2]) then\n  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n  return 1\nend\nreturn 0\n", v81, ""},
		{"another key", "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  redis.call('PEXPIRE', KEYS[2], ARGV[2])\n  return 1\nend\nreturn 0\n", v81, ""},
		{"other reply", "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n  return 'yes'\nend\nreturn 0\n", v81, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := nativeFindings(t, tc.src, tc.targets)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Fatalf("unexpected %v", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0].Message, tc.want) || got[0].Severity != Info):
				t.Fatalf("got %v, want one info finding containing %q", got, tc.want)
			}
		})
	}
}

// TestNativeAlternativeDataDriven: DELIFEQ lights up for a target whose
// recorded command table has it, and for no other; the rule holds no list
// of targets. Until a target records DELIFEQ, the bundled release script
// gets no finding anywhere.
func TestNativeAlternativeDataDriven(t *testing.T) {
	release, err := os.ReadFile("../lua/release.lua")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range cmdtable.Targets() {
		tb, err := cmdtable.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		_, has := tb.Command("DELIFEQ")
		got := nativeFindings(t, string(release), []string{name})
		if has != (len(got) == 1) {
			t.Errorf("%s: DELIFEQ in its table %v, findings %v", name, has, got)
		}
		if has && !strings.Contains(got[0].Message, "DELIFEQ KEYS[1] ARGV[1]") {
			t.Errorf("%s: %q does not name DELIFEQ KEYS[1] ARGV[1]", name, got[0].Message)
		}
	}
	// The delete shape itself is recognised (the target data decides).
	m := nativeMatch(mustChunk(t, string(release)))
	if m == nil || m.kind != "delete" || m.command != "DELIFEQ KEYS[1] ARGV[1]" || !m.checks {
		t.Fatalf("release.lua matched %+v", m)
	}
}

// mustChunk parses src.
func mustChunk(t *testing.T, src string) []ast.Stmt {
	t.Helper()
	p := &Pass{File: "s.lua", Source: []byte(src)}
	p.parse([]byte(src))
	if p.ParseErr != nil {
		t.Fatal(p.ParseErr)
	}
	return p.Chunk
}
