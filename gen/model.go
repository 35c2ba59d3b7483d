package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/internal/valueset"
	"github.com/scriptctl/scriptctl/manifest"
)

// The walk every emitter shares: a manifest and its ledger become a
// library, a language-neutral description of what a binding holds (scripts
// with their SHA1s, flags and declared errors, reply shapes, callers with
// their placeholders, key templates and the checks their values pass). The
// emitters (golang.go, typescript.go, python.go) only name and render it.

// library is what a binding of one manifest holds.
type library struct {
	m       *manifest.Manifest
	mode    string // the default call mode: "scripts" or "functions"
	scripts []*scriptModel
	callers []*callerModel
	// errors are the declared error replies of every contract, one per
	// prefix, in first-declared order.
	errors []*declaredErr
}

// scriptModel is one script of the binding.
type scriptModel struct {
	s          *manifest.Script
	sha        string // scripts.sum's SHA1 for the current version
	function   string // the versioned function name
	readOnly   bool   // no-writes: _RO commands
	idempotent bool
	anySlot    bool // no-cluster: no one-slot check
	// errs are the declared errors its contract lists (with a prefix), in
	// contract order.
	errs []*declaredErr
	// contract reports a reply contract; reply is its success shape, nil
	// without a contract or when the contract has only errors.
	contract bool
	reply    *shape
}

// declaredErr is an error reply a contract declares by its prefix.
type declaredErr struct {
	prefix string
	name   string // the constant's name: "Err" and the label or the text
	script string // the script that declared it first
}

// shapeKind is how a reply type maps to the languages' types.
type shapeKind int

const (
	shapeScalar   shapeKind = iota // integer, string, status, boolean, double, any (t.Kind)
	shapeLiteral                   // a lone literal or nil: it carries no data
	shapeArray                     // array(elem)
	shapeTuple                     // fields
	shapeOptional                  // elem | nil
	shapeEnum                      // integer or string literals: t.Alts
	shapeTagged                    // tuples tagged by a literal first element: variants
	shapeAnyOf                     // any other union: alts, the reply as is
)

// shape is the language-neutral form of a success reply type.
type shape struct {
	kind     shapeKind
	t        *contract.Type
	elem     *shape        // shapeArray, shapeOptional
	fields   []*tupleField // shapeTuple, in element order
	variants []*variant    // shapeTagged
	alts     []*shape      // shapeAnyOf
}

// tupleField is one element of a tuple: a literal is checked, any other
// element is a field.
type tupleField struct {
	index   int
	t       *contract.Type // the element (t.Label names the field)
	literal bool
	shape   *shape // nil for a literal
}

// variant is one alternative of a tagged union.
type variant struct {
	suffix string         // its name after the union's prefix: the label, else the tag
	kind   string         // its discriminant: the label, else the tag's text
	tag    *contract.Type // the literal first element
	tuple  *shape
}

// callerModel is one caller: a key builder.
type callerModel struct {
	c *manifest.Caller
	// params are the placeholders of its key templates, in first-use order.
	params  []string
	scripts []*callerScript
	// checks are what a placeholder value must pass before a key is built,
	// in order (placeholder by placeholder, then whole hash tags).
	checks []*keyCheck
}

// callerScript is one of a caller's scripts with the templates of its keys.
type callerScript struct {
	s    *scriptModel
	keys [][]segment // per script key, in KEYS order, its template's segments
}

// checkKind is what a keyCheck tests.
type checkKind int

const (
	checkNonEmpty    checkKind = iota // params[0] is not ""
	checkPattern                      // params[0] matches pattern
	checkNoOpen                       // params[0] holds no '{'
	checkNoClose                      // params[0] holds no '}'
	checkTagNonEmpty                  // not every one of params is "" (the only text of a hash tag)
)

// keyCheck is one rule a caller's placeholder values obey: a declared one
// (non_empty, pattern) or one that keeps a template's hash tag intact.
type keyCheck struct {
	kind    checkKind
	params  []string
	pattern string // checkPattern: the manifest's pattern (Go RE2 syntax)
	reason  string // the error's reason, the same text in every language
}

