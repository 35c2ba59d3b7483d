package difftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/internal/testtier"
	"github.com/scriptctl/scriptctl/slot"
	"github.com/scriptctl/scriptctl/verify"
	"github.com/scriptctl/scriptctl/verify/rediscli"
)

const corpusDir = "testdata/snippets"

// functionName is the function each snippet becomes in function mode.
const functionName = "difftest_f"

// functionLibrary wraps a snippet's body as the only function of a library,
// the way the manifest's generator wraps scripts; a read-only snippet's
// function has the no-writes flag.
func functionLibrary(script string, readonly bool) string {
	if readonly {
		return "#!lua name=difftest\nredis.register_function{function_name='" + functionName + "', flags={'no-writes'}, callback=function(KEYS, ARGV)\n" + script + "\nend}\n"
	}
	return "#!lua name=difftest\nredis.register_function('" + functionName + "', function(KEYS, ARGV)\n" + script + "\nend)\n"
}

// offline formats an engine result like redis-cli, or names the run error.
func offline(r verify.Reply, err error) string {
	if err != nil {
		var re *verify.RunError
		if errors.As(err, &re) {
			return "[offline run error " + re.Code + "] " + re.Msg + "\n"
		}
		return "[offline error] " + err.Error() + "\n"
	}
	return rediscli.Format(r)
}

// visible escapes the bytes of a transcript a terminal would not show
// (control bytes but newline, and bytes >= 0x80) as \xHH, so a difference
// in raw bytes shows in a failure message.
func visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\n' || (c >= 0x20 && c < 0x7f) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\x%02x", c)
		}
	}
	return b.String()
}

func evalArgs(cmd, script string, keys, args []string) []string {
	out := []string{cmd, script, strconv.Itoa(len(keys))}
	out = append(out, keys...)
	return append(out, args...)
}

// transcripts runs s on both sides and returns what each printed: setup
// commands, the script (EVAL, or FUNCTION LOAD then FCALL), then the after
// commands, each headed by "> " and the command name. The engine imitates
// the live server's target, its clock at the wall clock. When the snippet
// crashed the server, live is crashTranscript and the server is restarted.
func transcripts(t *testing.T, l *liveServer, s Snippet, fcall bool) (live, off string) {
	t.Helper()
	live, off = runSnippet(t, l, l.srv.Kind.Target(), time.Now().UnixMilli(), s, fcall)
	if fcall {
		// Some servers crash only at the FUNCTION FLUSH after a function
		// (fnArgvCrash in verify/target.go): flush now, so the crash is
		// this snippet's.
		l.srv.Do(context.Background(), "FUNCTION", "FLUSH")
	}
	if !l.alive() {
		t.Logf("%s: snippet %q crashed the server (log: %s/redis.log); restarting it", s.Pos(), s.Name, l.srv.Dir)
		l.closeSession()
		l.srv.Stop()
		l.srv.Restart()
		live = crashTranscript
	}
	return live, off
}

// crashTranscript stands for the live transcript of a snippet that crashed
// the server; the engine matches it with a server-crash RunError (same).
const crashTranscript = "[server crash]\n"

// same reports whether the engine's transcript off matches the live one.
func same(live, off string) bool {
	if live == crashTranscript {
		return strings.Contains(off, "[offline run error "+verify.CodeServerCrash+"]")
	}
	return live == off
}

