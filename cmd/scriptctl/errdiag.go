package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/scriptctl/scriptctl/internal/diag"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/manifest"
	"github.com/scriptctl/scriptctl/verify/scenario"
)

// codedError names the kind of input an error's problems are in (the
// diagnostic code), where the error type alone does not say: explore's
// model files report manifest.Errors.
type codedError struct {
	code string
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// withCode marks the problems of err with the diagnostic code code.
func withCode(code string, err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err}
}

// diagError is invalid input a command found and reports as shared
// diagnostics of its own (a file init or new will not overwrite): run
// prints them on stderr, or with --format json writes doc, the command's
// document holding them, on stdout.
type diagError struct {
	ds  []diag.Diagnostic
	doc any // the --format json document; nil: a diag.Document
	err error
}

func (e *diagError) Error() string { return e.err.Error() }
func (e *diagError) Unwrap() error { return e.err }

// inputDiagnostics returns the problems of an invalid-input error (a
// manifest, scripts.sum, script, scenario, model or --state file) in the shared
// diagnostic shape, severity error; nil when err carries no positioned
// problem. The code is the kind of file: manifest, sum, script or scenario
// by the error's type and file name, or the one withCode gave (model,
// state). A diagError gives its own.
func inputDiagnostics(err error) []diag.Diagnostic {
	var de *diagError
	if errors.As(err, &de) {
		return de.ds
	}
	code := ""
	var ce *codedError
	if errors.As(err, &ce) {
		code = ce.code
	}
	var out []diag.Diagnostic
	add := func(file string, line, col int, field, msg, fallback string) {
		c := code
		if c == "" {
			c = fallback
		}
		if field != "" {
			msg = field + ": " + msg
		}
		out = append(out, diag.Diagnostic{File: file, Line: line, Column: col, Severity: diag.Error, Code: c, Message: msg})
	}
	var merrs manifest.Errors
	var merr *manifest.Error
	var serrs scenario.Errors
	var serr *scenario.Error
	switch {
	case errors.As(err, &merrs):
		for _, e := range merrs {
			add(e.File, e.Line, e.Col, e.Field, e.Msg, manifestCode(e.File))
		}
	case errors.As(err, &serrs):
		for _, e := range serrs {
			add(e.File, e.Line, e.Col, e.Field, e.Msg, "scenario")
		}
	case errors.As(err, &merr):
		add(merr.File, merr.Line, merr.Col, merr.Field, merr.Msg, manifestCode(merr.File))
	case errors.As(err, &serr):
		add(serr.File, serr.Line, serr.Col, serr.Field, serr.Msg, "scenario")
	}
	return out
}

// manifestCode is the code of a manifest.Error by its file: the manifest
// package reports problems in the manifest, in scripts.sum and in script
// files.
func manifestCode(file string) string {
	switch {
	case strings.HasSuffix(file, ".sum"):
		return "sum"
	case strings.HasSuffix(file, ".lua"):
		return "script"
	}
	return "manifest"
}

// reportInputDiagnostics prints ds, the diagnostics of err, for the
// command that failed: with --format json a diag.Document (or a diagError's
// own document) on stdout, else one line each on stderr in the shared text
// form (escaped: a file's text may hold control bytes), detail lines
// indented below.
func reportInputDiagnostics(ios *iostreams.IOStreams, cmd *cobra.Command, err error, ds []diag.Diagnostic) {
	if cmd != nil {
		if f := cmd.Flags().Lookup("format"); f != nil && f.Value.String() == "json" {
			var de *diagError
			if errors.As(err, &de) && de.doc != nil {
				if writeJSONDoc(ios, de.doc) == nil {
					return
				}
			} else if diag.WriteJSON(ios.Out, ds) == nil {
				return
			}
		}
	}
	for _, d := range ds {
		// Escaped field by field, so detail lines stay lines.
		d.File, d.Message = iostreams.Safe(d.File, false), iostreams.Safe(d.Message, false)
		d.Detail = slices.Clone(d.Detail)
		for i, l := range d.Detail {
			d.Detail[i] = iostreams.Safe(l, false)
		}
		fmt.Fprintln(ios.ErrOut, d.String())
	}
}
