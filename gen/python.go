package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/manifest"
)

// pyGen writes one Python binding.
type pyGen struct {
	m     *manifest.Manifest
	decls bytes.Buffer
	errs  map[string]string
	order []string
	decs  map[string]string
	n     int
}

var pyKeywords = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true, "self": true, "keys": true, "args": true, "kind": true}

// pyName is a snake_case identifier for a manifest name.
func pyName(s string) string {
	s = strings.ReplaceAll(s, "-", "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "x" + s
	}
	if pyKeywords[s] {
		s += "_"
	}
	return s
}

func pyString(s string) string { return jsString(s) } // JSON strings are Python string literals

func generatePython(m *manifest.Manifest, sum *manifest.Sum) ([]File, error) {
	g := &pyGen{m: m, errs: map[string]string{}, decs: map[string]string{}}
	shas := map[string]string{}
	for _, e := range sum.Version(m.Version) {
		shas[e.Script] = e.SHA
	}
	var scripts, sync, async, callers bytes.Buffer
	for _, s := range m.Scripts {
		g.script(&scripts, &sync, &async, s, shas[s.Name])
	}
	for _, c := range m.Callers {
		g.caller(&sync, &async, &callers, c)
	}
	mode := "scripts"
	if m.Deploy == manifest.DeployFunctions {
		mode = "functions"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\"\"\"Calls the scripts of library %s, version %d (see docs/bindings.md of scriptctl).\"\"\"\n\n", Header(m), m.Library, m.Version)
	b.WriteString("from __future__ import annotations\n\nimport dataclasses\nfrom typing import Any, Callable, Final, List, Literal, Optional, Protocol, Tuple, TypeVar, Union\n")
	b.WriteString(pyRuntime)
	fmt.Fprintf(&b, "\n\nLIBRARY: Final = %s\nVERSION: Final = %d\n# How a client calls the scripts unless told otherwise: the manifest says deploy: %s.\nDEFAULT_MODE: Final = %q\n\n", pyString(m.Library), m.Version, m.Deploy, mode)
	for _, p := range g.order {
		fmt.Fprintf(&b, "%s: Final = DeclaredError(%s)\n", g.errs[p], pyString(p))
	}
	b.WriteString("\n")
	b.Write(scripts.Bytes())
	b.Write(g.decls.Bytes())
	b.WriteString("\nclass Client:\n    \"\"\"Calls the library's scripts over a Conn.\"\"\"\n\n    def __init__(self, conn: Conn, mode: str = DEFAULT_MODE) -> None:\n        self._core = _Core(conn, mode)\n")
	b.Write(sync.Bytes())
	b.WriteString("\n\nclass AsyncClient:\n    \"\"\"Calls the library's scripts over an AsyncConn.\"\"\"\n\n    def __init__(self, conn: AsyncConn, mode: str = DEFAULT_MODE) -> None:\n        self._core = _AsyncCore(conn, mode)\n")
	b.Write(async.Bytes())
	b.WriteString("\n")
	b.Write(callers.Bytes())
	return []File{{Name: GoPackage(m.Library) + ".py", Data: b.Bytes()}}, nil
}

