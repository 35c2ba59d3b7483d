package main

import (
	"cmp"
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

	"github.com/redis/rueidis"
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/evalrun"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/difftest"
	"github.com/scriptctl/scriptctl/verify/rediscli"
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
	Targets    []string   `yaml:"targets"`  // only these servers; empty: every one
	Topology   string     `yaml:"topology"` // cluster: a cluster node's snippet
	file       string     // base name of the corpus file
	index      int        // position in its file
}

// cliCorpusFiles are the corpus files every snippet of which runs through
// the CLI; of the others, one in cliSample does. The engine itself is judged
// on every snippet by verify/difftest; this test judges the CLI path (state
// files, --save, redis-cli formatting), which a sample of each family
// exercises as well as all of it, in a third of the time.
var cliCorpusFiles = map[string]bool{
	"base_more.yaml": true, "cmd_hash.yaml": true, "cmd_keys.yaml": true, "cmd_string.yaml": true,
	"conv_from_redis.yaml": true, "conv_to_redis.yaml": true, "edge.yaml": true, "errors.yaml": true,
	"errors_more.yaml": true, "functions.yaml": true, "globals.yaml": true, "keys_args.yaml": true,
	"lang.yaml": true, "lease.yaml": true, "libs.yaml": true, "numbers.yaml": true, "readonly.yaml": true,
	"shebang.yaml": true,
}

