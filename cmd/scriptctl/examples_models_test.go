package main

import (
	"context"
	"encoding/json"
	"github.com/scriptctl/scriptctl/internal/testtier"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// exampleModels are the models of each example: the one that must pass
// on the manifest's scripts, its negative control, the invariant the
// control violates and the control's shortest counterexample (actor and
// action per step).
var exampleModels = []struct {
	example, model, control, invariant string
	timeline                           []string
}{
	{"reliable_queue", "no_job_lost", "stale_requeue_control", "each job in exactly one place", []string{
		"worker_a claim 60000",
		"reaper do LINDEX jobs:{queue-email}:processing -1",
		"worker_a ack job-1",
		"reaper requeue job-1 60000",
	}},
	{"rate_limiter", "window_limit", "records_refused_control", "no refusal under the limit", []string{
		"client_a allow 1700000000000 1000 2",
		"clock advance 500ms",
		"client_a allow 1700000000500 1000 2",
		"client_a allow 1700000000500 1000 2",
		"clock advance 500ms",
		"client_b allow 1700000001000 1000 2",
	}},
	{"token_bucket", "bucket_bounds", "restart_clock_control", "takes as an exact bucket", []string{
		"client_a take 2 600 1",
		"clock advance 300ms",
		"client_a take 2 600 1",
		"clock advance 300ms",
		"client_b take 2 600 1",
	}},
}

// exploreDoc runs scriptctl explore --format json and decodes it.
func exploreDoc(t *testing.T, args ...string) (int, exploreJSON) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code := run(context.Background(), ios, append([]string{"explore", "--format", "json"}, args...))
	var doc exploreJSON
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("exit %d: %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	return code, doc
}

// TestExamplesModels: each example's model passes on its scripts, and its
// negative control finds the unsafe variant's counterexample.
func TestExamplesModels(t *testing.T) {
	testtier.Full(t, "explores every example's models (TestExamplesCheck runs them in make test)")
	for _, ex := range exampleModels {
		t.Run(ex.example, func(t *testing.T) {
			code, doc := exploreDoc(t, "-m", exampleManifest(ex.example))
			if code != 0 || !doc.OK || len(doc.Models) != 2 {
				t.Fatalf("exit %d, ok %t, %d models: %+v", code, doc.OK, len(doc.Models), doc.Models)
			}
			for _, md := range doc.Models {
				name := strings.TrimSuffix(filepath.Base(md.File), ".yaml")
				switch name {
				case ex.model:
					if md.Status != "ok" || md.Violation != nil || md.States < 100 || md.TruncatedBy != "" {
						t.Errorf("%s: status %s, %d states, violation %+v", name, md.Status, md.States, md.Violation)
					}
				case ex.control:
					v := md.Violation
					if md.Status != "ok" || md.Expect != ex.invariant || v == nil || v.Invariant != ex.invariant {
						t.Fatalf("%s: status %s, violation %+v", name, md.Status, v)
					}
					var got []string
					for _, s := range v.Timeline {
						got = append(got, s.Actor+" "+s.Action)
						if s.Value != nil || s.Revision != nil {
							t.Errorf("step %d: a model without a protocol shows a value: %+v", s.Step, s)
						}
					}
					if strings.Join(got, "\n") != strings.Join(ex.timeline, "\n") {
						t.Errorf("%s: timeline:\n%s\nwant:\n%s", name, strings.Join(got, "\n"), strings.Join(ex.timeline, "\n"))
					}
				default:
					t.Errorf("unexpected model %s", md.File)
				}
			}
		})
	}
}

// TestExamplesModelsDiscriminate: the models tell safe from unsafe. With
// the manifest's script replaced by the negative control's variant, the
// model that passed finds the control's violation; the other bugs below
// (an off-by-one admission, a take from an empty bucket, an ack that
// leaves the job in processing) are found by the invariants the controls do not
// exercise.
func TestExamplesModelsDiscriminate(t *testing.T) {
	tests := []struct {
		example, model, file, old, new, invariant string
	}{
		{"reliable_queue", "no_job_lost", "lua/requeue.lua", "", "", "each job in exactly one place"},
		{"rate_limiter", "window_limit", "lua/allow.lua", "", "", "no refusal under the limit"},
		{"token_bucket", "bucket_bounds", "lua/take.lua", "", "", "takes as an exact bucket"},
		{"rate_limiter", "window_limit", "lua/allow.lua", "if count >= limit then", "if count > limit then", "at most the limit in any window"},
		{"token_bucket", "bucket_bounds", "lua/take.lua", "if tokens < cost then", "if tokens + 1 < cost then", "never negative, never over capacity"},
		{"reliable_queue", "no_job_lost", "lua/ack.lua", "return redis.call('LREM', KEYS[1], 1, job)", "redis.call('LRANGE', KEYS[1], 0, 0)\nreturn 1", "each job in exactly one place"},
	}
	for _, tc := range tests {
		t.Run(tc.example+"/"+tc.invariant, func(t *testing.T) {
			src := filepath.Join("..", "..", "examples", tc.example)
			dir := copyExample(t, src)
			var body []byte
			if tc.old == "" {
				ctl := exampleRepos[0]
				for _, r := range exampleRepos {
					if r.name == tc.example {
						ctl = r
					}
				}
				b, err := os.ReadFile(filepath.Join(src, "lua_test", ctl.control))
				if err != nil {
					t.Fatal(err)
				}
				body = b
			} else {
				b, err := os.ReadFile(filepath.Join(src, tc.file))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), tc.old) {
					t.Fatalf("%s lacks %q", tc.file, tc.old)
				}
				body = []byte(strings.Replace(string(b), tc.old, tc.new, 1))
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), body, 0o644); err != nil {
				t.Fatal(err)
			}
			code, doc := exploreDoc(t, "-m", filepath.Join(dir, "manifest.yaml"), filepath.Join(dir, "lua_test", "models", tc.model+".yaml"))
			if code != 1 || len(doc.Models) != 1 {
				t.Fatalf("exit %d, %+v", code, doc.Models)
			}
			md := doc.Models[0]
			if md.Status != "violation" || md.Violation == nil || md.Violation.Invariant != tc.invariant || len(md.Violation.Timeline) == 0 {
				t.Fatalf("status %s, violation %+v", md.Status, md.Violation)
			}
			if len(doc.Diagnostics) != 1 || doc.Diagnostics[0].Code != codeInvariantViolated || doc.Diagnostics[0].Line == 0 {
				t.Errorf("diagnostics %+v", doc.Diagnostics)
			}
		})
	}
}
