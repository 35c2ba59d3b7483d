package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// ciRepo is a repository that init wrote, then broken so that every kind
// of check step finds something: a lint error and a warning, a sum
// mismatch, and failing scenarios (the script is the unsafe release).
func ciRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if r := loaderRun(t, "init", dir); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.errOut)
	}
	unsafe := "redis.call('DEL', KEYS[1])\nlocal other = KEYS[2]\nreturn 1\n"
	if err := os.WriteFile(filepath.Join(dir, "lua", "release.lua"), []byte(unsafe), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sarifSchema finds the official SARIF 2.1.0 schema in shared/schemas
// beside the repository (or above it; for a linked worktree, also beside
// its main checkout); the test skips without it, saying so: the schema is
// published beside the project, not shipped in it.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	starts := []string{dir}
	if out, err := exec.Command("git", "-C", dir, "rev-parse", "--path-format=absolute", "--git-common-dir").Output(); err == nil {
		starts = append(starts, filepath.Dir(strings.TrimSpace(string(out))))
	}
	var path string
	for _, start := range starts {
		if path = findUp(start, filepath.Join("shared", "schemas", "sarif-schema-2.1.0.json")); path != "" {
			break
		}
	}
	if path == "" {
		t.Skip("shared/schemas/sarif-schema-2.1.0.json not found beside the repository: SARIF not validated")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestCheckSARIF: check --format sarif is valid SARIF 2.1.0, with one run
// per step and every step's findings (lint's with its rules).
func TestCheckSARIF(t *testing.T) {
	sch := sarifSchema(t)
	dir := ciRepo(t)
	r := loaderRun(t, "check", "-m", filepath.Join(dir, "manifest.yaml"), "--format", "sarif")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.errOut)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(r.out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.out)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID, Level string
				Message       struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.out), &log); err != nil {
		t.Fatal(err)
	}
	var tools []string
	results := map[string][]string{}
	for _, run := range log.Runs {
		name := run.Tool.Driver.Name
		tools = append(tools, name)
		for _, res := range run.Results {
			results[name] = append(results[name], res.Level+" "+res.RuleID)
		}
		if name == "scriptctl lint" && len(run.Tool.Driver.Rules) < 10 {
			t.Errorf("lint run has %d rules, want every lint rule", len(run.Tool.Driver.Rules))
		}
	}
	if got := strings.Join(tools, ","); got != "scriptctl manifest,scriptctl sum,scriptctl check-keys,scriptctl lint,scriptctl verify,scriptctl explore,scriptctl bindings" {
		t.Fatalf("runs %s, want one per step", got)
	}
	for tool, want := range map[string]string{"scriptctl sum": "error sum", "scriptctl lint": "warning unused-arg,error keys-out-of-range", "scriptctl verify": "error scenario-failed"} {
		if !strings.Contains(strings.Join(results[tool], ","), want) {
			t.Errorf("%s results %v lack %q", tool, results[tool], want)
		}
	}
}

// TestCheckSARIFFile: --sarif FILE writes the same SARIF log that --format
// sarif prints, while stdout keeps the text report, so CI runs check once.
func TestCheckSARIFFile(t *testing.T) {
	dir := ciRepo(t)
	m := filepath.Join(dir, "manifest.yaml")
	want := loaderRun(t, "check", "-m", m, "--format", "sarif")
	sarif, junit := filepath.Join(dir, "out.sarif"), filepath.Join(dir, "out.xml")
	r := loaderRun(t, "check", "-m", m, "--sarif", sarif, "--junit", junit)
	if r.code != 1 || !strings.Contains(r.out, "lint: ") || strings.HasPrefix(r.out, "{") {
		t.Fatalf("exit %d, want 1 and the text report:\n%s%s", r.code, r.out, r.errOut)
	}
	got, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want.out {
		t.Fatalf("--sarif file differs from --format sarif:\n%s\nwant\n%s", got, want.out)
	}
	if len(readJUnit(t, junit).failing(t)) == 0 {
		t.Fatal("JUnit report has no failing case")
	}
}

// TestActionRunsCheckOnce: the composite action runs scriptctl check once
// (SARIF, JUnit and the text for the summary from one run), and the usage
// page its header names exists.
func TestActionRunsCheckOnce(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	action := string(b)
	if n := regexp.MustCompile(`(?m)^\s*scriptctl .*\bcheck\b`).FindAllString(action, -1); len(n) != 1 {
		t.Fatalf("action runs scriptctl check %d times, want once: %q", len(n), n)
	}
	usage := regexp.MustCompile(`Usage: (\S+?)\.?\n`).FindStringSubmatch(action)
	if usage == nil {
		t.Fatal("action.yml names no usage page")
	}
	if _, err := os.Stat(filepath.Join("../..", usage[1])); err != nil {
		t.Fatalf("action.yml links to %s: %v", usage[1], err)
	}
}

