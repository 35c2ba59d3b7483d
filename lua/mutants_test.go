package lua_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// A mutant is one single defect planted in one bundled script by its
// edits, applied in order to lua/<Script>.lua.
type mutant struct {
	Name   string
	Script string
	Edits  []edit
}

// An edit replaces the text Find, which must occur exactly once (so a
// mutant never silently stops applying after the script changes), by
// Replace.
type edit struct{ Find, Replace string }

// one is a mutant of a single edit.
func one(name, script, find, replace string) mutant {
	return mutant{Name: name, Script: script, Edits: []edit{{find, replace}}}
}

// revCheck is publish's validation of the revision argument.
const revCheck = "if rev ~= '' and (#rev > 15 or not string.find(rev, '^[0-9]+$') or (#rev > 1 and string.sub(rev, 1, 1) == '0')) then\n" +
	"  return redis.error_reply('ERR invalid revision')\nend\n"

// mutants are the single-defect variants of the version 2 scripts that the
// detectors must catch.
var mutants = []mutant{
	one("publish without the generation check", "publish",
		"if (state[1] or '0') ~= gen then", "if false then"),
	one("publish with the generation comparison inverted", "publish",
		"if (state[1] or '0') ~= gen then", "if (state[1] or '0') == gen then"),
	one("publish without the lease check", "publish",
		"if not owned then\n  return 0\nend", "if false then\n  return 0\nend"),
	one("publish with the revision comparison inverted", "publish",
		"tonumber(rev) < tonumber(state[2])", "tonumber(rev) > tonumber(state[2])"),
	one("publish deletes a lease it does not own when invalidated", "publish",
		"  if owned then\n    redis.call('DEL', KEYS[1])\n  end\n  return -1", "  redis.call('DEL', KEYS[1])\n  return -1"),
	one("publish does not record the revision", "publish",
		"  redis.call('HSET', KEYS[3], 'rev', rev)\n", ""),
	{Name: "publish writes before validating the revision", Script: "publish", Edits: []edit{
		{revCheck, ""},
		{"redis.call('SET', KEYS[2], candidate, 'PX', ttl)\n", "redis.call('SET', KEYS[2], candidate, 'PX', ttl)\n" + revCheck},
	}},
	one("acquire reports generation 0 always", "acquire",
		"local gen = redis.call('HGET', KEYS[3], 'gen') or '0'", "local gen = '0'"),
	one("invalidate keeps the lease", "invalidate",
		"redis.call('DEL', KEYS[2], KEYS[1])", "redis.call('DEL', KEYS[2])"),
	one("invalidate lowers the revision tombstone", "invalidate",
		"(not stored or tonumber(rev) > tonumber(stored))", "(not stored or tonumber(rev) ~= tonumber(stored))"),
	one("invalidate writes before validating the revision", "invalidate",
		"if rev ~= '' and (#rev > 15", "redis.call('HINCRBY', KEYS[3], 'gen', 1)\nif rev ~= '' and (#rev > 15"),
	one("renew without the token check", "renew",
		"if redis.call('GET', KEYS[1]) == token then", "if redis.call('EXISTS', KEYS[1]) == 1 then"),
	one("renew adds to the TTL instead of setting it", "renew",
		"redis.call('PEXPIRE', KEYS[1], ttl)", "redis.call('PEXPIRE', KEYS[1], redis.call('PTTL', KEYS[1]) + ttl)"),
}

// A detector runs over a repository copy whose scripts.sum records the
// mutated bytes (so the ledger is not what catches a mutant) and reports
// what it found; caught is false when it found nothing. Another detector
// (such as an exhaustive interleaving explorer) is one more entry.
type detector struct {
	Name string
	Run  func(ctx context.Context, m *manifest.Manifest) (caught bool, detail string, err error)
}

var detectors = []detector{
	{"scenarios", scenariosDetector},
}

// scenariosDetector is the verify step of scriptctl check: every
// lua_test/*.yaml scenario and negative control, offline, as EVAL and as
// FCALL, on every target of the manifest.
func scenariosDetector(ctx context.Context, m *manifest.Manifest) (bool, string, error) {
	rep, err := scenario.Check(ctx, m)
	if err != nil {
		return false, "", err
	}
	if len(rep.Results) == 0 {
		return false, "", fmt.Errorf("no scenarios ran")
	}
	ps := rep.Problems()
	if len(ps) == 0 && !rep.Malformed() {
		return false, "", nil
	}
	detail := fmt.Sprintf("%d problem(s)", len(ps))
	if len(ps) > 0 {
		detail += ", first: " + ps[0].Message
	}
	return true, detail, nil
}

// TestMutantsCaught plants each mutant in a copy of the repository's
// manifest, scripts and scenarios and requires at least one detector to
// catch it; the unmutated copy must pass every detector, so the test can
// tell the two apart.
func TestMutantsCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario once per mutant")
	}
	ctx := context.Background()
	t.Run("unmutated", func(t *testing.T) {
		m := repoCopy(t, nil)
		for _, d := range detectors {
			caught, detail, err := d.Run(ctx, m)
			if err != nil {
				t.Fatalf("%s: %v", d.Name, err)
			}
			if caught {
				t.Errorf("%s finds a problem in the unmutated scripts: %s", d.Name, detail)
			}
		}
	})
	for _, mu := range mutants {
		t.Run(mu.Name, func(t *testing.T) {
			m := repoCopy(t, &mu)
			var by []string
			for _, d := range detectors {
				caught, detail, err := d.Run(ctx, m)
				if err != nil {
					t.Fatalf("%s: %v", d.Name, err)
				}
				if caught {
					by = append(by, d.Name)
					t.Logf("caught by %s: %s", d.Name, detail)
				}
			}
			if len(by) == 0 {
				t.Errorf("mutant %q of lua/%s.lua survived every detector", mu.Name, mu.Script)
			}
		})
	}
}

// repoCopy copies manifest.yaml, lua/ and lua_test/ (scenarios and
// controls) into a temporary folder, applies mu (when not nil) and records
// the resulting bytes as the manifest's version in scripts.sum.
func repoCopy(t *testing.T, mu *mutant) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	copyFile := func(rel string) {
		b, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			t.Fatal(err)
		}
		if mu != nil && rel == filepath.Join("lua", mu.Script+".lua") {
			src := string(b)
			for i, e := range mu.Edits {
				if n := strings.Count(src, e.Find); n != 1 {
					t.Fatalf("mutant %q, edit %d: the text to replace occurs %d times in %s, want once", mu.Name, i+1, n, rel)
				}
				src = strings.Replace(src, e.Find, e.Replace, 1)
			}
			b = []byte(src)
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("manifest.yaml")
	for _, root := range []string{"lua", "lua_test"} {
		err := filepath.WalkDir(filepath.Join("..", root), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(path); ext == ".lua" || ext == ".yaml" {
				rel, err := filepath.Rel("..", path)
				if err != nil {
					return err
				}
				copyFile(rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(dir, "manifest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sum := &manifest.Sum{Path: m.SumPath()}
	if _, err := sum.Record(m, false); err != nil {
		t.Fatal(err)
	}
	if err := manifest.WriteSum(m.SumPath(), sum); err != nil {
		t.Fatal(err)
	}
	return m
}
