package bindtest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"example.com/bindtest/catalogrefresh"
	"example.com/bindtest/rotest"
)

// A key builder refuses, with a *PlaceholderError naming the placeholder,
// a value its caller's declared pattern excludes (Go's ASCII \w: "é" is
// not a word character) or one that would break a key's hash tag; it
// accepts the braces that break nothing.
func TestPlaceholderChecks(t *testing.T) {
	b := rotest.New(noConn{})
	cat := catalogrefresh.New(&scripted{})
	for _, c := range []struct {
		name string
		err  error
		want string // the refused placeholder; "" when the value is accepted
	}{
		{"store empty", second(b.ForStore("")), "id"},
		{"store brace", second(b.ForStore("a}b")), "id"},
		{"store non-ASCII", second(b.ForStore("é")), "id"},
		{"store ok", second(b.ForStore("x-1_Y")), ""},
		{"audit brace before the tag", second(b.ForAudit("a{b", "1")), "ns"},
		{"audit brace inside the tag", second(b.ForAudit("a", "x}y")), "id"},
		{"audit empty id, literal tag", second(b.ForAudit("a", "")), ""},
		{"audit harmless braces", second(b.ForAudit("a}", "{")), ""},
		{"catalog brace inside the tag", second(cat.ForCatalogSummary("4}2")), "id"},
		{"catalog open brace inside the tag", second(cat.ForCatalogSummary("{x")), ""},
		{"catalog empty", second(cat.ForCatalogSummary("")), ""},
	} {
		var pe *rotest.PlaceholderError
		var ce *catalogrefresh.PlaceholderError
		got := ""
		switch {
		case c.err == nil:
		case errors.As(c.err, &pe):
			got = pe.Placeholder
		case errors.As(c.err, &ce):
			got = ce.Placeholder
		default:
			t.Errorf("%s: %T %v, want a *PlaceholderError", c.name, c.err, c.err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: refused placeholder %q (%v), want %q", c.name, got, c.err, c.want)
		}
	}
	_, err := b.ForAudit("a", "x}y")
	if want := `caller audit: placeholder <id> = "x}y" must not hold '}': it is inside the hash tag of <ns>:{t-<id>}:item and would end it early`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if _, err := b.ForStore("é"); err == nil || !strings.Contains(err.Error(), `must match ^[\w-]+$ (placeholders.id.pattern)`) {
		t.Errorf("error %v, want the pattern named", err)
	}
}

// noConn is a Conn a key builder never reaches.
type noConn struct{}

func (noConn) Do(context.Context, rotest.Command) (rotest.Value, error) {
	return rotest.Value{}, errors.New("nothing is sent")
}

func second[T any](_ T, err error) error { return err }
