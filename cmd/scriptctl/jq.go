package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
)

// jqFlag is the --jq flag every command with --format json has, as gh's:
// the command's JSON document goes through a jq expression (gojq) and its
// results print instead, a string as raw text, anything else as JSON.
const jqFlag = "jq"

// addJQFlags gives every command under root that has a --format flag a
// --jq flag; jq receives the expression.
func addJQFlags(root *cobra.Command, jq *string) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("format"); f != nil && c.Flags().Lookup(jqFlag) == nil && strings.Contains(f.Usage, "json") {
			c.Flags().StringVar(jq, jqFlag, "", "filter the JSON output through a jq `expression` (implies --format json); a string result prints as raw text")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// jqWriter buffers a command's stdout while --jq is in effect; flush runs
// the expression over every JSON value written and prints the results to
// the real stdout.
type jqWriter struct {
	buf  bytes.Buffer
	out  io.Writer
	code *gojq.Code
	tty  bool
}

func (w *jqWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

// startJQ checks --jq on c (a usage error, exit 2, when it does not parse or
// --format says other than json), sets --format json when not given, and
// routes ios.Out through a jqWriter.
func startJQ(c *cobra.Command, ios *iostreams.IOStreams, expr string) error {
	hint := fmt.Sprintf("'%s --help'", c.CommandPath())
	f := c.Flags().Lookup("format")
	if f == nil {
		return nil
	}
	if c.Flags().Changed("format") && f.Value.String() != "json" {
		return cmdutil.Usage(fmt.Errorf("--jq filters JSON output: it needs --format json, not --format %s", f.Value.String()), hint)
	}
	if err := f.Value.Set("json"); err != nil {
		return err
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		return cmdutil.Usage(fmt.Errorf("--jq: %w", err), hint)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return cmdutil.Usage(fmt.Errorf("--jq: %w", err), hint)
	}
	ios.Out = &jqWriter{out: ios.Out, code: code, tty: ios.StdoutTTY}
	return nil
}

// finishJQ restores ios.Out when --jq was in effect and prints the
// expression's results. A result the expression cannot produce (an error
// in jq, output that is not JSON) is an error (exit 2).
func finishJQ(ios *iostreams.IOStreams) error {
	w, ok := ios.Out.(*jqWriter)
	if !ok {
		return nil
	}
	ios.Out = w.out
	return w.flush()
}

func (w *jqWriter) flush() error {
	dec := json.NewDecoder(&w.buf)
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return cmdutil.Input(fmt.Errorf("--jq: the output is not JSON: %w", err))
		}
		iter := w.code.Run(v)
		for {
			r, ok := iter.Next()
			if !ok {
				break
			}
			if err, isErr := r.(error); isErr {
				var he *gojq.HaltError
				if errors.As(err, &he) && he.Value() == nil {
					return nil
				}
				return cmdutil.Input(fmt.Errorf("--jq: %w", err))
			}
			if err := w.print(r); err != nil {
				return err
			}
		}
	}
}

// print writes one result: a string raw, anything else as JSON (indented
// on a terminal, one line piped).
func (w *jqWriter) print(r any) error {
	if s, ok := r.(string); ok {
		_, err := fmt.Fprintln(w.out, s)
		return err
	}
	enc := json.NewEncoder(w.out)
	enc.SetEscapeHTML(false)
	if w.tty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(r)
}
