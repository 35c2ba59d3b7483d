package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/rediscli"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// corpusSnippet is one entry of the engine's differential corpus
// (verify/difftest/testdata/snippets, documented in verify/difftest).
type corpusSnippet struct {
	Name       string     `yaml:"name"`
	Script     string     `yaml:"script"`
	ScriptFile string     `yaml:"file"`
	Keys       []string   `yaml:"keys"`
	Args       []string   `yaml:"args"`
	Setup      [][]string `yaml:"setup"`
	After      [][]string `yaml:"after"`
	NoFunction string     `yaml:"no_function"`
}

// corpusDivergences are the snippets the corpus lists as known divergences
// of the engine (verify/difftest knownDivergences, verify/README.md).
var corpusDivergences = map[string]bool{
	"edge-cjson-object-three-keys": true,
	"edge-pairs-order-two-keys":    true,
}

func loadCorpusSnippets(t *testing.T) []corpusSnippet {
	t.Helper()
	files, err := filepath.Glob("../../verify/difftest/testdata/snippets/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	sort.Strings(files)
	var all []corpusSnippet
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var snips []corpusSnippet
		if err := yaml.Unmarshal(data, &snips); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range snips {
			if snips[i].ScriptFile != "" {
				src, err := os.ReadFile(filepath.Join("../..", snips[i].ScriptFile))
				if err != nil {
					t.Fatal(err)
				}
				snips[i].Script = string(src)
			}
		}
		all = append(all, snips...)
	}
	return all
}

// notState are the commands a setup may not contain: they change server state that
// a --state file cannot describe.
var notState = map[string]bool{"EVAL": true, "EVALSHA": true, "EVAL_RO": true, "FCALL": true, "FCALL_RO": true,
	"SCRIPT": true, "FUNCTION": true, "CONFIG": true, "DEBUG": true}

// TestEvalCorpusCLI runs the engine's differential corpus through the real
// `scriptctl eval` code path (flags, argument syntax, --state, --save,
// output) and through `redis-cli --no-raw --eval` against a throwaway
// redis-server, and requires byte-identical stdout. A snippet's setup
// commands run on the server; the keyspace they leave is read back into a
// --state file for the offline side (snippets whose setup leaves what a
// state file cannot hold are skipped: TTLs, lists and sets, unsorted hash
// fields). After the run, the --save file must hold what the server holds.
func TestEvalCorpusCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	snippets := loadCorpusSnippets(t)
	srv := redistest.Standalone(t)
	cli := redistest.CLI(t)
	ctx := context.Background()
	dir := t.TempDir()
	ran, identical, skipped := 0, 0, map[string]int{}
	var engineDiffers []string
	for _, s := range snippets {
		if reason := skipReason(s); reason != "" {
			skipped[reason]++
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			for _, c := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"FUNCTION", "FLUSH"}} {
				srv.MustDo(c...)
			}
			for _, c := range s.Setup {
				srv.Do(ctx, c...) // an error reply is part of the snippet
			}
			state, ok := liveKeys(t, srv)
			if !ok {
				skipped["setup leaves keys a state file cannot hold"]++
				return
			}
			script := filepath.Join(dir, "snippet.lua")
			stateFile := filepath.Join(dir, "state.yaml")
			saveFile := filepath.Join(dir, "saved.yaml")
			os.Remove(saveFile)
			writeFile(t, script, s.Script)
			f, err := os.Create(stateFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := scenario.WriteKeys(f, state); err != nil {
				t.Fatal(err)
			}
			f.Close()

			words := append(append(append([]string{}, s.Keys...), ","), s.Args...)
			now := time.Now().UnixMilli()
			live := runRedisCLI(t, cli, srv.Port, script, words)
			after, _ := liveKeys(t, srv)

			ios, _, stdout, stderr := iostreams.Test()
			args := append([]string{"eval", "--now", strconv.FormatInt(now, 10), "--state", stateFile, "--save", saveFile, "--", script}, words...)
			code := run(ctx, ios, args)
			ran++
			// The same run straight through the engine: what the CLI must
			// print whatever Redis does.
			engine := engineOutput(ctx, s, state, now)
			noSave := code == 2 && strings.Contains(stderr.String(), "not UTF-8 text")
			if stdout.String() != engine || (code != 0 && !noSave && !strings.HasPrefix(engine, "[run error")) {
				t.Fatalf("scriptctl eval (exit %d) prints other bytes than the engine\n--- engine + rediscli.Format\n%s--- scriptctl eval\n%s--- stderr\n%s",
					code, engine, stdout, stderr)
			}
			if stdout.String() != live {
				if corpusDivergences[s.Name] || engine != live {
					// The engine itself differs from Redis here:
					// verify/difftest reports (or lists) it.
					engineDiffers = append(engineDiffers, s.Name)
					return
				}
				t.Fatalf("scriptctl eval (exit %d) and redis-cli differ\n--- redis-cli --no-raw --eval\n%s--- scriptctl eval\n%s--- stderr\n%s--- script\n%s",
					code, live, stdout, stderr, s.Script)
			}
			identical++
			if noSave {
				return
			}
			data, err := os.ReadFile(saveFile)
			if err != nil {
				t.Fatal(err)
			}
			saved, err := scenario.ParseKeys(saveFile, data)
			if err != nil {
				t.Fatalf("--save wrote an unreadable file: %v\n%s", err, data)
			}
			if d := keysDiff(saved, after); d != "" {
				t.Errorf("--save and the server's keyspace after the run differ: %s", d)
			}
		})
	}
	t.Logf("%d snippets run through scriptctl eval and redis-cli: %d identical, %d where the engine itself differs from Redis %v; skipped: %v",
		ran, identical, len(engineDiffers), engineDiffers, skipped)
	if identical < 200 {
		t.Errorf("only %d snippets identical, want at least 200", identical)
	}
	if len(engineDiffers)*20 > ran {
		t.Errorf("the engine differs from Redis on %d of %d snippets (more than 5%%): %v", len(engineDiffers), ran, engineDiffers)
	}
}