type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b)
	}
	return doc
}

// failing lists "suite/case" of every failed test case, and checks that
// each failure carries text.
func (d junitDoc) failing(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, s := range d.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				out = append(out, s.Name+"/"+c.Name)
				if c.Failure.Message == "" || strings.TrimSpace(c.Failure.Text) == "" {
					t.Errorf("%s/%s: failure without message or text", s.Name, c.Name)
				}
			}
		}
	}
	return out
}

// TestJUnit: verify --junit and check --junit write JUnit XML that parses,
// with a case per scenario and mode (per target) that names each failing
// one and carries the expected and actual values.
func TestJUnit(t *testing.T) {
	dir := ciRepo(t)
	m := filepath.Join(dir, "manifest.yaml")
	vj := filepath.Join(dir, "verify.xml")
	if r := loaderRun(t, "verify", "-m", m, "--junit", vj, filepath.Join(dir, "lua_test")); r.code != 1 {
		t.Fatalf("verify: exit %d\n%s", r.code, r.errOut)
	}
	doc := readJUnit(t, vj)
	if doc.Tests != 4 || len(doc.Suites) != 1 || doc.Suites[0].Name != "redis-7.0" {
		t.Fatalf("verify report: %d tests, suites %+v", doc.Tests, doc.Suites)
	}
	want := "redis-7.0/release by a non-owner and by the owner [eval],redis-7.0/release by a non-owner and by the owner [function]," +
		"redis-7.0/late release, unconditional DEL (negative control) [eval],redis-7.0/late release, unconditional DEL (negative control) [function]"
	if got := strings.Join(doc.failing(t), ","); got != want {
		t.Fatalf("failing cases:\n%s\nwant\n%s", got, want)
	}
	if text := doc.Suites[0].Cases[0].Failure.Text; !strings.Contains(text, "want 0, got 1") {
		t.Errorf("failure text lacks the expected and actual reply:\n%s", text)
	}

	cj := filepath.Join(dir, "check.xml")
	if r := loaderRun(t, "check", "-m", m, "--junit", cj); r.code != 1 {
		t.Fatalf("check: exit %d\n%s", r.code, r.errOut)
	}
	doc = readJUnit(t, cj)
	got := strings.Join(doc.failing(t), ",")
	for _, w := range []string{"check/sum", "check/lint", "check/verify", "verify/redis-7.0/release by a non-owner and by the owner [eval]"} {
		if !strings.Contains(got, w) {
			t.Errorf("check report's failing cases %s lack %s", got, w)
		}
	}
	if strings.Contains(got, "check/check-keys") || strings.Contains(got, "check/manifest") {
		t.Errorf("passing steps reported failing: %s", got)
	}
}

// TestCheckFailOn: warnings pass by default and fail with --fail-on
// warning; an unknown level is a usage error.
func TestCheckFailOn(t *testing.T) {
	dir := t.TempDir()
	if r := loaderRun(t, "init", dir); r.code != 0 {
		t.Fatal(r.errOut)
	}
	// An unused arg is a lint warning, not an error.
	src := "if redis.call('GET', KEYS[1]) == 'x' then return 1 end\nreturn 0\n"
	if err := os.WriteFile(filepath.Join(dir, "lua", "release.lua"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "manifest.yaml")
	loaderExpect(t, 0, "sum", "--force", "-m", m)
	r := loaderRun(t, "check", "-m", m)
	if !strings.Contains(r.out, "warning unused-arg:") {
		t.Fatalf("no unused-arg warning:\n%s", r.out)
	}
	ios, _, out, _ := iostreams.Test()
	withCheckSteps(t, checkStep{"lint", checkLintStep})
	for failOn, want := range map[string]int{"error": 0, "warning": 1} {
		out.Reset()
		err := runCheck(context.Background(), &checkOptions{IO: ios, Manifest: m, Format: "text", FailOn: failOn})
		if code := exitCode(err); code != want {
			t.Errorf("--fail-on %s: exit %d, want %d\n%s", failOn, code, want, out)
		}
	}
	if r := loaderRun(t, "check", "-m", m, "--fail-on", "info"); r.code != 2 || !strings.Contains(r.errOut, `invalid --fail-on "info"`) {
		t.Errorf("--fail-on info: exit %d, %s", r.code, r.errOut)
	}
}

// TestWorkflowsActionlint: the composite action, the example workflows and
// the workflow init writes pass actionlint; a workflow that gives the
// action an input it does not declare fails, which shows the action's
// metadata was read.
func TestWorkflowsActionlint(t *testing.T) {
	root := t.TempDir()
	wf := filepath.Join(root, ".github", "workflows")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "../../action.yml", filepath.Join(root, "action.yml"))
	copyFile(t, "../../docs/ci/github-actions.yml", filepath.Join(wf, "example.yml"))
	if r := loaderRun(t, "init", filepath.Join(root, "initrepo")); r.code != 0 {
		t.Fatal(r.errOut)
	}
	copyFile(t, filepath.Join(root, "initrepo", ".github", "workflows", "scriptctl.yml"), filepath.Join(wf, "init.yml"))
	local := `name: local
on: [push]
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: sc
        uses: ./
        with:
          version: v1.2.3
          manifest: deploy/manifest.yaml
          fail-on: warning
          upload-sarif: "false"
      - run: echo "${{ steps.sc.outputs.exit-code }} ${{ steps.sc.outputs.junit-file }}"
`
	if err := os.WriteFile(filepath.Join(wf, "local.yml"), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	errs := actionlintFiles(t, root, wf, "example.yml", "init.yml", "local.yml")
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", filepath.Base(e.Filepath), e.Line, e.Column, e.Message, e.Kind)
	}

	bad := strings.Replace(local, "fail-on: warning", "fail-on: warning\n          no-such-input: x", 1)
	if err := os.WriteFile(filepath.Join(wf, "bad.yml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	errs = actionlintFiles(t, root, wf, "bad.yml")
	if len(errs) == 0 || !strings.Contains(errs[0].Message, "no-such-input") {
		t.Fatalf("an undeclared input passed actionlint: %v", errs)
	}
}

func actionlintFiles(t *testing.T, root, dir string, names ...string) []*actionlint.Error {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{WorkingDir: root})
	if err != nil {
		t.Fatal(err)
	}
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(dir, n))
	}
	errs, err := l.LintFiles(paths, proj)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitlabJob is the part of GitLab CI's job schema the examples use; any
