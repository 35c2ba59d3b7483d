package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/internal/testtier"
)

// TestVersionInjected builds scriptctl the way the Makefile does (make
// build VERSION=...) and checks that the version it prints is the one given.
// The fast tier has TestBuildVersion, in process.
func TestVersionInjected(t *testing.T) {
	testtier.Full(t, "builds the binary with CGO_ENABLED=0: the toolchain")
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "scriptctl")
	cmd := exec.Command("make", "-s", "-C", "../..", "build", "VERSION=v9.8.7-test", "BIN="+bin)
	if _, err := exec.LookPath("make"); err != nil {
		// Without make, the flag the Makefile passes.
		cmd = exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7-test", "-o", bin, ".")
	}
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^scriptctl v9\.8\.7-test \(go1\.\d+`).Match(out) {
		t.Fatalf("version printed %q, want v9.8.7-test", out)
	}
}

// TestBuildVersion: the injected version wins; else the module version Go
// recorded (go install module@version); else "dev"; the VCS revision and
// modified flag of a checkout build are reported either way.
func TestBuildVersion(t *testing.T) {
	defer func(v string, f func() (*debug.BuildInfo, bool)) { version, readBuildInfo = v, f }(version, readBuildInfo)
	info := func(mainVersion string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/scriptctl/scriptctl", Version: mainVersion}, Settings: settings}, true
		}
	}
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name, injected, module string
		settings               []debug.BuildSetting
		want, source, text     string
	}{
		{"go install module@version", "dev", "v1.4.2", nil, "v1.4.2", "module", `^scriptctl v1\.4\.2 \(go`},
		{"go build in a checkout", "dev", "(devel)", vcs, "dev", "none", `^scriptctl dev \(go.*\) commit 0123456789abcdef \(modified\)$`},
		{"pseudo-version of a checkout", "dev", "v0.0.0-20261201120000-0123456789ab+dirty", vcs, "v0.0.0-20261201120000-0123456789ab+dirty", "module", `commit 0123456789abcdef \(modified\)$`},
		{"make build", "v2.0.0", "(devel)", vcs[:1], "v2.0.0", "ldflags", `^scriptctl v2\.0\.0 \(go.*\) commit 0123456789abcdef$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			version, readBuildInfo = tc.injected, info(tc.module, tc.settings...)
			v := buildVersion()
			if v.Version != tc.want || v.Source != tc.source {
				t.Fatalf("version %q from %q, want %q from %q", v.Version, v.Source, tc.want, tc.source)
			}
			if s := versionString(); !regexp.MustCompile(tc.text).MatchString(s) {
				t.Fatalf("versionString() = %q, want %s", s, tc.text)
			}
		})
	}
}

// TestBuiltinAlone: version and exit-codes run on a root that holds only
// them (builtinOnly) and print exactly what they print with every command
// built: output, help, JSON, --jq and their usage errors.
func TestBuiltinAlone(t *testing.T) {
	for _, args := range [][]string{
		{"version"}, {"version", "--format", "json"}, {"version", "--jq", ".go"}, {"version", "--help"},
		{"version", "extra"}, {"version", "--format", "yaml"}, {"version", "-m", "x.yaml"}, {"version", "--nope"},
		{"exit-codes"}, {"exit-codes", "--help"},
	} {
		if !builtinOnly(args) {
			t.Fatalf("%v: not built alone", args)
		}
		alone := runRoot(t, newRoot, false, args)
		full := runRoot(t, newRoot, true, args)
		if alone != full {
			t.Errorf("%v alone:\n%s\nwith every command:\n%s", args, alone, full)
		}
	}
	for _, args := range [][]string{{}, {"--version"}, {"-m", "x.yaml", "version"}, {"help", "version"}, {"check"}} {
		if builtinOnly(args) {
			t.Errorf("%v: built alone, wants the whole tree", args)
		}
	}
}