func (g *pyGen) script(w, sync, async *bytes.Buffer, s *manifest.Script, sha string) {
	n := camel(s.Name)
	fmt.Fprintf(w, "%s_SHA1: Final = %q\n\n_SCRIPT_%s = _Script(\n    name=%s,\n    sha=%s_SHA1,\n    fn=%s,\n    read_only=%s,\n    idempotent=%s,\n    any_slot=%s,\n    body=%s,\n)\n\n",
		strings.ToUpper(s.Name), sha, strings.ToUpper(s.Name), pyString(s.Name), strings.ToUpper(s.Name), pyString(g.m.FunctionName(s.Name)),
		pyBool(s.HasFlag("no-writes")), pyBool(s.Idempotent), pyBool(s.HasFlag("no-cluster")), pyString(string(s.Source)))
	var errVars []string
	var succ *contract.Type
	if s.Reply != nil {
		for _, e := range s.Reply.Errors() {
			if e.Str == "" {
				continue
			}
			v, ok := g.errs[e.Str]
			if !ok {
				v = "Err" + errName(e)
				g.errs[e.Str] = v
				g.order = append(g.order, e.Str)
			}
			errVars = append(errVars, v)
		}
		succ = s.Reply.Success()
	}
	typ, dec := "object", "_decode_any"
	if s.Reply != nil {
		if succ != nil {
			t, d := g.pyType(succ, n+"Reply", n)
			fmt.Fprintf(&g.decls, "%sReply = %s\n\n", n, t)
			typ, dec = n+"Reply", d
		} else {
			typ = "None"
		}
	}
	var params, keys, args []string
	for _, k := range s.Keys {
		params = append(params, pyName(k+"_key")+": str")
		keys = append(keys, pyName(k+"_key"))
	}
	for _, a := range s.Args {
		params = append(params, pyName(a)+": str")
		args = append(args, pyName(a))
	}
	sig := strings.Join(append([]string{"self"}, params...), ", ")
	call := fmt.Sprintf("(_SCRIPT_%s, [%s], [%s], [%s])", strings.ToUpper(s.Name), strings.Join(keys, ", "), strings.Join(args, ", "), strings.Join(errVars, ", "))
	doc := fmt.Sprintf("Calls script %s (%s); keys %s, then args %s.", s.Name, s.File, strings.Join(s.Keys, ", "), strings.Join(s.Args, ", "))
	for _, w := range []struct {
		b     *bytes.Buffer
		def   string
		await string
	}{{sync, "def", ""}, {async, "async def", "await "}} {
		fmt.Fprintf(w.b, "\n    %s %s(%s) -> %s:\n        \"\"\"%s\"\"\"\n        v = %sself._core.call%s\n", w.def, pyName(s.Name), sig, typ, doc, w.await, call)
		if typ == "None" {
			w.b.WriteString("        del v\n")
		} else {
			fmt.Fprintf(w.b, "        return _decode(_SCRIPT_%s, v, %s)\n", strings.ToUpper(s.Name), dec)
		}
	}
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func (g *pyGen) decoder(typ, body string) string {
	key := typ + "\n" + body
	if n, ok := g.decs[key]; ok {
		return n
	}
	g.n++
	n := fmt.Sprintf("_decode%d", g.n)
	g.decs[key] = n
	fmt.Fprintf(&g.decls, "def %s(v: object, path: str) -> %s:\n%s\n\n", n, typ, body)
	return n
}

func pyLiteral(t *contract.Type) string {
	switch t.Kind {
	case contract.IntLit:
		return strconv.FormatInt(t.Int, 10)
	case contract.Nil:
		return "None"
	}
	return pyString(t.Str)
}

func (g *pyGen) pyType(t *contract.Type, name, prefix string) (string, string) {
	switch t.Kind {
	case contract.Integer:
		return "int", "_decode_integer"
	case contract.String, contract.Status:
		return "str", "_decode_string"
	case contract.Boolean:
		return "bool", "_decode_boolean"
	case contract.Double:
		return "float", "_decode_double"
	case contract.Any:
		return "object", "_decode_any"
	case contract.Nil:
		return "None", g.decoder("None", "    _expect(v, path, None)\n    return None")
	case contract.IntLit, contract.StrLit, contract.StatLit:
		lit := pyLiteral(t)
		typ := "Literal[" + lit + "]"
		return typ, g.decoder(typ, fmt.Sprintf("    _expect(v, path, %s)\n    return %s", lit, lit))
	case contract.Array:
		et, ed := g.pyType(t.Elem, name+"Elem", prefix)
		typ := "List[" + et + "]"
		return typ, g.decoder(typ, fmt.Sprintf("    return [%s(e, path + \"[%%d]\" %% i) for i, e in enumerate(_array(v, path, -1, %s))]", ed, pyString(t.Plain())))
	case contract.Tuple:
		return g.tuple(t, name, prefix, "")
	case contract.Union:
		return g.union(t, name, prefix)
	}
	return "object", "_decode_any"
}

func (g *pyGen) tuple(t *contract.Type, name, prefix, kind string) (string, string) {
	var fields, body bytes.Buffer
	fmt.Fprintf(&body, "    a = _array(v, path, %d, %s)\n", len(t.Elems), pyString(t.Plain()))
	var build []string
	used := map[string]bool{}
	for i, e := range t.Elems {
		at := fmt.Sprintf("path + \"[%d]\"", i)
		if isLiteral(e) {
			fmt.Fprintf(&body, "    _expect(a[%d], %s, %s)\n", i, at, pyLiteral(e))
			continue
		}
		f := fmt.Sprintf("e%d", i)
		if e.Label != "" {
			f = pyName(e.Label)
		}
		if used[f] {
			f = fmt.Sprintf("%s_e%d", f, i)
		}
		used[f] = true
		et, ed := g.pyType(e, name+camel(f), prefix)
		fmt.Fprintf(&fields, "    %s: %s  # reply[%d]: %s\n", f, et, i, e.Plain())
		build = append(build, fmt.Sprintf("%s=%s(a[%d], %s)", f, ed, i, at))
	}
	if kind != "" {
		fmt.Fprintf(&fields, "    kind: Literal[%s] = %s\n", pyString(kind), pyString(kind))
	}
	if fields.Len() == 0 {
		fields.WriteString("    pass\n")
	}
	fmt.Fprintf(&body, "    return %s(%s)", name, strings.Join(build, ", "))
	fmt.Fprintf(&g.decls, "@dataclasses.dataclass(frozen=True)\nclass %s:\n    \"\"\"The reply %s.\"\"\"\n\n%s\n\n", name, t.Plain(), fields.String())
	dec := "_decode_" + name
	fmt.Fprintf(&g.decls, "def %s(v: object, path: str) -> %s:\n%s\n\n", dec, name, body.String())
	return name, dec
}

func (g *pyGen) union(t *contract.Type, name, prefix string) (string, string) {
	alts := t.Alts
	if len(alts) == 2 && (alts[0].Kind == contract.Nil) != (alts[1].Kind == contract.Nil) {
		other := alts[0]
		if other.Kind == contract.Nil {
			other = alts[1]
		}
		et, ed := g.pyType(other, name, prefix)
		typ := "Optional[" + et + "]"
		return typ, g.decoder(typ, fmt.Sprintf("    return None if v is None else %s(v, path)", ed))
	}
	all := func(k contract.Kind) bool {
		for _, a := range alts {
			if a.Kind != k {
				return false
			}
		}
		return true
	}
	if all(contract.IntLit) || all(contract.StrLit) {
		lits := make([]string, len(alts))
		for i, a := range alts {
			lits[i] = pyLiteral(a)
			n := ""
			switch {
			case a.Label != "":
				n = a.Label
			case a.Kind == contract.IntLit:
				n = "v" + strings.ToLower(intName(a.Int))
			default:
				n = strings.ToLower(literalName(a.Str))
			}
			fmt.Fprintf(&g.decls, "%s_%s: Final = %s\n", strings.ToUpper(prefix), strings.ToUpper(strings.ReplaceAll(n, "-", "_")), lits[i])
		}
		typ := "Literal[" + strings.Join(lits, ", ") + "]"
		var body strings.Builder
		for _, l := range lits {
			fmt.Fprintf(&body, "    if v == %s and not isinstance(v, bool):\n        return %s\n", l, l)
		}
		fmt.Fprintf(&body, "    raise _Mismatch(path, %s)", pyString(t.Plain()))
		return typ, g.decoder(typ, body.String())
	}
	if tags, ok := tagged(alts); ok {
		var types []string
		var body strings.Builder
		body.WriteString("    if isinstance(v, list) and v:\n")
		for i, a := range alts {
			kind := tags[i][1:]
			if a.Label != "" {
				kind = a.Label
			}
			vn := variantNames(alts, tags, prefix)[i]
			vt, vd := g.tuple(a, vn, vn, kind)
			types = append(types, vt)
			fmt.Fprintf(&body, "        if v[0] == %s:\n            return %s(v, path)\n", pyLiteral(a.Elems[0]), vd)
		}
		fmt.Fprintf(&body, "    raise _Mismatch(path, %s)", pyString(t.Plain()))
		typ := "Union[" + strings.Join(types, ", ") + "]"
		return typ, g.decoder(typ, body.String())
	}
	var body strings.Builder
	for i, a := range alts {
		_, ad := g.pyType(a, fmt.Sprintf("%sAlt%d", name, i+1), prefix)
		fmt.Fprintf(&body, "    try:\n        %s(v, path)\n        return v\n    except _Mismatch:\n        pass\n", ad)
	}
	fmt.Fprintf(&body, "    raise _Mismatch(path, %s)", pyString(t.Plain()))
	return "object", g.decoder("object", body.String())
}

func (g *pyGen) caller(sync, async, w *bytes.Buffer, c *manifest.Caller) {
	n := camel(c.Name)
	var params []string
	seen := map[string]bool{}
	for _, k := range c.Keys {
		for _, seg := range templateSegments(k.Template) {
			if seg.placeholder && !seen[seg.text] {
				seen[seg.text] = true
				params = append(params, seg.text)
			}
		}
	}
	sig := []string{"self"}
	pass := []string{"self"}
	for _, p := range params {
		sig = append(sig, pyName(p)+": str")
		pass = append(pass, pyName(p))
	}
	for _, v := range []struct {
		b      *bytes.Buffer
		class  string
		client string
		def    string
		await  string
	}{{sync, n + "Caller", "Client", "def", ""}, {async, "Async" + n + "Caller", "AsyncClient", "async def", "await "}} {
		fmt.Fprintf(v.b, "\n    def for_%s(%s) -> %s:\n        \"\"\"Caller %s's scripts, with its keys built from %s.\"\"\"\n        return %s(%s)\n", pyName(c.Name), strings.Join(sig, ", "), v.class, c.Name, strings.Join(params, ", "), v.class, strings.Join(pass, ", "))
		fmt.Fprintf(w, "\nclass %s:\n    \"\"\"Calls the scripts of caller %s with its key templates.\"\"\"\n\n    def __init__(self, c: %s%s) -> None:\n        self._c = c\n", v.class, c.Name, v.client, prefixJoin(", ", sig[1:]))
		for _, p := range params {
			fmt.Fprintf(w, "        self._%s = %s\n", pyName(p), pyName(p))
		}
		for _, sn := range c.Scripts {
			s := g.m.Script(sn)
			if s == nil {
				continue
			}
			var keys, argsSig, argsPass []string
			for _, k := range s.Keys {
				tmpl, _ := c.Template(k)
				var parts []string
				for _, seg := range templateSegments(tmpl) {
					if seg.placeholder {
						parts = append(parts, "self._"+pyName(seg.text))
					} else {
						parts = append(parts, pyString(seg.text))
					}
				}
				if len(parts) == 0 {
					parts = []string{`""`}
				}
				keys = append(keys, strings.Join(parts, " + "))
			}
			for _, a := range s.Args {
				argsSig = append(argsSig, pyName(a)+": str")
				argsPass = append(argsPass, pyName(a))
			}
			ret := "object"
			if s.Reply != nil {
				if s.Reply.Success() == nil {
					ret = "None"
				} else {
					ret = camel(s.Name) + "Reply"
				}
			}
			retKw := "return "
			if ret == "None" {
				retKw = ""
			}
			fmt.Fprintf(w, "\n    %s %s(%s) -> %s:\n        %s%sself._c.%s(%s)\n", v.def, pyName(s.Name), strings.Join(append([]string{"self"}, argsSig...), ", "), ret, retKw, v.await, pyName(s.Name), strings.Join(append(keys, argsPass...), ", "))
		}
		w.WriteString("\n")
	}
}
