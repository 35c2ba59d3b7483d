//go:build perfdeps

package main

// Built with -tags perfdeps, funcdeploy also links the third-party
// packages scriptctl links (the same list as internal/perf/depsinit), so
// their package initialisation runs before it sends anything: the floor of
// any deploy program with scriptctl's libraries (its YAML manifests, its
// Lua engine, its command line, its --jq), BenchmarkDeployCluster's
// deps-deploy-floor.
import (
	_ "github.com/itchyny/gojq"
	_ "github.com/spf13/cobra"
	_ "github.com/yuin/gopher-lua"
	_ "github.com/yuin/gopher-lua/parse"
	_ "golang.org/x/term"
	_ "gopkg.in/yaml.v3"
)
