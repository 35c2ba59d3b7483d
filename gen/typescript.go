package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/manifest"
)

// tsGen writes one TypeScript binding.
type tsGen struct {
	lib   *library
	decls bytes.Buffer
	decs  map[string]string // decoder body -> name
	n     int
}

func generateTS(m *manifest.Manifest, sum *manifest.Sum) ([]File, error) {
	lib := newLibrary(m, sum)
	g := &tsGen{lib: lib, decs: map[string]string{}}
	var scripts, methods, callers bytes.Buffer
	for _, s := range lib.scripts {
		g.script(&scripts, &methods, s)
	}
	for _, c := range lib.callers {
		g.caller(&methods, &callers, c)
	}
	mode := lib.mode
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n//\n// Calls the scripts of library %s, version %d. See docs/bindings.md of scriptctl.\n/* eslint-disable */\n", Header(m), m.Library, m.Version)
	b.WriteString(tsRuntime)
	b.WriteString("\n")
	fmt.Fprintf(&b, "export const LIBRARY = %q;\nexport const VERSION = %d;\n/** How a Client calls the scripts unless told otherwise: the manifest says deploy: %s. */\nexport const DEFAULT_MODE: Mode = %q;\n\n", m.Library, m.Version, m.Deploy, mode)
	if len(lib.errors) > 0 {
		b.WriteString("// The error replies the scripts' contracts declare: err.declared === ErrX.\n")
		for _, d := range lib.errors {
			fmt.Fprintf(&b, "export const %s = new DeclaredError(%s);\n", d.name, jsString(d.prefix))
		}
		b.WriteString("\n")
	}
	b.Write(scripts.Bytes())
	b.Write(g.decls.Bytes())
	b.WriteString("/** Calls the library's scripts over a Conn. */\nexport class Client {\n  private readonly core: Core;\n\n  constructor(conn: Conn, opts: { mode?: Mode } = {}) {\n    this.core = new Core(conn, opts.mode ?? DEFAULT_MODE);\n  }\n")
	b.Write(methods.Bytes())
	b.WriteString("}\n\n")
	b.Write(callers.Bytes())
	return []File{{Name: GoPackage(m.Library) + ".ts", Data: b.Bytes()}}, nil
}

func jsString(s string) string {
	out, _ := json.Marshal(s)
	return string(out)
}

func (g *tsGen) script(w, methods *bytes.Buffer, sm *scriptModel) {
	s, sha := sm.s, sm.sha
	n := camel(s.Name)
	fmt.Fprintf(w, "/** The keys of script %s, in KEYS order. */\nexport interface %sKeys {\n", s.Name, n)
	for _, k := range s.Keys {
		fmt.Fprintf(w, "  %s: string;\n", tsField(k))
	}
	fmt.Fprintf(w, "}\n\n/** The arguments of script %s, in ARGV order. */\nexport interface %sArgs {\n", s.Name, n)
	for _, a := range s.Args {
		fmt.Fprintf(w, "  %s: string;\n", tsField(a))
	}
	w.WriteString("}\n\n")
	fmt.Fprintf(w, "/** The SHA1 of script %s as released in version %d (scripts.sum). */\nexport const %sSHA1 = %q;\n\n", s.Name, g.lib.m.Version, n, sha)
	fmt.Fprintf(w, "const script%s: Script = {\n  name: %q,\n  sha: %sSHA1,\n  fn: %q,\n  readOnly: %v,\n  idempotent: %v,\n  anySlot: %v,\n  body: %s,\n};\n\n",
		n, s.Name, n, sm.function, sm.readOnly, sm.idempotent, sm.anySlot, jsString(string(s.Source)))
	var errVars []string
	for _, d := range sm.errs {
		errVars = append(errVars, d.name)
	}
	typ, dec := "Reply", "decodeAny"
	doc := "Its reply has no contract in the manifest: it is returned as is."
	if sm.contract {
		doc = "Its reply contract: " + s.Reply.String()
		if sm.reply != nil {
			typ, dec = g.tsType(sm.reply, n+"Reply", n)
			fmt.Fprintf(&g.decls, "export type %sReply = %s;\n\n", n, typ)
			typ = n + "Reply"
		} else {
			typ = "void"
		}
	}
	keys := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		keys[i] = "keys." + tsField(k)
	}
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = "args." + tsField(a)
	}
	fmt.Fprintf(methods, "\n  /** Calls script %s (%s). %s */\n  async %s(keys: %sKeys, args: %sArgs): Promise<%s> {\n", s.Name, s.File, strings.ReplaceAll(doc, "*/", "* /"), lower(n), n, n, typ)
	fmt.Fprintf(methods, "    const v = await this.core.call(script%s, [%s], [%s], [%s]);\n", n, strings.Join(keys, ", "), strings.Join(args, ", "), strings.Join(errVars, ", "))
	if typ == "void" {
		methods.WriteString("    void v;\n  }\n")
		return
	}
	fmt.Fprintf(methods, "    return decode(script%s, v, %s);\n  }\n", n, dec)
}