// newLibrary walks m and its ledger sum once for every emitter.
func newLibrary(m *manifest.Manifest, sum *manifest.Sum) *library {
	lib := &library{m: m, mode: "scripts"}
	if m.Deploy == manifest.DeployFunctions {
		lib.mode = "functions"
	}
	shas := map[string]string{}
	for _, e := range sum.Version(m.Version) {
		shas[e.Script] = e.SHA
	}
	byPrefix := map[string]*declaredErr{}
	byName := map[string]*scriptModel{}
	for _, s := range m.Scripts {
		sm := &scriptModel{s: s, sha: shas[s.Name], function: m.FunctionName(s.Name),
			readOnly: s.HasFlag("no-writes"), idempotent: s.Idempotent, anySlot: s.HasFlag("no-cluster")}
		if s.Reply != nil {
			sm.contract = true
			for _, e := range s.Reply.Errors() {
				if e.Str == "" {
					continue
				}
				d, ok := byPrefix[e.Str]
				if !ok {
					d = &declaredErr{prefix: e.Str, name: "Err" + errName(e), script: s.Name}
					byPrefix[e.Str] = d
					lib.errors = append(lib.errors, d)
				}
				sm.errs = append(sm.errs, d)
			}
			if succ := s.Reply.Success(); succ != nil {
				sm.reply = newShape(succ)
			}
		}
		lib.scripts = append(lib.scripts, sm)
		byName[s.Name] = sm
	}
	for _, c := range m.Callers {
		cm := &callerModel{c: c}
		seen := map[string]bool{}
		for _, k := range c.Keys {
			for _, seg := range templateSegments(k.Template) {
				if seg.placeholder && !seen[seg.text] {
					seen[seg.text] = true
					cm.params = append(cm.params, seg.text)
				}
			}
		}
		for _, sn := range c.Scripts {
			sm := byName[sn]
			if sm == nil {
				continue
			}
			cs := &callerScript{s: sm}
			for _, k := range sm.s.Keys {
				tmpl, _ := c.Template(k)
				cs.keys = append(cs.keys, templateSegments(tmpl))
			}
			cm.scripts = append(cm.scripts, cs)
		}
		cm.checks = keyChecks(c, cm.params)
		lib.callers = append(lib.callers, cm)
	}
	return lib
}

// newShape classifies a success type: T | nil is optional, integer or
// string literals an enum, tuples tagged by a distinct literal first
// element a tagged union; any other union is the reply as is, once one
// alternative matches.
func newShape(t *contract.Type) *shape {
	switch t.Kind {
	case contract.IntLit, contract.StrLit, contract.StatLit, contract.Nil:
		return &shape{kind: shapeLiteral, t: t}
	case contract.Array:
		return &shape{kind: shapeArray, t: t, elem: newShape(t.Elem)}
	case contract.Tuple:
		sh := &shape{kind: shapeTuple, t: t}
		for i, e := range t.Elems {
			f := &tupleField{index: i, t: e, literal: isLiteral(e)}
			if !f.literal {
				f.shape = newShape(e)
			}
			sh.fields = append(sh.fields, f)
		}
		return sh
	case contract.Union:
		alts := t.Alts
		if len(alts) == 2 && (alts[0].Kind == contract.Nil) != (alts[1].Kind == contract.Nil) {
			other := alts[0]
			if other.Kind == contract.Nil {
				other = alts[1]
			}
			return &shape{kind: shapeOptional, t: t, elem: newShape(other)}
		}
		if allKind(alts, contract.IntLit) || allKind(alts, contract.StrLit) {
			return &shape{kind: shapeEnum, t: t}
		}
		if tags, ok := tagged(alts); ok {
			sh := &shape{kind: shapeTagged, t: t}
			for i, a := range alts {
				v := &variant{kind: tags[i][1:], tag: a.Elems[0], tuple: newShape(a)}
				if a.Label != "" {
					v.kind = a.Label
				}
				switch {
				case a.Label != "":
					v.suffix = camel(a.Label)
				case tags[i][0] == 's':
					v.suffix = literalName(tags[i][1:])
				default:
					v.suffix = intName(a.Elems[0].Int)
				}
				sh.variants = append(sh.variants, v)
			}
			return sh
		}
		sh := &shape{kind: shapeAnyOf, t: t}
		for _, a := range alts {
			sh.alts = append(sh.alts, newShape(a))
		}
		return sh
	}
	return &shape{kind: shapeScalar, t: t}
}

func allKind(alts []*contract.Type, k contract.Kind) bool {
	for _, a := range alts {
		if a.Kind != k {
			return false
		}
	}
	return true
}

// fieldNames names a tuple's fields: name(label) for a labelled one,
// pos(i) for another, dup(f, i) for a name already used (used holds the
// names taken before, such as a discriminant). A literal's name is "".
func fieldNames(fields []*tupleField, used map[string]bool, name func(string) string, pos func(int) string, dup func(string, int) string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		if f.literal {
			continue
		}
		n := pos(f.index)
		if f.t.Label != "" {
			n = name(f.t.Label)
		}
		if used[n] {
			n = dup(n, f.index)
		}
		used[n] = true
		out[i] = n
	}
	return out
}

// tagged reports whether every alternative is a tuple whose first element
// is a distinct literal, and returns the tags: "i" or "s" and the text.
func tagged(alts []*contract.Type) ([]string, bool) {
	seen := map[string]bool{}
	var tags []string
	for _, a := range alts {
		if a.Kind != contract.Tuple || len(a.Elems) == 0 {
			return nil, false
		}
		first := a.Elems[0]
		var tag string
		switch first.Kind {
		case contract.IntLit:
			tag = "i" + strconv.FormatInt(first.Int, 10)
		case contract.StrLit:
			tag = "s" + first.Str
		default:
			return nil, false
		}
		if seen[tag] {
			return nil, false
		}
		seen[tag] = true
		tags = append(tags, tag)
	}
	return tags, true
}

