package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/slot"
)

type slotOptions struct {
	IO     *iostreams.IOStreams
	Keys   []string
	Same   bool
	Format string
}

func newCmdSlot(g *globalOptions) *cobra.Command {
	opts := &slotOptions{IO: g.IO}
	cmd := &cobra.Command{
		Use:   "slot KEY...",
		Short: "Print the Redis Cluster hash slot of each key",
		Long: `Print the Redis Cluster hash slot of each key, computed offline exactly as
Redis does: CRC16-XMODEM mod 16384 of the key's hash tag, or of the whole key.

The hash tag is what lies between the first '{' and the first '}' after it,
when that is not empty: "{user1000}.following" hashes "user1000";
"foo{}{bar}" hashes the whole key (the first tag is empty, the second is
never looked at); "foo{{bar}}zap" hashes "{bar".

Output: piped, one "<slot><TAB><key>" line per key and no header, so
'scriptctl slot ... | cut -f1' prints the slots; on a terminal (or with
--format table) an aligned table with a header. With --same, exit 1 unless every key is in one slot, and say on
stderr which slots the keys fall in.`,
		Example: `  scriptctl slot 'catalog:{product-42}:lease' 'catalog:{product-42}:value'
  scriptctl slot --same 'catalog:{product-42}:lease' 'catalog:{product-42}:value'
  scriptctl slot foo bar | cut -f1
  scriptctl slot --format json foo bar`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.Format, "text", "json"); err != nil {
				return err
			}
			opts.Keys = args
			return runSlot(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Same, "same", false, "exit 1 unless all keys share one slot")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, table or json (text piped: tab-separated rows, no header; table: aligned, with a header)")
	return withoutManifest(cmd)
}

func runSlot(_ context.Context, opts *slotOptions) error {
	l := slot.LookupKeys(opts.Keys)
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l); err != nil {
			return err
		}
	} else {
		t := opts.IO.NewTable("SLOT", "KEY")
		for _, k := range l.Keys {
			t.Row(strconv.Itoa(k.Slot), k.Key)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if opts.Same && !l.Same {
		gs := l.Groups()
		parts := make([]string, len(gs))
		for i, g := range gs {
			quoted := make([]string, len(g.Keys))
			for j, k := range g.Keys {
				quoted[j] = strconv.Quote(k)
			}
			parts[i] = fmt.Sprintf("%d (%s)", g.Slot, strings.Join(quoted, ", "))
		}
		opts.IO.Notice("keys are in %d different slots: %s", len(gs), strings.Join(parts, ", "))
		return cmdutil.Findings()
	}
	return nil
}
