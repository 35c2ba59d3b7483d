package main

import (
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// version is set by the Makefile: -ldflags "-X main.version=...". When it
// is left at "dev", the build information decides (buildVersion).
var version = "dev"

// versionInfo is what scriptctl knows of its own build.
type versionInfo struct {
	FormatVersion string `json:"format_version"`
	// Version: the -X injected version (make build), else the module
	// version Go recorded (go install module@v1.2.3, or a pseudo-version
	// when built in a checkout), else "dev".
	Version string `json:"version"`
	// Source says where Version came from: "ldflags", "module" or "none".
	Source   string `json:"source"`
	Commit   string `json:"commit"`   // vcs.revision when built from a checkout
	Modified bool   `json:"modified"` // vcs.modified: the checkout had local changes
	Time     string `json:"commit_time"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

func buildVersion() versionInfo {
	v := versionInfo{FormatVersion: "1", Version: version, Source: "ldflags", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	bi, ok := readBuildInfo()
	if ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			case "vcs.time":
				v.Time = s.Value
			}
		}
	}
	if version == "dev" {
		v.Source = "none"
		if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version, v.Source = bi.Main.Version, "module"
		}
	}
	return v
}

func versionString() string {
	v := buildVersion()
	// Concatenation, not fmt: `scriptctl version` then runs no fmt code.
	s := "scriptctl " + v.Version + " (" + v.Go + " " + v.OS + "/" + v.Arch + ")"
	if v.Commit != "" {
		s += " commit " + v.Commit
		if v.Modified {
			s += " (modified)"
		}
	}
	return s
}

type versionOptions struct {
	IO     *iostreams.IOStreams
	Format string
}

func newCmdVersion(g *globalOptions) *cobra.Command {
	opts := &versionOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of scriptctl and of Go it was built with",
		Long: `Print scriptctl's version, the Go version and platform it was built with,
and, for a build from a git checkout, the commit and whether the checkout had
local changes.

The version is the one make build injected; else the module version Go
recorded (go install github.com/scriptctl/scriptctl/cmd/scriptctl@v1.2.3
records v1.2.3; a build in a checkout records a pseudo-version); else "dev".`,
		Example: `  scriptctl version
  scriptctl version --format json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			if opts.Format == "json" {
				return writeJSONDoc(opts.IO, buildVersion())
			}
			return printVersion(opts.IO)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

// printVersion prints the line of `scriptctl version`. Main calls it
// without building the command tree when the command has no flag: that
// tree (cobra's code, the flag sets) is most of what printing the line
// adds to the process start (docs/performance.md, sixth pass);
// TestVersionDirect checks both print the same.
func printVersion(ios *iostreams.IOStreams) error {
	_, err := io.WriteString(ios.Out, versionString()+"\n")
	return err
}