func isLiteral(t *contract.Type) bool {
	switch t.Kind {
	case contract.IntLit, contract.StrLit, contract.StatLit, contract.Nil:
		return true
	}
	return false
}

// keyChecks lists what c's placeholder values must pass so that every key
// is built as its template says: the declared non_empty and pattern, and
// what keeps each template's hash tag the tag Redis hashes. A template's
// hash tag is the text between its first literal '{' and the first literal
// '}' after it; a value put before that '{' must hold no '{' (it would
// start the tag earlier), one inside the tag no '}' (it would end it
// earlier), and a tag made of placeholders only must not come out empty
// (Redis then hashes the whole key). A template without such a tag hashes
// the whole key: its values are not restricted.
func keyChecks(c *manifest.Caller, params []string) []*keyCheck {
	noOpen := map[string]string{}  // placeholder -> the first template it would open early
	noClose := map[string]string{} // placeholder -> the first template it would close early
	var empties []*keyCheck
	seenEmpty := map[string]bool{}
	for _, k := range c.Keys {
		segs := templateSegments(k.Template)
		open, close := tagBounds(segs)
		if open < 0 {
			continue
		}
		var inside []string
		literal := false
		for i, s := range segs {
			switch {
			case s.placeholder && i < open:
				if _, ok := noOpen[s.text]; !ok {
					noOpen[s.text] = k.Template
				}
			case s.placeholder && i < close:
				if _, ok := noClose[s.text]; !ok {
					noClose[s.text] = k.Template
				}
				inside = append(inside, s.text)
			case !s.placeholder && i >= open && i <= close:
				literal = literal || tagPart(s.text, i == open, i == close) != ""
			}
		}
		if key := fmt.Sprint(inside); !literal && len(inside) > 0 && !seenEmpty[key] {
			seenEmpty[key] = true
			reason := fmt.Sprintf("must not be empty: it is the whole hash tag of %s, and Redis hashes the whole key for an empty tag", k.Template)
			if len(inside) > 1 {
				reason = fmt.Sprintf("must not all be empty: they are the whole hash tag of %s, and Redis hashes the whole key for an empty tag", k.Template)
			}
			empties = append(empties, &keyCheck{kind: checkTagNonEmpty, params: inside, reason: reason})
		}
	}
	// A value reaching the hash tag checks passed the declared ones: a
	// tag check the declared values cannot fail is left out.
	sets := map[string]*valueset.Set{}
	for _, p := range params {
		ph := c.Placeholders[p]
		set, err := valueset.New(ph.Pattern, ph.NonEmpty, false)
		if err != nil {
			set = &valueset.Set{} // the manifest compiled it; not reached
		}
		sets[p] = set
	}
	var out []*keyCheck
	for _, p := range params {
		ph, declared := c.Placeholders[p]
		field := "placeholders." + p
		if declared && ph.NonEmpty {
			out = append(out, &keyCheck{kind: checkNonEmpty, params: []string{p}, reason: "must not be empty (" + field + ".non_empty)"})
		}
		if declared && ph.Pattern != "" {
			out = append(out, &keyCheck{kind: checkPattern, params: []string{p}, pattern: ph.Pattern, reason: fmt.Sprintf("must match %s (%s.pattern)", ph.Pattern, field)})
		}
		if t, ok := noOpen[p]; ok && sets[p].MayContain('{') {
			out = append(out, &keyCheck{kind: checkNoOpen, params: []string{p}, reason: fmt.Sprintf("must not hold '{': it comes before the hash tag of %s and would start another", t)})
		}
		if t, ok := noClose[p]; ok && sets[p].MayContain('}') {
			out = append(out, &keyCheck{kind: checkNoClose, params: []string{p}, reason: fmt.Sprintf("must not hold '}': it is inside the hash tag of %s and would end it early", t)})
		}
	}
	for _, e := range empties {
		mayBeEmpty := true
		for _, p := range e.params {
			mayBeEmpty = mayBeEmpty && sets[p].MayBeEmpty()
		}
		if mayBeEmpty {
			out = append(out, e)
		}
	}
	return out
}

// tagBounds returns the indexes of the literal segments holding a
// template's hash tag's '{' and '}' (the first '{', the first '}' after
// it; the same segment when the tag is literal), or -1, -1 when the
// template has no such tag.
func tagBounds(segs []segment) (open, close int) {
	open = -1
	for i, s := range segs {
		if s.placeholder {
			continue
		}
		text := s.text
		if open < 0 {
			j := strings.IndexByte(text, '{')
			if j < 0 {
				continue
			}
			open = i
			text = text[j+1:]
		}
		if strings.IndexByte(text, '}') >= 0 {
			return open, i
		}
	}
	return -1, -1
}

// tagPart is the part of literal segment text inside the hash tag: after
// its '{' when it opens the tag, before its '}' when it closes it.
func tagPart(text string, opens, closes bool) string {
	if opens {
		text = text[strings.IndexByte(text, '{')+1:]
	}
	if closes {
		text = text[:strings.IndexByte(text, '}')]
	}
	return text
}
