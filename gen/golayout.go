package gen

import (
	"bytes"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"
)

// The Go binding is written in gofmt's layout by the generator itself, so
// that the binary does not link go/format (and go/parser, go/printer,
// go/ast) for it: the tests compare every generated file with its gofmt
// form. The rules kept here are go/printer's:
//
//   - consecutive single-line entries of a struct, a const or var block or
//     a multi-line composite literal are aligned in columns (alignRows);
//   - a key: value entry that spans several lines starts a new section
//     and is not aligned (scriptLiteral);
//   - a function whose header is 100 bytes or longer does not keep its
//     body on the header's line (markerMethod);
//   - a doc comment's indented lines are a code block, preceded by an
//     empty comment line;
//   - a comment line loses its trailing white space and carriage returns.

// alignRows writes rows, one line each after indent, in columns through
// text/tabwriter with go/printer's settings (minimum width 0, padding 1,
// spaces, empty columns discarded): each cell but a row's last ends a
// column, as wide as its widest cell over the run of consecutive rows
// that have a cell in it. Every cell is escaped, as go/printer escapes
// comments and literals, so a tab inside one is text, not a column.
func alignRows(w *bytes.Buffer, indent string, rows [][]string) {
	esc := string([]byte{tabwriter.Escape})
	tw := tabwriter.NewWriter(w, 0, 8, 1, ' ', tabwriter.DiscardEmptyColumns|tabwriter.StripEscape)
	for _, r := range rows {
		for c, cell := range r {
			if c == 0 {
				cell = indent + cell
			}
			sep := "\t"
			if c == len(r)-1 {
				sep = "\n"
			}
			tw.Write([]byte(esc + cell + esc + sep))
		}
	}
	tw.Flush()
}

// scriptLiteral writes a multi-line composite literal's key: value
// entries (each value with its comma, a third cell its line comment) as
// gofmt does: an entry that spans several lines (or is longer than a
// million bytes) is not aligned and ends the section of aligned entries
// before it. The keys here are short, so gofmt's rule on keys of very
// different sizes (longer than 40 bytes) never breaks a section.
func scriptLiteral(w *bytes.Buffer, rows [][]string) {
	const infinity = 1e6
	var section [][]string
	for _, r := range rows {
		v := strings.TrimSuffix(r[1], ",")
		if !strings.Contains(v, "\n") && len(r[0])+1+len(v) <= infinity {
			section = append(section, r)
			continue
		}
		alignRows(w, "\t", section)
		section = nil
		w.WriteString("\t" + r[0] + " " + strings.Join(r[1:], " ") + "\n")
	}
	alignRows(w, "\t", section)
}

// markerMethod is the declaration of an empty method: gofmt keeps the
// braces on the header's line when the header is shorter than 100 bytes
// (go/printer measures it from one column before "func").
func markerMethod(recv, method string) string {
	head := "func (" + recv + ") " + method + "()"
	if len(head) >= 100 {
		return head + " {\n}\n\n"
	}
	return head + " {}\n\n"
}

// commentText is text from the manifest (a file name, a key template, a
// reply contract) as it stands in a line comment after gofmt: without
// carriage returns (the Go scanner drops them). Text that cannot stand in
// a line comment (a line break, a NUL, a byte order mark, invalid UTF-8)
// or that gofmt takes for one (a form feed) is written as a quoted Go string
// instead.
func commentText(s string) string {
	if strings.ContainsAny(s, "\n\f\x00\uFEFF") || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return strings.ReplaceAll(s, "\r", "")
}

// trimComment is a comment line without trailing white space, as gofmt
// writes it.
func trimComment(line string) string {
	return strings.TrimRightFunc(line, unicode.IsSpace)
}
