// Package rediscli prints Redis replies exactly as redis-cli does in its
// standard (--no-raw) output mode, so an offline reply and a live one can
// be compared byte for byte. It owns formatting only: it neither parses
// RESP nor talks to a server.
package rediscli

import (
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/verify"
)

// Format returns r as `redis-cli --no-raw` prints it, trailing newline
// included: "(integer) 1", quoted bulk strings with redis-cli's escaping,
// "(nil)", status text bare, "(error) <text>", "(empty array)", and arrays
// numbered "1) " with nested elements indented under their parent's index.
// Status and error texts end at a NUL byte, as redis-cli prints them.
func Format(r verify.Reply) string {
	var b strings.Builder
	format(&b, r, "")
	return b.String()
}

// format is redis-cli's cliFormatReplyTTY for the RESP2 reply types.
func format(b *strings.Builder, r verify.Reply, prefix string) {
	switch r.Kind {
	case verify.Error:
		b.WriteString("(error) ")
		b.WriteString(cString(r.Str))
		b.WriteByte('\n')
	case verify.Status:
		b.WriteString(cString(r.Str))
		b.WriteByte('\n')
	case verify.Int:
		b.WriteString("(integer) ")
		b.WriteString(strconv.FormatInt(r.Int, 10))
		b.WriteByte('\n')
	case verify.Bulk:
		b.WriteString(Quote(r.Str))
		b.WriteByte('\n')
	case verify.Nil:
		b.WriteString("(nil)\n")
	case verify.Array:
		if len(r.Elems) == 0 {
			b.WriteString("(empty array)\n")
			return
		}
		// Width of the largest index; nested replies are indented by
		// that width plus ") ".
		idxlen := len(strconv.Itoa(len(r.Elems)))
		child := prefix + strings.Repeat(" ", idxlen+2)
		for i, e := range r.Elems {
			if i > 0 {
				// The first element follows the parent's "n) " on the
				// same line.
				b.WriteString(prefix)
			}
			idx := strconv.Itoa(i + 1)
			b.WriteString(strings.Repeat(" ", idxlen-len(idx)))
			b.WriteString(idx)
			b.WriteString(") ")
			format(b, e, child)
		}
	default:
		b.WriteString("(unknown reply kind " + r.Kind.String() + ")\n")
	}
}

// cString is s as C's string functions see it: up to its first NUL byte.
// redis-cli prints status and error texts with %s and sdscat, so a NUL
// ends them (bulk strings are printed with their length).
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// Quote is redis's sdscatrepr: s in double quotes, with \\ \" \n \r \t \a
// \b escaped, other printable ASCII bytes as they are, and every other byte
// as \xHH in lowercase hex.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c < 0x7f { // isprint in the C locale
				b.WriteByte(c)
			} else {
				const hex = "0123456789abcdef"
				b.WriteString(`\x`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
