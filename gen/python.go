package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/manifest"
)

// pyGen writes one Python binding.
type pyGen struct {
	lib   *library
	decls bytes.Buffer
	decs  map[string]string
	n     int
}

var pyKeywords = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true, "self": true, "keys": true, "args": true, "kind": true}
}}

// pyName is a snake_case identifier for a manifest name.
func pyName(s string) string {
	s = strings.ReplaceAll(s, "-", "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "x" + s
	}
	if pyKeywords.Get()[s] {
		s += "_"
	}
	return s
}

func pyString(s string) string { return jsString(s) } // JSON strings are Python string literals

func generatePython(m *manifest.Manifest, sum *manifest.Sum) ([]File, error) {
	lib := newLibrary(m, sum)
	g := &pyGen{lib: lib, decs: map[string]string{}}
	var scripts, sync, async, callers bytes.Buffer
	for _, s := range lib.scripts {
		g.script(&scripts, &sync, &async, s)
	}
	for _, c := range lib.callers {
		g.caller(&sync, &async, &callers, c)
	}
	mode := lib.mode
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\"\"\"Calls the scripts of library %s, version %d (see docs/bindings.md of scriptctl).\"\"\"\n\n", Header(m), m.Library, m.Version)
	imports := "import dataclasses\n"
	for _, c := range lib.callers {
		for _, k := range c.checks {
			if k.kind == checkPattern {
				imports = "import dataclasses\nimport re\n"
			}
		}
	}
	b.WriteString("from __future__ import annotations\n\n" + imports + "from typing import Any, Callable, Final, List, Literal, Optional, Protocol, Tuple, TypeVar, Union\n")
	b.WriteString(pyRuntime)
	fmt.Fprintf(&b, "\n\nLIBRARY: Final = %s\nVERSION: Final = %d\n# How a client calls the scripts unless told otherwise: the manifest says deploy: %s.\nDEFAULT_MODE: Final = %q\n\n", pyString(m.Library), m.Version, m.Deploy, mode)
	for _, d := range lib.errors {
		fmt.Fprintf(&b, "%s: Final = DeclaredError(%s)\n", d.name, pyString(d.prefix))
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

func (g *pyGen) script(w, sync, async *bytes.Buffer, sm *scriptModel) {
	s, sha := sm.s, sm.sha
	n := camel(s.Name)
	fmt.Fprintf(w, "%s_SHA1: Final = %q\n\n_SCRIPT_%s = _Script(\n    name=%s,\n    sha=%s_SHA1,\n    fn=%s,\n    read_only=%s,\n    idempotent=%s,\n    any_slot=%s,\n    body=%s,\n)\n\n",
		strings.ToUpper(s.Name), sha, strings.ToUpper(s.Name), pyString(s.Name), strings.ToUpper(s.Name), pyString(sm.function),
		pyBool(sm.readOnly), pyBool(sm.idempotent), pyBool(sm.anySlot), pyString(string(s.Source)))
	var errVars []string
	for _, d := range sm.errs {
		errVars = append(errVars, d.name)
	}
	typ, dec := "object", "_decode_any"
	if sm.contract {
		if sm.reply != nil {
			t, d := g.pyType(sm.reply, n+"Reply", n)
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

func (g *pyGen) pyType(sh *shape, name, prefix string) (string, string) {
	t := sh.t
	switch sh.kind {
	case shapeScalar:
		switch t.Kind {
		case contract.Integer:
			return "int", "_decode_integer"
		case contract.String, contract.Status:
			return "str", "_decode_string"
		case contract.Boolean:
			return "bool", "_decode_boolean"
		case contract.Double:
			return "float", "_decode_double"
		}
		return "object", "_decode_any"
	case shapeLiteral:
		if t.Kind == contract.Nil {
			return "None", g.decoder("None", "    _expect(v, path, None)\n    return None")
		}
		lit := pyLiteral(t)
		typ := "Literal[" + lit + "]"
		return typ, g.decoder(typ, fmt.Sprintf("    _expect(v, path, %s)\n    return %s", lit, lit))
	case shapeArray:
		et, ed := g.pyType(sh.elem, name+"Elem", prefix)
		typ := "List[" + et + "]"
		return typ, g.decoder(typ, fmt.Sprintf("    return [%s(e, path + \"[%%d]\" %% i) for i, e in enumerate(_array(v, path, -1, %s))]", ed, pyString(t.Plain())))
	case shapeTuple:
		return g.tuple(sh, name, prefix, "")
	case shapeOptional:
		et, ed := g.pyType(sh.elem, name, prefix)
		typ := "Optional[" + et + "]"
		return typ, g.decoder(typ, fmt.Sprintf("    return None if v is None else %s(v, path)", ed))
	case shapeEnum:
		alts := t.Alts
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
	case shapeTagged:
		var types []string
		var body strings.Builder
		body.WriteString("    if isinstance(v, list) and v:\n")
		for _, v := range sh.variants {
			vn := prefix + v.suffix
			vt, vd := g.tuple(v.tuple, vn, vn, v.kind)
			types = append(types, vt)
			fmt.Fprintf(&body, "        if v[0] == %s:\n            return %s(v, path)\n", pyLiteral(v.tag), vd)
		}
		fmt.Fprintf(&body, "    raise _Mismatch(path, %s)", pyString(t.Plain()))
		typ := "Union[" + strings.Join(types, ", ") + "]"
		return typ, g.decoder(typ, body.String())
	case shapeAnyOf:
		var body strings.Builder
		for i, a := range sh.alts {
			_, ad := g.pyType(a, fmt.Sprintf("%sAlt%d", name, i+1), prefix)
			fmt.Fprintf(&body, "    try:\n        %s(v, path)\n        return v\n    except _Mismatch:\n        pass\n", ad)
		}
		fmt.Fprintf(&body, "    raise _Mismatch(path, %s)", pyString(t.Plain()))
		return "object", g.decoder("object", body.String())
	}
	return "object", "_decode_any"
}

func (g *pyGen) tuple(sh *shape, name, prefix, kind string) (string, string) {
	t := sh.t
	var fields, body bytes.Buffer
	fmt.Fprintf(&body, "    a = _array(v, path, %d, %s)\n", len(t.Elems), pyString(t.Plain()))
	var build []string
	names := fieldNames(sh.fields, map[string]bool{}, pyName, func(i int) string { return fmt.Sprintf("e%d", i) }, func(f string, i int) string { return fmt.Sprintf("%s_e%d", f, i) })
	for k, fd := range sh.fields {
		i, e := fd.index, fd.t
		at := fmt.Sprintf("path + \"[%d]\"", i)
		if fd.literal {
			fmt.Fprintf(&body, "    _expect(a[%d], %s, %s)\n", i, at, pyLiteral(e))
			continue
		}
		f := names[k]
		et, ed := g.pyType(fd.shape, name+camel(f), prefix)
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

func (g *pyGen) caller(sync, async, w *bytes.Buffer, cm *callerModel) {
	c, params := cm.c, cm.params
	n := camel(c.Name)
	sig := []string{"self"}
	pass := []string{"self"}
	for _, p := range params {
		sig = append(sig, pyName(p)+": str")
		pass = append(pass, pyName(p))
	}
	check := ""
	if len(cm.checks) > 0 {
		check = "_check_" + pyName(strings.ReplaceAll(c.Name, "-", "_"))
		var body strings.Builder
		for _, k := range cm.checks {
			p := pyName(k.params[0])
			var cond string
			switch k.kind {
			case checkNonEmpty:
				cond = p + ` == ""`
			case checkPattern:
				v := "_PATTERN_" + strings.ToUpper(pyName(strings.ReplaceAll(c.Name, "-", "_"))+"_"+k.params[0])
				src, err := translatePattern(k.pattern, patternPython)
				if err != nil {
					src = "(?!)" // the manifest compiled it; not reached
				}
				fmt.Fprintf(w, "\n# placeholders.%s.pattern of caller %s: %s\n%s: Final = re.compile(%s)\n", k.params[0], c.Name, strings.ReplaceAll(k.pattern, "\n", " "), v, pyString(src))
				cond = v + ".search(" + p + ") is None"
			case checkNoOpen:
				cond = `"{" in ` + p
			case checkNoClose:
				cond = `"}" in ` + p
			case checkTagNonEmpty:
				var parts []string
				for _, q := range k.params {
					parts = append(parts, pyName(q)+` == ""`)
				}
				cond = strings.Join(parts, " and ")
			}
			value := p
			if len(k.params) > 1 {
				value = `""`
			}
			fmt.Fprintf(&body, "    if %s:\n        raise PlaceholderError(%s, %s, %s, %s)\n", cond, pyString(c.Name), pyString(strings.Join(k.params, ", ")), value, pyString(k.reason))
		}
		fmt.Fprintf(w, "\n\ndef %s(%s) -> None:\n    \"\"\"Raises PlaceholderError for a value caller %s's placeholders refuse or that would break a key's hash tag.\"\"\"\n%s\n", check, strings.Join(sig[1:], ", "), c.Name, body.String())
	}
	for _, v := range []struct {
		b      *bytes.Buffer
		class  string
		client string
		def    string
		await  string
	}{{sync, n + "Caller", "Client", "def", ""}, {async, "Async" + n + "Caller", "AsyncClient", "async def", "await "}} {
		fmt.Fprintf(v.b, "\n    def for_%s(%s) -> %s:\n        \"\"\"Caller %s's scripts, with its keys built from %s.\"\"\"\n        return %s(%s)\n", pyName(c.Name), strings.Join(sig, ", "), v.class, c.Name, strings.Join(params, ", "), v.class, strings.Join(pass, ", "))
		fmt.Fprintf(w, "\nclass %s:\n    \"\"\"Calls the scripts of caller %s with its key templates.\"\"\"\n\n    def __init__(self, c: %s%s) -> None:\n", v.class, c.Name, v.client, prefixJoin(", ", sig[1:]))
		if check != "" {
			fmt.Fprintf(w, "        %s(%s)\n", check, strings.Join(pass[1:], ", "))
		}
		w.WriteString("        self._c = c\n")
		for _, p := range params {
			fmt.Fprintf(w, "        self._%s = %s\n", pyName(p), pyName(p))
		}
		for _, cs := range cm.scripts {
			s := cs.s.s
			var keys, argsSig, argsPass []string
			for i := range s.Keys {
				var parts []string
				for _, seg := range cs.keys[i] {
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
			if cs.s.contract {
				if cs.s.reply == nil {
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