// TestDeployAlone: deploy is built without the other commands
// (aloneCommand) and prints exactly what it prints with every command: its
// help, usage errors, and its refusals before it connects.
func TestDeployAlone(t *testing.T) {
	t.Setenv("SCRIPTCTL_URL", "")
	for _, args := range [][]string{
		{"deploy", "--help"}, {"deploy", "--nope"}, {"deploy", "a.plan", "b.plan"}, {"deploy", "--parallel", "0"},
		{"deploy", "-m", "missing.yaml", "--url", "redis://127.0.0.1:1"},
		{"deploy", "-m", "missing.yaml", "--url", "redis://127.0.0.1:1", "--format", "json"},
		{"deploy", "--mode", "nope"}, {"deploy", "--jq", ".", "--format", "text"},
	} {
		add := aloneCommand(args)
		if add == nil || builtinOnly(args) {
			t.Fatalf("%v: not built alone", args)
		}
		alone := runRoot(t, func(ios *iostreams.IOStreams, all bool) *cobra.Command { return newRootWith(ios, all, add) }, false, args)
		full := runRoot(t, newRoot, true, args)
		if alone != full {
			t.Errorf("%v alone:\n%s\nwith every command:\n%s", args, alone, full)
		}
		if strings.Contains(alone, "unknown command") {
			t.Errorf("%v: deploy was not built:\n%s", args, alone)
		}
	}
	for _, args := range [][]string{{}, {"plan"}, {"help", "deploy"}, {"-m", "x.yaml", "deploy"}} {
		if aloneCommand(args) != nil {
			t.Errorf("%v: built alone, wants the whole tree", args)
		}
	}
}

// runRoot runs args on newRoot(ios, all) as run does and returns the exit
// code and both outputs as one text.
func runRoot(t *testing.T, newRoot func(*iostreams.IOStreams, bool) *cobra.Command, all bool, args []string) string {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	root := newRoot(ios, all)
	root.SetArgs(args)
	_, err := root.ExecuteContextC(context.Background())
	if jerr := finishJQ(ios); jerr != nil && err == nil {
		err = jerr
	}
	code := 0
	if err != nil {
		code = exitCode(err)
		errOut.WriteString("Error: " + err.Error())
	}
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
}

// TestVersionDirect: the line Main prints for `scriptctl version` without
// the command tree (printVersion) is the command's.
func TestVersionDirect(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	if err := printVersion(ios); err != nil {
		t.Fatal(err)
	}
	direct := fmt.Sprintf("exit 0\nstdout:\n%s\nstderr:\n%s", out, errOut)
	if cmd := runRoot(t, newRoot, true, []string{"version"}); direct != cmd {
		t.Errorf("direct:\n%s\nthe command:\n%s", direct, cmd)
	}
	if !strings.HasPrefix(out.String(), "scriptctl ") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("direct: %q, want one line starting with scriptctl", out)
	}
}

// TestVersionFlag: --version and -v print the line of `scriptctl version`
// and exit 0, whatever global flags come with them; --help wins over them;
// --version=false, like no argument, is the root's help, which lists the
// flag as cobra's own version flag did; a command has no --version of the
// root's.
func TestVersionFlag(t *testing.T) {
	line := runRoot(t, newRoot, true, []string{"version"})
	if !strings.HasPrefix(line, "exit 0\nstdout:\nscriptctl ") {
		t.Fatalf("version:\n%s", line)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}, {"-v=true"}, {"--version", "-q", "--verbose"}, {"-m", "x.yaml", "--version"}} {
		if got := runRoot(t, newRoot, true, args); got != line {
			t.Errorf("%v:\n%s\nwant:\n%s", args, got, line)
		}
	}
	help := runRoot(t, newRoot, true, []string{"--help"})
	if !strings.Contains(help, "\n  -v, --version           version for scriptctl\n") || !strings.Contains(help, "\nAvailable Commands:\n") {
		t.Fatalf("--help lists no -v, --version:\n%s", help)
	}
	for _, args := range [][]string{{"--version", "--help"}, {"-h", "-v"}, {"--version=false"}, {}} {
		if got := runRoot(t, newRoot, true, args); got != help {
			t.Errorf("%v:\n%s\nwant the root's help", args, got)
		}
	}
	if got := runRoot(t, newRoot, true, []string{"check", "--version"}); !strings.HasPrefix(got, "exit 2\n") || !strings.Contains(got, "unknown flag: --version") {
		t.Errorf("check --version:\n%s", got)
	}
}

// failingWriter refuses every write, as stdout on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestVersionWriteFails: a version line that cannot be written fails the
// run, whether asked for as the command or as -v/--version (whose line the
// help func prints, and which cannot return the error itself).
func TestVersionWriteFails(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		ios, _, _, errOut := iostreams.Test()
		ios.Out = failingWriter{}
		code := run(context.Background(), ios, args)
		if code == cmdutil.ExitOK || !strings.Contains(errOut.String(), "no space left on device") {
			t.Errorf("%v: exit %d, stderr %q; want a failure naming the write error", args, code, errOut)
		}
	}
}