// runSnippet runs s on l (nil: the engine only, live is empty) and on an
// engine imitating target whose clock starts at now (Unix ms).
func runSnippet(t *testing.T, l *liveServer, target string, now int64, s Snippet, fcall bool) (live, off string) {
	t.Helper()
	ctx := context.Background()
	if l != nil {
		l.reset(t)
	}
	e := verify.New(engineOptions(l, target, now, s))
	var ob strings.Builder
	var steps []liveStep
	step := func(title string, liveArgs []string, offOut string) {
		ob.WriteString("> " + title + "\n" + offOut)
		steps = append(steps, liveStep{title: title, args: liveArgs})
	}
	for _, c := range s.Setup {
		step(strings.Join(c, " "), c, offline(e.Do(ctx, c...)))
	}
	switch {
	case fcall:
		lib, fn := functionLibrary(s.Script, s.ReadOnly), functionName
		if s.Library != "" {
			lib, fn = s.Library, s.Function
		}
		step("FUNCTION LOAD", []string{"FUNCTION", "LOAD", lib}, offline(e.FunctionLoad([]byte(lib), false)))
		cmd, call := "FCALL", e.FCall
		if s.ReadOnly {
			cmd, call = "FCALL_RO", e.FCallRO
		}
		step(cmd, evalArgs(cmd, fn, s.Keys, s.Args), offline(call(ctx, fn, s.Keys, s.Args)))
	case s.ReadOnly:
		step("EVAL_RO", evalArgs("EVAL_RO", s.Script, s.Keys, s.Args), offline(e.EvalRO(ctx, []byte(s.Script), s.Keys, s.Args)))
	default:
		step("EVAL", evalArgs("EVAL", s.Script, s.Keys, s.Args), offline(e.Eval(ctx, []byte(s.Script), s.Keys, s.Args)))
	}
	for _, c := range s.After {
		step(strings.Join(c, " "), c, offline(e.Do(ctx, c...)))
	}
	if fcall {
		// The FUNCTION FLUSH transcripts runs live after a function, offline
		// too: a crash it causes (fnArgvCrash) is the snippet's.
		if _, err := e.Do(ctx, "FUNCTION", "FLUSH"); err != nil {
			ob.WriteString(offline(verify.Reply{}, err))
		}
	}
	if l != nil {
		live = l.transcript(t, steps)
	}
	return live, ob.String()
}

// engineOptions imitate where s runs: a standalone server, or for a
// cluster snippet the cluster node l (its slots, or those of the node
// clusterNode picks when l is nil).
func engineOptions(l *liveServer, target string, now int64, s Snippet) verify.Options {
	// A generous timeout: no snippet loops forever, and a loaded machine
	// must not turn a long loop into a timeout.
	opts := verify.Options{Now: now, Target: target, Timeout: 10 * time.Second, Topology: verify.TopologyStandalone}
	if s.Topology == verify.TopologyCluster {
		opts.Topology = verify.TopologyCluster
		opts.NodeSlots = []verify.SlotRange{primarySlots(clusterNode(s))}
		if l != nil {
			opts.NodeSlots = l.slots
		}
	}
	return opts
}

// clusterNode is the primary of redistest.NewCluster a cluster snippet
// runs on, as a client routes it: the one serving its first key's slot,
// primary 0 for a snippet without keys.
func clusterNode(s Snippet) int {
	if len(s.Keys) == 0 {
		return 0
	}
	sl := slot.Of(s.Keys[0])
	for i := 0; i < 3; i++ {
		if r := primarySlots(i); sl <= r.Last {
			return i
		}
	}
	return 2
}

// primarySlots are the slots primary i of redistest.NewCluster serves.
func primarySlots(i int) verify.SlotRange {
	return verify.SlotRange{First: i * 16384 / 3, Last: (i+1)*16384/3 - 1}
}

// divergence returns why snippet name (or "fcall:" name in function mode)
// cannot match on target: KnownDivergences unless TargetMatches says it
// matches there, then TargetDivergences.
func divergence(target, name string, fcall bool) (string, bool) {
	keys := []string{name}
	if fcall {
		keys = []string{"fcall:" + name, name}
	}
	for _, k := range keys {
		if _, ok := TargetMatches[target][k]; ok {
			return "", false
		}
		if r, ok := KnownDivergences[k]; ok {
			return r, true
		}
		if r, ok := TargetDivergences[target][k]; ok {
			return r, true
		}
	}
	return "", false
}

func runCorpus(t *testing.T, fcall bool) {
	snippets, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	l := startLive(t)
	target := l.srv.Kind.Target()
	every := corpusEvery(t, fcall)
	matched, diverged := 0, 0
	for i, s := range snippets {
		// EVAL takes the snippets at 0, n, 2n, ...; FCALL those one
		// further on, so that the two modes sample different snippets.
		offset := 0
		if fcall {
			offset = 1
		}
		if !s.runs(target, fcall) || sampled(s, i+offset, every) == testtier.IsRest() {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			live, off := transcripts(t, l, s, fcall)
			for retry := 0; retry < 4 && !same(live, off) && wallClockBound(live); retry++ {
				// The live TTL ticks with the wall clock while the offline
				// clock stands still: on a loaded machine more than 500 ms
				// can pass between a SET EX and the TTL after it (a snippet
				// can run one redis-cli process per command). Another run is judged
				// instead, up to four; a real difference differs every time.
				live, off = transcripts(t, l, s, fcall)
			}
			reason, known := divergence(target, s.Name, fcall)
			if r, ok := BuildDivergences[l.srv.Kind.Name][s.Name]; ok && !known {
				reason, known = r, true
			}
			live, off = seedOrder(target, s.Name, live, off)
			if judge(t, s, live, off, reason, known) {
				matched++
			} else if known {
				diverged++
			}
		})
	}
	t.Logf("%s: %d snippets identical, %d known divergences", target, matched, diverged)
}