// skipReason says why a snippet cannot go through redis-cli --eval
// unchanged, or "".
func skipReason(s corpusSnippet) string {
	if slices.Contains(s.Keys, ",") {
		return "a key is a lone comma (redis-cli's separator)"
	}
	if len(s.Keys) > 0 && strings.HasPrefix(s.Keys[0], "-") {
		return "first key starts with - (redis-cli reads it as an option)"
	}
	for _, c := range s.Setup {
		if notState[strings.ToUpper(c[0])] {
			return "setup changes more than keys"
		}
	}
	return ""
}

// runRedisCLI runs redis-cli --no-raw --eval with the words as exact exec
// arguments and returns its stdout.
func runRedisCLI(t *testing.T, cli string, port int, script string, words []string) string {
	t.Helper()
	cmd := exec.Command(cli, append([]string{"--no-raw", "-p", strconv.Itoa(port), "--eval", script}, words...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("redis-cli: %v", err)
		}
	}
	if stderr.Len() > 0 {
		t.Fatalf("redis-cli wrote on stderr: %s", stderr.String())
	}
	return stdout.String()
}

// liveKeys reads the server's whole keyspace. ok is false when it holds
// something a state file cannot describe the same way: another type, a
// TTL (it would drift between the two runs), or a hash whose fields are
// not in sorted order (the engine stores state hashes sorted).
func liveKeys(t *testing.T, srv *redistest.Server) (keys []scenario.Key, ok bool) {
	t.Helper()
	ctx := context.Background()
	names, err := srv.Do(ctx, "KEYS", "*").AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	ok = true
	for _, n := range names {
		typ, _ := srv.Do(ctx, "TYPE", n).ToString()
		pttl, _ := srv.Do(ctx, "PTTL", n).AsInt64()
		k := scenario.Key{Name: n, Type: typ, PTTL: -1}
		if pttl >= 0 {
			k.PTTL = pttl
			ok = false
		}
		switch typ {
		case "string":
			k.Value, _ = srv.Do(ctx, "GET", n).ToString()
		case "hash":
			// HKEYS and HVALS follow HGETALL's order, and are arrays in
			// RESP3 too.
			fields, _ := srv.Do(ctx, "HKEYS", n).AsStrSlice()
			vals, _ := srv.Do(ctx, "HVALS", n).AsStrSlice()
			k.Hash = map[string]string{}
			for i := range min(len(fields), len(vals)) {
				k.Hash[fields[i]] = vals[i]
			}
			if !sort.StringsAreSorted(fields) {
				ok = false
			}
		default:
			ok = false
		}
		keys = append(keys, k)
	}
	return keys, ok
}

// keysDiff compares a saved offline keyspace with the server's: same keys,
// types and values; a live TTL may trail the offline one by up to 1 s (and
// a key about to expire offline may be gone live).
func keysDiff(off, live []scenario.Key) string {
	var out []string
	byName := map[string]scenario.Key{}
	for _, l := range live {
		byName[l.Name] = l
	}
	for _, o := range off {
		l, ok := byName[o.Name]
		delete(byName, o.Name)
		if !ok {
			if o.PTTL < 0 || o.PTTL > 1000 {
				out = append(out, fmt.Sprintf("%q: offline %+v, live absent", o.Name, o))
			}
			continue
		}
		same := o.Type == l.Type && o.Value == l.Value && len(o.Hash) == len(l.Hash)
		for f, v := range o.Hash {
			same = same && l.Hash[f] == v
		}
		if (o.PTTL < 0) != (l.PTTL < 0) || o.PTTL-l.PTTL < 0 || o.PTTL-l.PTTL > 1000 {
			same = false
		}
		if !same {
			out = append(out, fmt.Sprintf("%q: offline %+v, live %+v", o.Name, o, l))
		}
	}
	for name, l := range byName {
		out = append(out, fmt.Sprintf("%q: offline absent, live %+v", name, l))
	}
	return strings.Join(out, "; ")
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// engineOutput runs a snippet straight through the engine, as redis-cli
// would print it, or "[run error <code>]".
func engineOutput(ctx context.Context, s corpusSnippet, state []scenario.Key, now int64) string {
	e := verify.New(verify.Options{Now: now})
	for _, k := range state {
		e.Put(k.Entry())
	}
	r, err := e.Eval(ctx, []byte(s.Script), nonNilWords(s.Keys), nonNilWords(s.Args))
	if err != nil {
		var re *verify.RunError
		if errors.As(err, &re) {
			return "[run error " + re.Code + "]"
		}
		return "[error " + err.Error() + "]"
	}
	return rediscli.Format(r)
}

func nonNilWords(w []string) []string {
	if w == nil {
		return []string{}
	}
	return w
}
