package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/scriptctl/scriptctl/manifest"
)

// keyChecks writes the checks that keep each template's hash tag, and the
// declared ones, and leaves out a tag check the declared values imply.
func TestKeyChecks(t *testing.T) {
	for _, c := range []struct {
		templates []string
		declared  map[string]manifest.Placeholder
		want      string
	}{
		{[]string{"catalog:{product-<id>}:lease"}, nil, "no-close(id)"},
		{[]string{"<pfx>:{<id>}"}, nil, "no-open(pfx) no-close(id) tag-non-empty(id)"},
		{[]string{"{<a><b>}:x", "{<a><b>}:y"}, nil, "no-close(a) no-close(b) tag-non-empty(a,b)"},
		{[]string{"a{b}c<id>", "plain:<id>", "<id>{"}, nil, ""},
		{[]string{"a:<x>{b-<y>}-<z>}"}, nil, "no-open(x) no-close(y)"},
		{[]string{"q:{<q>}"}, map[string]manifest.Placeholder{"q": {Pattern: "^[a-z]+$"}}, "pattern(q)"},
		{[]string{"q:{<q>}"}, map[string]manifest.Placeholder{"q": {NonEmpty: true}}, "non-empty(q) no-close(q)"},
		{[]string{"q:{<q>}"}, map[string]manifest.Placeholder{"q": {Pattern: "[a-z]"}}, "pattern(q) no-close(q)"},
	} {
		caller := &manifest.Caller{Name: "c", Placeholders: map[string]manifest.Placeholder{}}
		for k, v := range c.declared {
			caller.Placeholders[k] = v
		}
		var params []string
		seen := map[string]bool{}
		for i, tmpl := range c.templates {
			caller.Keys = append(caller.Keys, manifest.KeyTemplate{Name: fmt.Sprint("k", i), Template: tmpl})
			for _, s := range templateSegments(tmpl) {
				if s.placeholder && !seen[s.text] {
					seen[s.text] = true
					params = append(params, s.text)
				}
			}
		}
		var got []string
		for _, k := range keyChecks(caller, params) {
			name := [...]string{"non-empty", "pattern", "no-open", "no-close", "tag-non-empty"}[k.kind]
			got = append(got, name+"("+strings.Join(k.params, ",")+")")
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%v %v: %q, want %q", c.templates, c.declared, strings.Join(got, " "), c.want)
		}
	}
}