// other key fails the strict parse.
type gitlabJob struct {
	Stage         string            `yaml:"stage"`
	Image         string            `yaml:"image"`
	BeforeScript  []string          `yaml:"before_script"`
	Script        []string          `yaml:"script"`
	Variables     map[string]string `yaml:"variables"`
	Needs         []string          `yaml:"needs"`
	Environment   string            `yaml:"environment"`
	ResourceGroup string            `yaml:"resource_group"`
	Rules         []struct {
		If string `yaml:"if"`
	} `yaml:"rules"`
	Artifacts *struct {
		When    string `yaml:"when"`
		Reports struct {
			JUnit string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

// TestGitLabCI parses the example GitLab CI file and the one init writes
// strictly: every key known, every job with a script, stages and needs that
// exist, a JUnit report where check writes one. (GitLab's published JSON
// schema is not available offline.)
func TestGitLabCI(t *testing.T) {
	dir := t.TempDir()
	if r := loaderRun(t, "init", dir); r.code != 0 {
		t.Fatal(r.errOut)
	}
	for _, path := range []string{"../../docs/ci/gitlab-ci.yml", filepath.Join(dir, ".gitlab-ci.yml")} {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var top map[string]yaml.Node
			if err := yaml.Unmarshal(b, &top); err != nil {
				t.Fatal(err)
			}
			stages := []string{"build", "test", "deploy"} // GitLab's defaults
			if n, ok := top["stages"]; ok {
				stages = nil
				if err := n.Decode(&stages); err != nil {
					t.Fatal(err)
				}
			}
			jobs := map[string]gitlabJob{}
			for name, n := range top {
				if name == "stages" {
					continue
				}
				var job gitlabJob
				var buf bytes.Buffer
				enc := yaml.NewEncoder(&buf)
				if err := enc.Encode(&n); err != nil {
					t.Fatal(err)
				}
				dec := yaml.NewDecoder(&buf)
				dec.KnownFields(true)
				if err := dec.Decode(&job); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				jobs[name] = job
			}
			checked := false
			for name, job := range jobs {
				if name == "default" {
					continue
				}
				if len(job.Script) == 0 {
					t.Errorf("job %s has no script", name)
				}
				if job.Stage != "" && !containsString(stages, job.Stage) {
					t.Errorf("job %s: stage %q not in %v", name, job.Stage, stages)
				}
				for _, need := range job.Needs {
					if _, ok := jobs[need]; !ok {
						t.Errorf("job %s needs unknown job %s", name, need)
					}
				}
				for _, line := range job.Script {
					if strings.Contains(line, "scriptctl check") {
						checked = true
						if job.Artifacts == nil || job.Artifacts.Reports.JUnit == "" || !strings.Contains(line, "--junit "+job.Artifacts.Reports.JUnit) {
							t.Errorf("job %s runs check without collecting its JUnit report", name)
						}
					}
				}
			}
			if !checked {
				t.Error("no job runs scriptctl check")
			}
		})
	}
}

// findUp returns dir/rel or the same under the nearest parent of dir that
// has it, or "".
func findUp(dir, rel string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if p := filepath.Join(d, rel); fileExists(p) {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