func lower(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// tsField is a key's or argument's property name.
func tsField(name string) string {
	c := camel(name)
	if strings.HasPrefix(c, "X") && len(name) > 0 && name[0] >= '0' && name[0] <= '9' {
		return "_" + name
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' })
	if up, ok := initialisms.Get()[strings.ToLower(words[0])]; ok {
		return strings.ToLower(up) + c[len(up):]
	}
	return lower(c)
}

var tsReserved = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true, "debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true, "export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true, "if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true, "return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true, "try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true, "let": true, "static": true, "yield": true, "await": true, "args": true}
}}

func tsParam(name string) string {
	p := tsField(name)
	if tsReserved.Get()[p] {
		p += "_"
	}
	return p
}

// decoder declares a decoder function returning typ with body, sharing
// equal ones.
func (g *tsGen) decoder(typ, body string) string {
	key := typ + "\n" + body
	if n, ok := g.decs[key]; ok {
		return n
	}
	g.n++
	n := fmt.Sprintf("decode%d", g.n)
	g.decs[key] = n
	fmt.Fprintf(&g.decls, "function %s(v: Reply, path: string): %s {\n%s}\n\n", n, typ, body)
	return n
}

func tsLiteral(t *contract.Type) string {
	switch t.Kind {
	case contract.IntLit:
		return strconv.FormatInt(t.Int, 10)
	case contract.Nil:
		return "null"
	}
	return jsString(t.Str)
}

