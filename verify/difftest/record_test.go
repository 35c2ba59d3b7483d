package difftest

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/scriptctl/scriptctl/internal/redistest"
	"github.com/scriptctl/scriptctl/verify"
)

// Recorded targets: servers CI does not run (redis-7.2, redis-7.4,
// valkey-7.2, valkey-8.0) were run once by hand through the corpus, and
// their transcripts are kept in testdata/recorded/<target>.json.
// TestRecordedTargets replays the engine against them. To record one, from
// a server built from the release's tag:
//
//	go test ./verify/difftest -run 'TestRecord$' -count=1 -timeout 120m \
//	    -record -server /path/to/redis-server -target redis-7.2
//
// (-cli names the client; the default is redis-cli or valkey-cli beside
// -server). With -only REGEXP only the snippets whose name matches are run,
// and their transcripts replace those of the same name in the recording,
// which keeps the others.
var (
	recordFlag = flag.Bool("record", false, "TestRecord: record the corpus on -server into testdata/recorded/<target>.json")
	serverFlag = flag.String("server", "", "TestRecord: the server binary to record")
	cliFlag    = flag.String("cli", "", "TestRecord: its command-line client (default: redis-cli or valkey-cli beside -server)")
	targetFlag = flag.String("target", "", "TestRecord: the target the server is (verify.Targets)")
	onlyFlag   = flag.String("only", "", "TestRecord: record only the snippets whose name matches this regexp, keeping the recording's others")
)

const recordedDir = "testdata/recorded"

// recording is one target's transcripts of the corpus, by snippet name.
type recording struct {
	Target string            `json:"target"`
	Server string            `json:"server"` // INFO server's version line
	Eval   map[string]record `json:"eval"`
	FCall  map[string]record `json:"fcall"`
}

// record is one snippet's live transcript and the wall clock (Unix ms)
// it started at: the replay's engine clock.
type record struct {
	Now int64      `json:"now"`
	Out transcript `json:"out"`
}

// transcript is a redis-cli transcript, kept byte-exact in JSON: valid
// UTF-8 as a string, anything else (or text that looks encoded) as
// "base64:" and its bytes in base64.
type transcript string

const b64Prefix = "base64:"

func (s transcript) MarshalJSON() ([]byte, error) {
	v := string(s)
	if !utf8.ValidString(v) || strings.HasPrefix(v, b64Prefix) {
		v = b64Prefix + base64.StdEncoding.EncodeToString([]byte(s))
	}
	return json.Marshal(v)
}

func (s *transcript) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(v, b64Prefix); ok {
		raw, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return err
		}
		v = string(raw)
	}
	*s = transcript(v)
	return nil
}