const cliSample = 3

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
			snips[i].file, snips[i].index = filepath.Base(f), i
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
// state file cannot hold the same way are skipped: TTLs, streams). After the run, the --save file must hold what the server holds.
// The fast tier samples the corpus (evalCorpusEvery); make test-full runs the
// rest of it.
func TestEvalCorpusCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	snippets := loadCorpusSnippets(t)
	srv := redistest.Standalone(t)
	cli := redistest.CLI(t)
	ctx := context.Background()
	client := srv.Client()
	do := func(args ...string) rueidis.RedisResult {
		return client.Do(ctx, client.B().Arbitrary(args...).Build())
	}
	dir := t.TempDir()
	ran, identical, skipped := 0, 0, map[string]int{}
	var engineDiffers []string
	// The fast tier runs every evalCorpusEvery-th snippet; make test-full
	// (the rest tier) the others, the full tier the whole corpus.
	taken := 0
	for i, s := range snippets {
		if !testtier.Sample(i, evalCorpusEvery) {
			continue
		}
		taken++
		if reason := skipReason(s); reason != "" {
			skipped[reason]++
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			for _, c := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"FUNCTION", "FLUSH"}} {
				if err := do(c...).Error(); err != nil {
					t.Fatalf("%v: %v", c, err)
				}
			}
			for _, c := range s.Setup {
				do(c...) // an error reply is part of the snippet
			}
			state, ok := liveKeys(t, do)
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
			after, _ := liveKeys(t, do)

			ios, _, stdout, stderr := iostreams.Test()
			args := append([]string{"eval", "--topology", "standalone", "--now", strconv.FormatInt(now, 10), "--state", stateFile, "--save", saveFile, "--", script}, words...)
			code := run(ctx, ios, args)
			ran++
			// The same run straight through the engine: what the CLI must
			// print whatever Redis does.
			engine, warnings := engineOutput(ctx, s, state, now)
			noSave := code == 2 && strings.Contains(stderr.String(), "not UTF-8 text")
			if stdout.String() != engine || (code != 0 && !noSave && !strings.HasPrefix(engine, "[run error")) {
				t.Fatalf("scriptctl eval (exit %d) prints other bytes than the engine\n--- engine + rediscli.Format\n%s--- scriptctl eval\n%s--- stderr\n%s",
					code, engine, stdout, stderr)
			}
			if stdout.String() != live {
				if _, known := difftest.KnownDivergences[s.Name]; known && engine != live {
					// A listed divergence of the engine itself.
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
			if len(warnings) > 0 {
				// The engine said its state follows an order or a pick
				// Redis does not fix (a hashtable's order, SPOP): the saved
				// keyspace cannot be compared with the server's.
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
	considered := ran
	for _, n := range skipped {
		considered += n
	}
	if considered < taken {
		return // a -run filter chose some snippets: the totals below are for the whole corpus
	}
	if bar := tierBar(200); identical < bar {
		t.Errorf("only %d snippets identical, want at least %d", identical, bar)
	}
}

// tierBar is the part of a bar for the whole corpus that the tier's share
// of it must reach: the fast tier's 1 in evalCorpusEvery, the rest tier
// the others, the full tier all.
func tierBar(whole int) int {
	switch {
	case testtier.IsRest():
		return whole - whole/evalCorpusEvery
	case testtier.IsFull():
		return whole
	}
	return whole / evalCorpusEvery
}

// evalCorpusEvery samples the corpus TestEvalCorpusCLI and
// TestEvalCorpusFunctionCLI run in the fast tier.
const evalCorpusEvery = 16

// skipReason says why a snippet cannot go through redis-cli --eval
// unchanged, or "".
func skipReason(s corpusSnippet) string {
	if len(s.Targets) > 0 && !slices.Contains(s.Targets, "redis-7.0") {
		return "a snippet for other targets"
	}
	if s.Topology == verify.TopologyCluster {
		return "a cluster node's snippet (verify/difftest TestClusterCorpus)"
	}
	if !cliCorpusFiles[s.file] && s.index%cliSample != 0 {
		return "not in the CLI sample (verify/difftest runs every snippet)"
	}
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
// something a state file cannot describe the same way: a TTL (it would
// drift between the two runs).
func liveKeys(t *testing.T, do func(args ...string) rueidis.RedisResult) (keys []scenario.Key, ok bool) {
	t.Helper()
	names, err := do("KEYS", "*").AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	ok = true
	read := func(_ context.Context, args ...string) (verify.Reply, error) {
		msg, _ := do(args...).ToMessage()
		return verify.FromMessage(msg)
	}
	for _, n := range names {
		k, exists, err := scenario.ReadKey(context.Background(), read, n, n)
		if err != nil {
			t.Fatal(err)
		}
		if !exists {
			continue // expired while read (a 1 ms PEXPIRE does that)
		}
		if k.PTTL >= 0 {
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
		same := scenario.SameContents(clockIDsMasked(o), clockIDsMasked(l))
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

// clockIDsMasked is k with every stream ID made from a clock (XADD *,
// whose milliseconds are the time of the run: 1e12 or more) replaced by
// 0-<its rank among them>, so an offline and a live run that added
// entries at different times compare equal, and explicit IDs stay exact.
// The rank is over whole IDs, not milliseconds: two XADD * in one script
// share a millisecond on the virtual clock (T-0, T-1) but may straddle a
// tick on a live server (T-0, T+1-0); both are the first and second ID.
func clockIDsMasked(k scenario.Key) scenario.Key {
	if k.Stream == nil {
		return k
	}
	st := *k.Stream
	var clock []verify.StreamID
	note := func(id verify.StreamID) {
		if id.Ms >= 1e12 {
			clock = append(clock, id)
		}
	}
	for _, e := range st.Entries {
		note(e.ID)
	}
	note(st.LastID)
	note(st.MaxDeletedID)
	for _, g := range st.Groups {
		note(g.LastID)
		for _, p := range g.Pending {
			note(p.ID)
		}
	}
	byID := func(a, b verify.StreamID) int {
		if c := cmp.Compare(a.Ms, b.Ms); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	}
	slices.SortFunc(clock, byID)
	clock = slices.Compact(clock)
	mask := func(id verify.StreamID) verify.StreamID {
		if id.Ms >= 1e12 {
			i, _ := slices.BinarySearchFunc(clock, id, byID)
			return verify.StreamID{Ms: 0, Seq: uint64(i)}
		}
		return id
	}
	st.Entries = slices.Clone(st.Entries)
	for i := range st.Entries {
		st.Entries[i].ID = mask(st.Entries[i].ID)
	}
	st.LastID, st.MaxDeletedID = mask(st.LastID), mask(st.MaxDeletedID)
	st.Groups = slices.Clone(st.Groups)
	for i := range st.Groups {
		g := &st.Groups[i]
		g.LastID = mask(g.LastID)
		g.Pending = slices.Clone(g.Pending)
		for j := range g.Pending {
			g.Pending[j].ID = mask(g.Pending[j].ID)
		}
	}
	k.Stream = &st
	return k
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// engineOutput runs a snippet straight through the engine, as redis-cli
// would print it, or "[run error <code>]".
func engineOutput(ctx context.Context, s corpusSnippet, state []scenario.Key, now int64) (string, []string) {
	e := verify.New(verify.Options{Now: now, Topology: verify.TopologyStandalone})
	for _, k := range state {
		e.Put(k.Entry())
	}
	r, err := e.Eval(ctx, []byte(s.Script), nonNilWords(s.Keys), nonNilWords(s.Args))
	if err != nil {
		var re *verify.RunError
		if errors.As(err, &re) {
			return "[run error " + re.Code + "]", e.Warnings()
		}
		return "[error " + err.Error() + "]", e.Warnings()
	}
	return rediscli.Format(r), e.Warnings()
}

func nonNilWords(w []string) []string {
	if w == nil {
		return []string{}
	}
	return w
}

// runEvalCLI runs scriptctl with args and returns its exit code and output.
func runEvalCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code = run(context.Background(), ios, args)
	return code, out.String(), errOut.String()
}

// TestEvalAgainst drives --against and --diff through the CLI against a
// real server: the replies printed, the exit codes, and what the server
// holds afterwards.
func TestEvalAgainst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	srv := redistest.Standalone(t)
	ctx := context.Background()
	dir := t.TempDir()
	publish := filepath.Join(dir, "publish.lua")
	writeFile(t, publish, `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[1])
return 1
`)
	state := filepath.Join(dir, "state.yaml")
	writeFile(t, state, "\"{p}lease\":\n  value: tok-old\n  ttl_ms: 60000\n")
	url := "redis://" + srv.Addr
	words := []string{"{p}lease", "{p}value", ",", "tok-old", "summary-v1", "60000"}

	// --against alone: the state is written to the server, the script runs
	// there, its reply printed as redis-cli prints it.
	code, out, errOut := runEvalCLI(t, append([]string{"eval", "--against", url, "--state", state, publish}, words...)...)
	if code != 0 || out != "(integer) 1\n" {
		t.Fatalf("--against: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if v, _ := srv.Do(ctx, "GET", "{p}value").ToString(); v != "summary-v1" {
		t.Errorf("server value = %q, want summary-v1", v)
	}
	if n, _ := srv.Do(ctx, "EXISTS", "{p}lease").AsInt64(); n != 0 {
		t.Error("server lease still exists after publish")
	}

	// --diff, both modes: the same reply and keys on both sides, printed once.
	for _, mode := range []string{"eval", "function"} {
		code, out, errOut = runEvalCLI(t, append([]string{"eval", "--diff", "--mode", mode, "--against", url, "--state", state, publish}, words...)...)
		if code != 0 || out != "(integer) 1\n" {
			t.Errorf("--diff --mode %s: exit %d, stdout %q, stderr %q", mode, code, out, errOut)
		}
	}
	if libs, _ := srv.Do(ctx, "FUNCTION", "LIST").ToArray(); len(libs) != 0 {
		t.Errorf("the generated library was left on the server (%d libraries)", len(libs))
	}

	// --diff with a reply that cannot match (a table's address): exit 1,
	// both sides shown.
	addr := filepath.Join(dir, "addr.lua")
	writeFile(t, addr, "return tostring({})\n")
	code, out, errOut = runEvalCLI(t, "eval", "--diff", "--against", url, addr)
	if code != 1 || !strings.HasPrefix(out, "offline:\n\"table: 0x") || !strings.Contains(out, "\nlive "+srv.Addr+":\n\"table: 0x") ||
		!strings.HasSuffix(out, "differences:\n  reply (above)\n") || errOut != addr+": error live-differs: offline and "+srv.Addr+" differ\n" {
		t.Errorf("--diff differing: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// A run the engine cannot judge (an undeclared key under
	// --strict-keys) differs from any reply: exit 1.
	undeclared := filepath.Join(dir, "undeclared.lua")
	writeFile(t, undeclared, "return redis.call('GET', 'elsewhere')\n")
	code, out, _ = runEvalCLI(t, "eval", "--strict-keys", "--diff", "--against", url, undeclared)
	if code != 1 || !strings.Contains(out, "offline:\nno reply offline: undeclared key \"elsewhere\"") || !strings.Contains(out, "live "+srv.Addr+":\n(nil)\n") {
		t.Errorf("--diff undeclared key: exit %d, stdout %q", code, out)
	}

	// The same reply, but a stored key differs: an absolute expiry in the
	// future of --now is in the past of the server's clock.
	pxat := filepath.Join(dir, "pxat.lua")
	writeFile(t, pxat, "return redis.call('SET', KEYS[1], 'v', 'PXAT', ARGV[1])\n")
	code, out, _ = runEvalCLI(t, "eval", "--diff", "--now", "1700000000000", "--against", url, pxat, "{p}k", ",", "1700000060000")
	want := "offline:\nOK\nlive " + srv.Addr + ":\nOK\ndifferences:\n  key \"{p}k\": offline \"v\" (ttl 60000ms), live absent\n"
	if code != 1 || out != want {
		t.Errorf("--diff key difference: exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}

	// JSON: both sides with their keys, differ false.
	code, out, errOut = runEvalCLI(t, append([]string{"eval", "--diff", "--format", "json", "--against", url, "--state", state, publish}, words...)...)
	if code != 0 {
		t.Fatalf("--diff json: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{`"differ": false`, `"addr": "` + srv.Addr + `"`, `"key": "{p}value"`, `"value": "summary-v1"`, `"type": "integer"`} {
		if !strings.Contains(out, want) {
			t.Errorf("--diff json lacks %s:\n%s", want, out)
		}
	}
}

// TestEvalAgainstPassword: the password comes from the environment or a
// file, is never printed, and a wrong one is an environment failure.
func TestEvalAgainstPassword(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	const secret = "s3cret-eval-pw"
	srv := redistest.Standalone(t, redistest.WithPassword(secret))
	dir := t.TempDir()
	one := filepath.Join(dir, "one.lua")
	writeFile(t, one, "return 1\n")
	pwFile := filepath.Join(dir, "pw")
	writeFile(t, pwFile, secret+"\n")
	url := "redis://" + srv.Addr

	code, out, errOut := runEvalCLI(t, "eval", "--against", url, "--password-file", pwFile, one)
	if code != 0 || out != "(integer) 1\n" {
		t.Errorf("--password-file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	t.Setenv("REDISCLI_AUTH", secret)
	code, out, errOut = runEvalCLI(t, "eval", "--diff", "--against", url, one)
	if code != 0 || out != "(integer) 1\n" {
		t.Errorf("REDISCLI_AUTH: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	t.Setenv("REDISCLI_AUTH", secret+"-wrong")
	code, out, errOut = runEvalCLI(t, "eval", "--against", url, one)
	if code != 3 || out != "" || !strings.Contains(errOut, "connect "+srv.Addr) || strings.Contains(errOut, secret) {
		t.Errorf("wrong password: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestEvalCorpusFunctionCLI runs a third of the corpus (of that every
// evalCorpusEvery-th snippet in the fast tier, the others in the rest tier) (the snippets without
// setup that can be a function body) through `scriptctl eval --mode
// function` and through redis-cli loading the same generated library and
// calling FCALL scriptctl_eval, and requires identical stdout: the FCALL
// reply, or FUNCTION LOAD's error reply when the library does not load.
func TestEvalCorpusFunctionCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	srv := redistest.Standalone(t)
	cli := redistest.CLI(t)
	ctx := context.Background()
	dir := t.TempDir()
	ran, identical := 0, 0
	var engineDiffers []string
	for i, s := range loadCorpusSnippets(t) {
		if i%3 != 0 || !testtier.Sample(i/3, evalCorpusEvery) || s.NoFunction != "" || len(s.Setup) > 0 || skipReason(s) != "" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			lib, err := evalrun.Library([]byte(s.Script))
			if err != nil {
				return // no function equivalent (tested in eval_function.txtar)
			}
			for _, c := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"FUNCTION", "FLUSH"}} {
				srv.MustDo(c...)
			}
			script := filepath.Join(dir, "snippet.lua")
			writeFile(t, script, s.Script)
			redisCLI := func(args ...string) string {
				cmd := exec.Command(cli, append([]string{"--no-raw", "-p", strconv.Itoa(srv.Port)}, args...)...)
				out, _ := cmd.Output()
				return string(out)
			}
			live := redisCLI("FUNCTION", "LOAD", string(lib))
			if !strings.HasPrefix(live, "(error) ") {
				live = redisCLI(append(append([]string{"FCALL", evalrun.FunctionName, strconv.Itoa(len(s.Keys))}, s.Keys...), s.Args...)...)
			}
			words := append(append(append([]string{}, s.Keys...), ","), s.Args...)
			code, out, errOut := runEvalCLI(t, append([]string{"eval", "--topology", "standalone", "--mode", "function", "--", script}, words...)...)
			ran++
			e := verify.New(verify.Options{Topology: verify.TopologyStandalone})
			engine := ""
			if r, err := e.FunctionLoad(lib, false); err != nil || r.Kind == verify.Error {
				engine = rediscli.Format(r)
			} else if r, err := e.FCall(ctx, evalrun.FunctionName, nonNilWords(s.Keys), nonNilWords(s.Args)); err == nil {
				engine = rediscli.Format(r)
			}
			if engine != "" && out != engine {
				t.Fatalf("scriptctl eval --mode function (exit %d) prints other bytes than the engine\n--- engine\n%s--- scriptctl eval\n%s--- stderr\n%s", code, engine, out, errOut)
			}
			if out != live {
				if _, known := difftest.KnownDivergences[s.Name]; known && engine != live {
					engineDiffers = append(engineDiffers, s.Name)
					return
				}
				t.Fatalf("scriptctl eval --mode function (exit %d) and redis-cli FCALL differ\n--- redis-cli\n%s--- scriptctl eval\n%s--- stderr\n%s--- script\n%s", code, live, out, errOut, s.Script)
			}
			identical++
		})
	}
	t.Logf("%d snippets as functions: %d identical, engine differences %v", ran, identical, engineDiffers)
	if identical < tierBar(100) {
		t.Errorf("%d of %d identical, engine differences %v", identical, ran, engineDiffers)
	}
}

// TestEvalDiffEveryType: --diff with a --state of every type agrees with
// the server (the hash answered in the file's order on both sides), and
// --against alone leaves each key on the server as the file wrote it.
func TestEvalDiffEveryType(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	srv := redistest.Standalone(t)
	ctx := context.Background()
	dir := t.TempDir()
	script := filepath.Join(dir, "hgetall.lua")
	writeFile(t, script, "return redis.call('HGETALL', KEYS[1])\n")
	state := filepath.Join(dir, "state.yaml")
	writeFile(t, state, `"{e}h": {hash: {zeta: "26", alpha: "1"}, ttl_ms: 60000}
"{e}l": {list: [b, a, b]}
"{e}s": {set: [y, x, "10"]}
"{e}z": {zset: [[top, inf], [m, 0.1], [low, -inf]]}
"{e}zm": {zset: {b: 2, a: 2}}
`)
	url := "redis://" + srv.Addr
	words := []string{"{e}h", "{e}l", "{e}s", "{e}z", "{e}zm"}
	hgetall := "1) \"zeta\"\n2) \"26\"\n3) \"alpha\"\n4) \"1\"\n"
	for _, mode := range []string{"eval", "function"} {
		code, out, errOut := runEvalCLI(t, append([]string{"eval", "--diff", "--mode", mode, "--against", url, "--state", state, script}, words...)...)
		if code != 0 || out != hgetall {
			t.Errorf("--diff --mode %s: exit %d, stdout %q, stderr %q", mode, code, out, errOut)
		}
	}
	code, out, errOut := runEvalCLI(t, append([]string{"eval", "--against", url, "--state", state, script}, words...)...)
	if code != 0 || out != hgetall {
		t.Fatalf("--against: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, tc := range []struct {
		cmd  []string
		want []string
	}{
		{[]string{"LRANGE", "{e}l", "0", "-1"}, []string{"b", "a", "b"}},
		{[]string{"ZRANGE", "{e}z", "0", "-1"}, []string{"low", "m", "top"}},
		{[]string{"ZRANGE", "{e}zm", "0", "-1"}, []string{"a", "b"}},
	} {
		if got, err := srv.Do(ctx, tc.cmd...).AsStrSlice(); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%v = %q, %v; want %q", tc.cmd, got, err, tc.want)
		}
	}
	if got, _ := srv.Do(ctx, "SMEMBERS", "{e}s").AsStrSlice(); len(got) != 3 || !slices.Contains(got, "10") {
		t.Errorf("SMEMBERS = %q", got)
	}
}

// Two XADD * in one script: the virtual clock gives T-0, T-1; a live
// server whose clock ticks between them gives T-0, T+1-0. Both are the
// first and second clock ID; an explicit ID stays exact.
func TestClockIDsMaskedAcrossATick(t *testing.T) {
	const T = 1_780_000_000_000
	key := func(ids ...verify.StreamID) scenario.Key {
		st := &verify.StreamState{LastID: ids[len(ids)-1]}
		for _, id := range ids {
			st.Entries = append(st.Entries, verify.StreamEntry{ID: id, Fields: []string{"f", "v"}})
		}
		return scenario.Key{Name: "s", Type: "stream", Stream: st}
	}
	offline := key(verify.StreamID{Ms: 5, Seq: 1}, verify.StreamID{Ms: T}, verify.StreamID{Ms: T, Seq: 1})
	live := key(verify.StreamID{Ms: 5, Seq: 1}, verify.StreamID{Ms: T}, verify.StreamID{Ms: T + 1})
	if d := keysDiff([]scenario.Key{offline}, []scenario.Key{live}); d != "" {
		t.Errorf("the same two XADD * across a tick differ: %s", d)
	}
	got := clockIDsMasked(live).Stream
	want := []verify.StreamID{{Ms: 5, Seq: 1}, {Ms: 0, Seq: 0}, {Ms: 0, Seq: 1}}
	for i, e := range got.Entries {
		if e.ID != want[i] {
			t.Errorf("entry %d masked to %v, want %v", i, e.ID, want[i])
		}
	}
	if got.LastID != want[2] {
		t.Errorf("last ID masked to %v, want %v", got.LastID, want[2])
	}
	// A different number of clock entries still differs.
	short := key(verify.StreamID{Ms: 5, Seq: 1}, verify.StreamID{Ms: T})
	if d := keysDiff([]scenario.Key{short}, []scenario.Key{live}); d == "" {
		t.Error("streams with two and one clock entries compare equal")
	}
}