// seedOrder returns the transcripts as sorted lines without their "N) "
// positions when snippet name's reply order depends on the server's hash
// seed on target (SeedOrder), else as they are.
func seedOrder(target, name, live, off string) (string, string) {
	if _, ok := SeedOrder[target][name]; !ok || live == crashTranscript {
		return live, off
	}
	return unorderedLines(live), unorderedLines(off)
}

var position = regexp.MustCompile(`^\s*(\d+\)\s+)*`)

func unorderedLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = position.ReplaceAllString(l, "")
	}
	sort.Strings(lines)
	return "[any order]\n" + strings.Join(lines, "\n") + "\n"
}

// judge compares one snippet's transcripts, reports a difference or a
// known divergence that now matches, and returns whether they match.
func judge(t *testing.T, s Snippet, live, off, reason string, known bool) bool {
	t.Helper()
	ok := same(live, off)
	switch {
	case ok && known:
		t.Errorf("%s: snippet %q is listed as a known divergence (%s) but now matches: remove it from the divergences and verify/README.md", s.Pos(), s.Name, reason)
	case ok:
	case known:
		t.Logf("%s: known divergence: %s", s.Pos(), reason)
	default:
		src := s.Script
		if s.Library != "" {
			src = s.Library
		}
		t.Errorf("%s: snippet %q differs\n--- redis-cli (live)\n%s--- offline\n%s--- script\n%s", s.Pos(), s.Name, visible(live), visible(off), src)
	}
	return ok
}

// FCallEveryEnv and EvalEveryEnv sample the corpus: with a value n > 1 a
// mode runs every n-th snippet, plus every library snippet and every
// snippet of functions.yaml and targets.yaml (what differs between
// targets). make test and make test-targets set both to keep the runs
// short; unset, a mode runs everything (make test-targets-full). With
// SCRIPTCTL_TEST_TIER=rest (make test-full, same values as make test) a
// mode runs the snippets the sample leaves out: the two together run each
// snippet once.
const (
	FCallEveryEnv = "SCRIPTCTL_CORPUS_FCALL_EVERY"
	EvalEveryEnv  = "SCRIPTCTL_CORPUS_EVAL_EVERY"
)

func corpusEvery(t *testing.T, fcall bool) int {
	env, mode := EvalEveryEnv, "EVAL"
	if fcall {
		env, mode = FCallEveryEnv, "function"
	}
	v := os.Getenv(env)
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a whole number from 1", env, v)
	}
	switch {
	case testtier.IsRest():
		t.Logf("%s mode: the snippets a sample of 1 in %d (%s) leaves out, as %s=rest asks", mode, n, env, testtier.Env)
	case n > 1:
		t.Logf("%s mode: 1 snippet in %d, and every library, functions.yaml and targets.yaml one (%s)", mode, n, env)
	}
	return n
}

// sampled reports whether snippet s, the i-th of the corpus, runs when the
// corpus is sampled every n snippets.
func sampled(s Snippet, i, n int) bool {
	base := filepath.Base(s.File)
	return n <= 1 || i%n == 0 || s.Library != "" || base == "functions.yaml" || base == "targets.yaml"
}

// TestEvalCorpus runs every snippet as EVAL on a real redis-server and on
// the offline engine and requires identical redis-cli output.
func TestEvalCorpus(t *testing.T) { runCorpus(t, false) }

// TestFCallCorpus runs every snippet that can be a function body as FCALL
// of a generated library, on both sides. -short skips it (EVAL covers the
// same engine paths but the Functions API).
func TestFCallCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the corpus runs as EVAL only")
	}
	runCorpus(t, true)
}