// TestRecord runs the corpus (EVAL and FCALL) on the server -server names
// and writes its transcripts for target -target. It runs only with -record.
func TestRecord(t *testing.T) {
	if !*recordFlag {
		t.Skip("records a target's transcripts only with -record -server PATH -target NAME")
	}
	if *serverFlag == "" || verify.CheckTarget(*targetFlag) != nil {
		t.Fatalf("-record needs -server PATH and -target NAME (one of %s)", strings.Join(verify.Targets(), ", "))
	}
	cli := *cliFlag
	if cli == "" {
		cli = filepath.Join(filepath.Dir(*serverFlag), strings.Replace(filepath.Base(*serverFlag), "-server", "-cli", 1))
	}
	snippets, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	l := &liveServer{srv: redistest.Standalone(t, redistest.WithBinary(*serverFlag, *targetFlag)), cli: cli}
	t.Cleanup(l.closeSession)
	info, err := l.srv.Do(t.Context(), "INFO", "server").ToString()
	if err != nil {
		t.Fatal(err)
	}
	rec := recording{Target: *targetFlag, Eval: map[string]record{}, FCall: map[string]record{}}
	path := filepath.Join(recordedDir, *targetFlag+".json")
	var only *regexp.Regexp
	if *onlyFlag != "" {
		if only, err = regexp.Compile(*onlyFlag); err != nil {
			t.Fatalf("-only: %v", err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("-only adds to a recording: %v", err)
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	server := rec.Server
	rec.Server = ""
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok && rec.Server == "" {
			rec.Server = "redis_version:" + v
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "valkey_version:"); ok {
			rec.Server = "valkey_version:" + v
		}
	}
	if only != nil && rec.Server != server {
		t.Fatalf("-only: the server is %s, the recording's is %s", rec.Server, server)
	}
	for _, fcall := range []bool{false, true} {
		out := rec.Eval
		if fcall {
			out = rec.FCall
		}
		for _, s := range snippets {
			if !s.runs(*targetFlag, fcall) || (only != nil && !only.MatchString(s.Name)) {
				continue
			}
			now := time.Now().UnixMilli()
			live, _ := transcripts(t, l, s, fcall)
			out[s.Name] = record{Now: now, Out: transcript(live)}
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(recordedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%s): %d EVAL and %d FCALL transcripts written to %s", rec.Target, rec.Server, len(rec.Eval), len(rec.FCall), path)
}

// loadRecordings reads every testdata/recorded/*.json.
func loadRecordings(t *testing.T) []recording {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(recordedDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []recording
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rec recording
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := verify.CheckTarget(rec.Target); err != nil || filepath.Base(f) != rec.Target+".json" {
			t.Fatalf("%s: target %q: want a known target named like its file", f, rec.Target)
		}
		out = append(out, rec)
	}
	return out
}

// TestRecordedTargets runs the engine, imitating each recorded target, on
// every snippet the recording has and requires the recorded transcript,
// outside that target's divergences. Every snippet of the corpus that runs
// on the target must be recorded: a new snippet means recording again.
func TestRecordedTargets(t *testing.T) {
	snippets, err := loadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	recs := loadRecordings(t)
	if len(recs) == 0 {
		t.Fatal("no recordings in " + recordedDir)
	}
	for _, rec := range recs {
		t.Run(rec.Target, func(t *testing.T) {
			for _, mode := range []struct {
				fcall bool
				recs  map[string]record
			}{{false, rec.Eval}, {true, rec.FCall}} {
				matched := 0
				for _, s := range snippets {
					if !s.runs(rec.Target, mode.fcall) {
						continue
					}
					r, ok := mode.recs[s.Name]
					if !ok {
						t.Errorf("%s: snippet %q (fcall %v) is not recorded for %s: record the target again (see record_test.go)", s.Pos(), s.Name, mode.fcall, rec.Target)
						continue
					}
					_, off := runSnippet(t, nil, rec.Target, r.Now, s, mode.fcall)
					reason, known := divergence(rec.Target, s.Name, mode.fcall)
					live, off := seedOrder(rec.Target, s.Name, string(r.Out), off)
					if judge(t, s, live, off, reason, known) {
						matched++
					}
				}
				t.Logf("%s (%s), fcall %v: %d snippets identical", rec.Target, rec.Server, mode.fcall, matched)
			}
		})
	}
}

func TestTranscriptJSON(t *testing.T) {
	for _, s := range []string{"", "> EVAL\n\"ok\"\n", "\xff\x00bin", b64Prefix + "looks encoded", "é\n"} {
		data, err := json.Marshal(transcript(s))
		if err != nil {
			t.Fatal(err)
		}
		var back transcript
		if err := json.Unmarshal(data, &back); err != nil || string(back) != s {
			t.Errorf("%q -> %s -> %q, %v", s, data, back, err)
		}
		if utf8.ValidString(s) && !strings.HasPrefix(s, b64Prefix) && strings.Contains(string(data), b64Prefix) {
			t.Errorf("%q encoded as base64: %s", s, data)
		}
	}
	if !same(crashTranscript, "> FCALL\n[offline run error server-crash] x\n") || same(crashTranscript, "> FCALL\n(integer) 1\n") || !same("a", "a") || same("a", "b") {
		t.Error("same: a crash matches a server-crash run error only; other transcripts byte for byte")
	}
}
