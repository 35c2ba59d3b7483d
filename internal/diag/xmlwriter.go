package diag

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// XMLHeader is the declaration an XML report starts with (encoding/xml's
// Header).
const XMLHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// XMLWriter writes an XML document element by element, byte for byte as
// encoding/xml's Encoder with Indent("", "  ") marshals the same tree: an
// element on a line of its own, indented two spaces a level; text and the
// end tag of an element without children on the start tag's line; text
// and attribute values escaped as EscapeString escapes them. The JUnit and
// Cobertura reports use it instead of encoding/xml, whose initialisation
// (its HTML entity tables) every scriptctl process would pay at start.
type XMLWriter struct {
	buf        bytes.Buffer
	depth      int
	indentedIn bool // the last thing written is a start tag
	putNewline bool // something is written: the next tag starts a line
}

// Attr is one attribute of a start tag.
type Attr struct{ Name, Value string }

// StrAttr, IntAttr and BoolAttr make an attribute.
func StrAttr(name, value string) Attr   { return Attr{name, value} }
func IntAttr(name string, v int64) Attr { return Attr{name, strconv.FormatInt(v, 10)} }
func BoolAttr(name string, v bool) Attr { return Attr{name, strconv.FormatBool(v)} }

// Start writes the start tag of element name with attrs, in order.
func (x *XMLWriter) Start(name string, attrs ...Attr) {
	x.indent(1)
	x.buf.WriteByte('<')
	x.buf.WriteString(name)
	for _, a := range attrs {
		x.buf.WriteByte(' ')
		x.buf.WriteString(a.Name)
		x.buf.WriteString(`="`)
		escapeXML(&x.buf, a.Value)
		x.buf.WriteByte('"')
	}
	x.buf.WriteByte('>')
}

// Text writes s as the character data of the open element.
func (x *XMLWriter) Text(s string) { escapeXML(&x.buf, s) }

// End writes the end tag of element name, the open one.
func (x *XMLWriter) End(name string) {
	x.indent(-1)
	x.buf.WriteString("</")
	x.buf.WriteString(name)
	x.buf.WriteByte('>')
}

// Element writes element name holding the text s.
func (x *XMLWriter) Element(name, s string, attrs ...Attr) {
	x.Start(name, attrs...)
	x.Text(s)
	x.End(name)
}

// Bytes is the document written so far.
func (x *XMLWriter) Bytes() []byte { return x.buf.Bytes() }

// indent is encoding/xml's printer.writeIndent with an indent of two
// spaces and no prefix.
func (x *XMLWriter) indent(delta int) {
	if delta < 0 {
		x.depth--
		if x.indentedIn {
			x.indentedIn = false
			return
		}
		x.indentedIn = false
	}
	if x.putNewline {
		x.buf.WriteByte('\n')
	} else {
		x.putNewline = true
	}
	for range x.depth {
		x.buf.WriteString("  ")
	}
	if delta > 0 {
		x.depth++
		x.indentedIn = true
	}
}

// escapeXML is encoding/xml's EscapeString: the five markup characters,
// tab, newline and carriage return as references, and what XML cannot
// hold (invalid UTF-8, characters outside XML's range) as U+FFFD.
func escapeXML(b *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b.WriteString(s[last : i-width])
		b.WriteString(esc)
		last = i
	}
	b.WriteString(s[last:])
}

// xmlChar reports whether XML 1.0 allows r in a document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