// tsType returns the TypeScript type of sh and its decoder's name.
func (g *tsGen) tsType(sh *shape, name, prefix string) (string, string) {
	t := sh.t
	switch sh.kind {
	case shapeScalar:
		switch t.Kind {
		case contract.Integer:
			return "number", "decodeInteger"
		case contract.String, contract.Status:
			return "string", "decodeString"
		case contract.Boolean:
			return "boolean", "decodeBoolean"
		case contract.Double:
			return "number", "decodeDouble"
		}
		return "Reply", "decodeAny"
	case shapeLiteral:
		lit := tsLiteral(t)
		return lit, g.decoder(lit, fmt.Sprintf("  expect(v, path, %s);\n  return %s;\n", lit, lit))
	case shapeArray:
		et, ed := g.tsType(sh.elem, name+"Elem", prefix)
		typ := "Array<" + et + ">"
		return typ, g.decoder(typ, fmt.Sprintf("  return arrayOf(v, path, -1, %s).map((e, i) => %s(e, path + \"[\" + i + \"]\"));\n", jsString(t.Plain()), ed))
	case shapeTuple:
		return g.tuple(sh, name, prefix, "")
	case shapeOptional:
		et, ed := g.tsType(sh.elem, name, prefix)
		typ := et + " | null"
		return typ, g.decoder(typ, fmt.Sprintf("  return v === null ? null : %s(v, path);\n", ed))
	case shapeEnum:
		alts := t.Alts
		lits := make([]string, len(alts))
		var names []string
		for i, a := range alts {
			lits[i] = tsLiteral(a)
			n := ""
			switch {
			case a.Label != "":
				n = camel(a.Label)
			case a.Kind == contract.IntLit:
				n = "V" + intName(a.Int)
			default:
				n = literalName(a.Str)
			}
			names = append(names, fmt.Sprintf("%s: %s", n, lits[i]))
		}
		typ := strings.Join(lits, " | ")
		fmt.Fprintf(&g.decls, "/** The values of the reply %s. */\nexport const %s = { %s } as const;\n\n", t.Plain(), name, strings.Join(names, ", "))
		return typ, g.decoder(typ, fmt.Sprintf("  for (const x of [%s] as const) if (v === x) return x;\n  throw new Mismatch(path, %s);\n", strings.Join(lits, ", "), jsString(t.Plain())))
	case shapeTagged:
		var types []string
		var body bytes.Buffer
		body.WriteString("  if (Array.isArray(v) && v.length > 0) {\n")
		for _, v := range sh.variants {
			vn := prefix + v.suffix
			vt, vd := g.tuple(v.tuple, vn, vn, v.kind)
			types = append(types, vt)
			fmt.Fprintf(&body, "    if (v[0] === %s) return %s(v, path);\n", tsLiteral(v.tag), vd)
		}
		fmt.Fprintf(&body, "  }\n  throw new Mismatch(path, %s);\n", jsString(t.Plain()))
		typ := strings.Join(types, " | ")
		return typ, g.decoder(typ, body.String())
	case shapeAnyOf:
		var body bytes.Buffer
		for i, a := range sh.alts {
			_, ad := g.tsType(a, fmt.Sprintf("%sAlt%d", name, i+1), prefix)
			fmt.Fprintf(&body, "  try {\n    %s(v, path);\n    return v;\n  } catch {}\n", ad)
		}
		fmt.Fprintf(&body, "  throw new Mismatch(path, %s);\n", jsString(t.Plain()))
		return "Reply", g.decoder("Reply", body.String())
	}
	return "Reply", "decodeAny"
}

// tuple declares an interface for tuple sh; kind, when set, is the
// discriminant of a tagged union.
func (g *tsGen) tuple(sh *shape, name, prefix, kind string) (string, string) {
	t := sh.t
	var fields, body bytes.Buffer
	fmt.Fprintf(&body, "  const a = arrayOf(v, path, %d, %s);\n", len(t.Elems), jsString(t.Plain()))
	var build []string
	if kind != "" {
		fmt.Fprintf(&fields, "  kind: %s;\n", jsString(kind))
		build = append(build, "kind: "+jsString(kind))
	}
	names := fieldNames(sh.fields, map[string]bool{"kind": kind != ""}, tsField, func(i int) string { return fmt.Sprintf("e%d", i) }, func(f string, i int) string { return fmt.Sprintf("%sE%d", f, i) })
	for k, fd := range sh.fields {
		i, e := fd.index, fd.t
		at := fmt.Sprintf("path + \"[%d]\"", i)
		if fd.literal {
			fmt.Fprintf(&body, "  expect(a[%d], %s, %s);\n", i, at, tsLiteral(e))
			continue
		}
		f := names[k]
		et, ed := g.tsType(fd.shape, name+camel(f), prefix)
		fmt.Fprintf(&fields, "  /** reply[%d]: %s */\n  %s: %s;\n", i, e.Plain(), f, et)
		build = append(build, fmt.Sprintf("%s: %s(a[%d], %s)", f, ed, i, at))
	}
	fmt.Fprintf(&body, "  return { %s };\n", strings.Join(build, ", "))
	fmt.Fprintf(&g.decls, "/** The reply %s. */\nexport interface %s {\n%s}\n\n", t.Plain(), name, fields.String())
	dec := "decode" + name
	fmt.Fprintf(&g.decls, "function %s(v: Reply, path: string): %s {\n%s}\n\n", dec, name, body.String())
	return name, dec
}

