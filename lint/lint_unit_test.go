package lint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistryPanicsOnDuplicate(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering a duplicate code did not panic")
		}
	}()
	register(&rule{code: "syntax"})
}

func TestEveryRuleDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		if !strings.Contains(string(readme), "### `"+r.Code+"`") {
			t.Errorf("lint/README.md has no section for %s", r.Code)
		}
		if r.Summary == "" || r.Help == "" {
			t.Errorf("%s: missing summary or help", r.Code)
		}
	}
}

func TestRunUnreadable(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin.lua")
	if err := os.WriteFile(bin, []byte("return 1\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.lua"), bin} {
		_, err := Run(context.Background(), Config{Files: []File{{Path: path}}})
		var ie *InputError
		if !errors.Is(err, ErrUnreadable) || !errors.As(err, &ie) || ie.Path != path {
			t.Errorf("%s: got %v, want an InputError", path, err)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Config{Files: []File{{Path: "x.lua", Source: []byte("return 1")}}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestSeverityAndCount: --fail-on semantics.
func TestSeverityAndCount(t *testing.T) {
	ds := []Diagnostic{{Severity: Error}, {Severity: Warning}, {Severity: Warning}}
	if got := Count(ds, Error); got != 1 {
		t.Errorf("Count(error) = %d, want 1", got)
	}
	if got := Count(ds, Warning); got != 3 {
		t.Errorf("Count(warning) = %d, want 3", got)
	}
	if _, err := ParseSeverity("info"); err == nil {
		t.Error("ParseSeverity(info) did not fail")
	}
}

// TestColumns: columns count characters, and repeated names on one line
// resolve in source order.
func TestColumns(t *testing.T) {
	src := "local s = 'é' .. redis.call('GET', 'a') .. redis.call('GET', 'b')\n"
	ds := Source("c.lua", []byte(src), nil)
	var cols []int
	for _, d := range ds {
		if d.Code == "dynamic-key" {
			cols = append(cols, d.Pos.Col)
		}
	}
	// 'a' is at byte 37 but character 36 (é is two bytes); 'b' at character 62.
	if len(cols) != 2 || cols[0] != 36 || cols[1] != 62 {
		t.Errorf("columns %v, want [36 62]; diagnostics %v", cols, ds)
	}
}

// Only shebang-flags (deploy's pre-flight) skips the parse and the flow
// analysis, and finds what a full run finds for that rule, suppressions
// included.
func TestOnlyShebangFlagsMatchesFullRun(t *testing.T) {
	decl := &Decl{Script: "s", Keys: []string{"k"}, Flags: []string{"no-writes"}}
	found := 0
	for _, src := range []string{
		"#!lua flags=allow-oom\nreturn redis.call('GET', KEYS[1])\n",
		"#!lua flags=bogus\nreturn (\n",
		"return redis.call('GET', KEYS[1])\n",
		"#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])\n",
		"#!lua flags=allow-oom\n-- scriptctl:ignore shebang-flags kept on purpose\nreturn 1\n",
	} {
		files := []File{{Path: "s.lua", Source: []byte(src), Decl: decl}}
		only, err := Run(context.Background(), Config{Files: files, Only: []string{"shebang-flags"}})
		if err != nil {
			t.Fatal(err)
		}
		all, err := Run(context.Background(), Config{Files: files})
		if err != nil {
			t.Fatal(err)
		}
		var want []Diagnostic
		for _, d := range all {
			if d.Code == "shebang-flags" {
				want = append(want, d)
			}
		}
		if len(only) != len(want) {
			t.Fatalf("%q: only shebang-flags gives %v, the full run %v", src, only, want)
		}
		found += len(want)
		for i := range only {
			if only[i].Pos != want[i].Pos || only[i].Message != want[i].Message {
				t.Errorf("%q: %v, want %v", src, only[i], want[i])
			}
		}
	}
	if found < 3 {
		t.Errorf("the cases gave %d shebang-flags findings, want at least 3", found)
	}
	p := newPass("s.lua", []byte("return 1\n"), decl, false, false)
	if p.Chunk != nil || p.Facts != nil {
		t.Error("a pass without parse parsed")
	}
}

// TestDynamicKeySeverity: dynamic-key is a warning (servers run the script
// while the key shares the declared keys' slot) and an error with strict
// keys, from Config.StrictKeys or the strict-proxy profile; other rules
// keep their severity either way.
func TestDynamicKeySeverity(t *testing.T) {
	src := []byte("redis.call('SET', 'bull:{q}:' .. ARGV[1], 1)\nx = 1\nreturn redis.call('GET', KEYS[1])\n")
	decl := &Decl{Script: "s", Keys: []string{"bull:{q}:id"}, Args: []string{"id"}}
	for _, tc := range []struct {
		name string
		cfg  Config
		want Severity
	}{
		{"default", Config{}, Warning},
		{"strict keys", Config{StrictKeys: true}, Error},
		{"strict-proxy", Config{Profile: "strict-proxy"}, Error},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Files = []File{{Path: "s.lua", Source: src, Decl: decl}}
			ds, err := Run(context.Background(), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Severity{}
			for _, d := range ds {
				got[d.Code] = d.Severity
			}
			if got["dynamic-key"] != tc.want || got["global-write"] != Error {
				t.Errorf("severities %v, want dynamic-key %s and global-write error", got, tc.want)
			}
		})
	}
	r, ok := Lookup("dynamic-key")
	if !ok || r.Severity != Warning || r.StrictSeverity != Error || r.SeverityText() != "warning (error with strict keys)" {
		t.Errorf("rule %+v, want warning (error with strict keys)", r)
	}
	if g, _ := Lookup("global-write"); g.StrictSeverity != "" || g.SeverityText() != "error" {
		t.Errorf("global-write %+v", g)
	}
	for _, sr := range SARIFRules() {
		if sr.Code == "dynamic-key" && !strings.Contains(sr.Markdown, "(warning (error with strict keys))") {
			t.Errorf("SARIF help %q does not name the strict severity", sr.Markdown)
		}
	}
}
