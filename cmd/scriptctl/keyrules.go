package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify"
)

// keyRuleFlags are --topology and --strict-keys, shared by eval, verify,
// check and explore: the server the offline runs imitate and whether a key
// not declared in KEYS stops a run.
type keyRuleFlags struct {
	Topology string
	Strict   bool
	// set record which flags were given (a manifest's fields apply to the
	// others).
	topologySet, strictSet bool
	cmd                    *cobra.Command
}

func (k *keyRuleFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&k.Topology, "topology", "", "the server the offline runs imitate: `cluster` (a cluster node: slot rules) or standalone (none); default the manifest's topology, else cluster")
	fs.BoolVar(&k.Strict, "strict-keys", false, "a key not declared in KEYS stops the run (an error), as proxies that demand declared keys do; default the manifest's strict_keys, else a warning")
	k.cmd = cmd
}

// check validates --topology.
func (k *keyRuleFlags) check(command string) error {
	if k.cmd != nil {
		k.topologySet = k.cmd.Flags().Changed("topology")
		k.strictSet = k.cmd.Flags().Changed("strict-keys")
	}
	if err := verify.CheckTopology(k.Topology); err != nil {
		return cmdutil.Usage(fmt.Errorf("--topology: %v", err), "'scriptctl "+command+" --help'")
	}
	return nil
}

// apply makes the flags given override the manifest's topology and
// strict_keys, which the offline runs read (scenario, explore).
func (k *keyRuleFlags) apply(m *manifest.Manifest) {
	if k.topologySet {
		m.Topology = k.Topology
	}
	if k.strictSet {
		m.StrictKeys = k.Strict
	}
}