func (g *tsGen) caller(methods, w *bytes.Buffer, cm *callerModel) {
	c, params := cm.c, cm.params
	n := camel(c.Name)
	sig := make([]string, len(params))
	pass := make([]string, len(params))
	fields := make([]string, len(params))
	for i, p := range params {
		sig[i] = tsParam(p) + ": string"
		pass[i] = tsParam(p)
		fields[i] = "private readonly " + tsParam(p) + ": string"
	}
	fmt.Fprintf(methods, "\n  /** Caller %s's scripts, with its keys built from %s. */\n  for%s(%s): %sCaller {\n    return new %sCaller(%s);\n  }\n", c.Name, strings.Join(params, ", "), n, strings.Join(sig, ", "), n, n, strings.Join(append([]string{"this"}, pass...), ", "))
	var checks strings.Builder
	for _, k := range cm.checks {
		p := tsParam(k.params[0])
		var cond string
		switch k.kind {
		case checkNonEmpty:
			cond = p + ` === ""`
		case checkPattern:
			v := "pattern" + n + camel(k.params[0])
			src, err := translatePattern(k.pattern, patternJS)
			if err != nil {
				src = "(?!)" // the manifest compiled it; not reached
			}
			fmt.Fprintf(w, "/** placeholders.%s.pattern of caller %s: %s */\nconst %s = new RegExp(%s, \"u\");\n\n", k.params[0], c.Name, strings.ReplaceAll(k.pattern, "*/", "*\\/"), v, jsString(src))
			cond = "!" + v + ".test(" + p + ")"
		case checkNoOpen:
			cond = p + `.includes("{")`
		case checkNoClose:
			cond = p + `.includes("}")`
		case checkTagNonEmpty:
			var parts []string
			for _, q := range k.params {
				parts = append(parts, tsParam(q)+` === ""`)
			}
			cond = strings.Join(parts, " && ")
		}
		value := p
		if len(k.params) > 1 {
			value = `""`
		}
		fmt.Fprintf(&checks, "    if (%s) throw new PlaceholderError(%s, %s, %s, %s);\n", cond, jsString(c.Name), jsString(strings.Join(k.params, ", ")), value, jsString(k.reason))
	}
	body := "{}"
	if checks.Len() > 0 {
		body = "{\n" + checks.String() + "  }"
	}
	fmt.Fprintf(w, "/** Calls the scripts of caller %s with its key templates; a value its placeholders refuse, or that would break a key's hash tag, throws a PlaceholderError. */\nexport class %sCaller {\n  constructor(private readonly c: Client%s) %s\n", c.Name, n, prefixJoin(", ", fields), body)
	for _, cs := range cm.scripts {
		s := cs.s.s
		sname := camel(s.Name)
		var keys []string
		for i, k := range s.Keys {
			var parts []string
			for _, seg := range cs.keys[i] {
				if seg.placeholder {
					parts = append(parts, "this."+tsParam(seg.text))
				} else {
					parts = append(parts, jsString(seg.text))
				}
			}
			if len(parts) == 0 {
				parts = []string{`""`}
			}
			keys = append(keys, tsField(k)+": "+strings.Join(parts, " + "))
		}
		fmt.Fprintf(w, "\n  /** Calls script %s with caller %s's keys. */\n  %s(args: %sArgs) {\n    return this.c.%s({ %s }, args);\n  }\n", s.Name, c.Name, lower(sname), sname, lower(sname), strings.Join(keys, ", "))
	}
	w.WriteString("}\n\n")
}

func prefixJoin(sep string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return sep + strings.Join(items, sep)
}