// TestClusterCorpus runs the cluster snippets (topology: cluster) on a
// 3-primary cluster, each as EVAL and as FCALL on the primary that serves
// its first key's slot (primary 0 without keys), through redis-cli without
// -c (not redirected), and on an engine imitating that node: its target,
// TopologyCluster and the node's slots.
func TestClusterCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs a redis-server cluster")
	}
	snippets, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	c := redistest.NewCluster(t)
	cli := redistest.CLI(t)
	target := c.Primaries[0].Kind.Target()
	var nodes []*liveServer
	for i, p := range c.Primaries {
		l := &liveServer{srv: p, cli: cli, slots: []verify.SlotRange{primarySlots(i)}}
		t.Cleanup(l.closeSession)
		nodes = append(nodes, l)
	}
	n := 0
	for _, fcall := range []bool{false, true} {
		for _, s := range snippets {
			if !s.runsCluster(target, fcall) {
				continue
			}
			name := s.Name
			if fcall {
				name = "fcall:" + name
			}
			t.Run(name, func(t *testing.T) {
				l := nodes[clusterNode(s)]
				live, off := runSnippet(t, l, target, time.Now().UnixMilli(), s, fcall)
				if fcall {
					l.srv.Do(context.Background(), "FUNCTION", "FLUSH")
				}
				reason, known := divergence(target, s.Name, fcall)
				judge(t, s, live, off, reason, known)
			})
			n++
		}
	}
	if n == 0 {
		t.Fatal("no cluster snippet ran")
	}
	t.Logf("%s: %d cluster runs", target, n)
}

// TestCorpus checks the corpus itself: it parses, it has at least 200
// snippets, and every known divergence names a snippet.
func TestCorpus(t *testing.T) {
	snippets, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(snippets) < 200 {
		t.Errorf("corpus has %d snippets, want at least 200", len(snippets))
	}
	names := map[string]bool{}
	for _, s := range snippets {
		names[s.Name] = true
		names["fcall:"+s.Name] = true
	}
	for name := range KnownDivergences {
		if !names[name] {
			t.Errorf("known divergence %q names no snippet", name)
		}
	}
	for build, byName := range BuildDivergences {
		if k, ok := redistest.LookupKind(build); !ok || k.Target() == build {
			t.Errorf("BuildDivergences: %q is not a build judged as another target", build)
		}
		for name := range byName {
			if !names[name] {
				t.Errorf("BuildDivergences[%s]: %q names no snippet", build, name)
			}
		}
	}
	for what, m := range map[string]map[string]map[string]string{"TargetDivergences": TargetDivergences, "TargetMatches": TargetMatches, "SeedOrder": SeedOrder} {
		for target, byName := range m {
			if err := verify.CheckTarget(target); err != nil {
				t.Errorf("%s: %v", what, err)
			}
			for name := range byName {
				if !names[name] {
					t.Errorf("%s[%s]: %q names no snippet", what, target, name)
				}
				if _, ok := KnownDivergences[name]; what == "TargetMatches" && !ok {
					t.Errorf("TargetMatches[%s]: %q is not a known divergence", target, name)
				}
			}
		}
	}
}

// TestSeedOrder: a seed-ordered reply matches in any order, but not with a
// member missing or changed; other snippets compare byte for byte.
func TestSeedOrder(t *testing.T) {
	const name = "sets-sunion-hashtable-of-integers-sorted"
	live := "> EVAL\n1) \"5\"\n2) \"6\"\n3) \"10\"\n"
	for off, want := range map[string]bool{
		"> EVAL\n1) \"10\"\n2) \"5\"\n3) \"6\"\n": true,
		"> EVAL\n1) \"10\"\n2) \"5\"\n":           false,
		"> EVAL\n1) \"10\"\n2) \"5\"\n3) \"7\"\n": false,
	} {
		l, o := seedOrder("redis-8.0", name, live, off)
		if same(l, o) != want {
			t.Errorf("redis-8.0: %q against %q: same %v, want %v", live, off, !want, want)
		}
		if l, o := seedOrder("redis-7.0", name, live, off); same(l, o) {
			t.Errorf("redis-7.0 compares in order: %q matched %q", live, off)
		}
	}
}

// TestSampled: sampling keeps every n-th snippet and every function-specific
// one; without sampling everything runs.
func TestSampled(t *testing.T) {
	plain := Snippet{File: "testdata/snippets/cmd_set.yaml"}
	for _, tt := range []struct {
		s    Snippet
		i, n int
		want bool
	}{
		{plain, 5, 1, true}, {plain, 6, 3, true}, {plain, 7, 3, false},
		{Snippet{File: "testdata/snippets/functions.yaml"}, 7, 3, true},
		{Snippet{File: "testdata/snippets/targets.yaml"}, 7, 3, true},
		{Snippet{File: "testdata/snippets/cmd_set.yaml", Library: "x"}, 7, 3, true},
	} {
		if got := sampled(tt.s, tt.i, tt.n); got != tt.want {
			t.Errorf("sampled(%s, %d, %d) = %v, want %v", tt.s.File, tt.i, tt.n, got, tt.want)
		}
	}
}

func TestParseCorpusErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"- name: a\n  script: return 1\n  bogus: 1\n", `x.yaml:3: unknown field "bogus"`},
		{"- name: a\n  script: return 1\n  keys: {a: 1}\n", "x.yaml:1: line 3: cannot unmarshal"},
		{"- 12\n", "x.yaml:1: want a snippet"},
		{"- script: return 1\n", "x.yaml:1: field name: missing"},
		{"- name: a\n", `x.yaml:1: snippet "a": field script: missing`},
		{"- name: a\n  script: x\n  file: y\n", `x.yaml:1: snippet "a": fields script and file: use one`},
		{"- name: a\n  library: x\n", `x.yaml:1: snippet "a": field function: missing`},
		{"- name: a\n  script: x\n  function: f\n", `x.yaml:1: snippet "a": field function: only with library`},
		{"- name: a\n  library: x\n  function: f\n  script: y\n", `x.yaml:1: snippet "a": field library: a library snippet has no script or file`},
		{"- name: a\n  script: return 1\n  setup: [[]]\n", `x.yaml:1: snippet "a": empty command`},
		{"name: a\n", "x.yaml:1: want a list of snippets"},
		{"- name: a\n  script: x\n  targets: [redis-6.2]\n", `x.yaml:1: snippet "a": field targets: unknown target "redis-6.2"`},
		{"- name: a\n  script: [1\n", "x.yaml:1: did not find expected"},
	}
	for _, tt := range tests {
		_, err := parseCorpus("x.yaml", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseCorpus(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
	got, err := parseCorpus("x.yaml", []byte("- name: a\n  script: |-\n    return 1\n  keys: [k]\n  after: [[GET, k]]\n"))
	if err != nil || len(got) != 1 || got[0].Script != "return 1" || got[0].Keys[0] != "k" || got[0].After[0][1] != "k" || got[0].Line != 1 {
		t.Errorf("parseCorpus = %+v, %v", got, err)
	}
	got, err = parseCorpus("targets.yaml", []byte("- name: a\n  script: x\n  targets: [valkey-8.1, redis-7.4]\n- name: b\n  library: l\n  function: f\n- name: c\n  script: x\n  no_function: shebang\n"))
	if err != nil || len(got) != 3 {
		t.Fatalf("parseCorpus = %+v, %v", got, err)
	}
	for _, tt := range []struct {
		s           Snippet
		target      string
		eval, fcall bool
	}{
		{got[0], "valkey-8.1", true, true}, {got[0], "redis-7.4", true, true}, {got[0], "redis-7.0", false, false},
		{got[1], "redis-7.0", false, true}, {got[2], "valkey-8.0", true, false},
	} {
		if tt.s.runs(tt.target, false) != tt.eval || tt.s.runs(tt.target, true) != tt.fcall {
			t.Errorf("snippet %q on %s: runs EVAL %v FCALL %v, want %v %v", tt.s.Name, tt.target, tt.s.runs(tt.target, false), tt.s.runs(tt.target, true), tt.eval, tt.fcall)
		}
	}
}

// FuzzParseCorpus: the corpus parser never panics.
func FuzzParseCorpus(f *testing.F) {
	f.Add("- name: a\n  script: return 1\n")
	f.Add("- name: a\n  script: |-\n    return 1\n  keys: [k]\n  setup: [[SET, k, v]]\n")
	f.Add("[]")
	f.Add("- {name: x, script: y, no_function: z}")
	f.Fuzz(func(t *testing.T, s string) {
		parseCorpus("fuzz.yaml", []byte(s))
	})
}

// wallClockBound reports whether a live transcript reads a remaining time,
// which the server computes from its wall clock.
func wallClockBound(live string) bool {
	for _, c := range []string{"> TTL", "> PTTL", "> OBJECT IDLETIME", "> XPENDING", "> XINFO"} {
		if strings.Contains(live, c) {
			return true
		}
	}
	return false
}
