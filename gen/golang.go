package gen

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/scriptctl/scriptctl/contract"
	"github.com/scriptctl/scriptctl/internal/lazy"
	"github.com/scriptctl/scriptctl/manifest"
)

// goGen writes one Go binding.
type goGen struct {
	lib      *library
	decls    bytes.Buffer      // type declarations and decoders
	names    map[string]string // top-level identifier -> what declared it
	declared map[string]bool   // declared error prefixes
	decs     map[string]string // decoder body -> decoder name, to share equal ones
	n        int               // anonymous decoder counter
	fail     []string          // problems (name collisions)
	// replyTypes is the Go type each script's method returns; "" for
	// a script whose contract has only errors.
	replyTypes map[string]string
	regexp     bool // a key builder checks a pattern
}

// GoPackage is the package name gen go gives library when none is asked
// for: lowercase letters and digits of the library name.
func GoPackage(library string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(library) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && b.Len() > 0 {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "scripts"
	}
	return b.String()
}

func generateGo(m *manifest.Manifest, sum *manifest.Sum, opts Options) ([]File, error) {
	pkg := opts.Package
	if pkg == "" {
		pkg = GoPackage(m.Library)
	}
	if !isGoIdent(pkg) || strings.ToLower(pkg) != pkg {
		return nil, fmt.Errorf("gen: invalid Go package name %q: use lowercase letters and digits", pkg)
	}
	clients := opts.Clients
	if clients == nil {
		clients = GoClients
	}
	for _, c := range clients {
		if !slices.Contains(GoClients, c) {
			return nil, fmt.Errorf("gen: unknown Go client %q: want %s", c, strings.Join(GoClients, ", "))
		}
	}
	lib := newLibrary(m, sum)
	g := &goGen{lib: lib, names: map[string]string{}, declared: map[string]bool{}, decs: map[string]string{}, replyTypes: map[string]string{}}
	for _, n := range []string{"Kind", "Value", "Command", "Conn", "Mode", "Client", "Option", "WithMode", "New", "DefaultMode",
		"DeclaredError", "ScriptError", "ContractError", "CrossSlotError", "ModeScripts", "ModeFunctions", "Library", "Version",
		"NewRueidisConn", "NewGoRedisConn", "GoRedisClient", "PlaceholderError"} {
		g.names[n] = "the runtime"
	}
	for k := range kindNames.Get() {
		g.names[k] = "the runtime"
	}
	var body bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&body, format, args...) }
	mode := "ModeScripts"
	if lib.mode == "functions" {
		mode = "ModeFunctions"
	}
	w("// Library and Version name the manifest this binding was generated from.\n")
	w("const (\n\tLibrary = %q\n\tVersion = %d\n)\n\n", m.Library, m.Version)
	w("// DefaultMode is how a Client calls the scripts unless WithMode says\n// otherwise: the manifest deploys them with deploy: %s.\nconst DefaultMode = %s\n\n", m.Deploy, mode)

	for _, s := range lib.scripts {
		g.script(&body, s)
	}
	for _, c := range lib.callers {
		g.caller(&body, c)
	}
	if len(g.fail) > 0 {
		return nil, fmt.Errorf("gen: %s", strings.Join(g.fail, "; "))
	}

	var errDecl bytes.Buffer
	if len(lib.errors) > 0 {
		errDecl.WriteString("// The error replies the scripts' contracts declare: errors.Is(err, ErrX).\nvar (\n")
		rows := make([][]string, len(lib.errors))
		for i, d := range lib.errors {
			rows[i] = []string{d.name, fmt.Sprintf("= &DeclaredError{Prefix: %q}", d.prefix)}
		}
		alignRows(&errDecl, "\t", rows)
		errDecl.WriteString(")\n\n")
	}

	var out []File
	head := "// " + commentText(Header(m)) + "\n\n"
	var core bytes.Buffer
	core.WriteString(head)
	fmt.Fprintf(&core, "// Package %s calls the scripts of library %s, version %d: one method\n// per script with named keys and args and a typed reply, and one key\n// builder per caller. See docs/bindings.md of scriptctl.\npackage %s\n\n", pkg, m.Library, m.Version, pkg)
	imports := "import (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"strconv\"\n\t\"strings\"\n)\n\n"
	if g.regexp {
		imports = strings.Replace(imports, "\t\"fmt\"\n", "\t\"fmt\"\n\t\"regexp\"\n", 1)
	}
	core.WriteString(imports)
	core.Write(body.Bytes())
	core.Write(errDecl.Bytes())
	core.Write(g.decls.Bytes())
	core.WriteString(goRuntime)
	out = append(out, File{Name: pkg + ".go", Data: core.Bytes()})
	for _, c := range clients {
		var b bytes.Buffer
		b.WriteString(head)
		fmt.Fprintf(&b, "package %s\n\n", pkg)
		switch c {
		case "rueidis":
			b.WriteString("import (\n\t\"context\"\n\t\"encoding/binary\"\n\t\"errors\"\n\t\"fmt\"\n\t\"strconv\"\n\n\t\"github.com/redis/rueidis\"\n)\n")
			b.WriteString(goRueidis)
		case "go-redis":
			b.WriteString("import (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\n\t\"github.com/redis/go-redis/v9\"\n)\n")
			b.WriteString(goGoRedis)
		}
		out = append(out, File{Name: strings.ReplaceAll(c, "-", "") + ".go", Data: b.Bytes()})
	}
	return out, nil
}

var kindNames = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"KindNil": true, "KindInt": true, "KindBulk": true, "KindStatus": true, "KindError": true, "KindArray": true, "KindBool": true, "KindDouble": true}
}}

// declare records a top-level identifier; a second one is a collision.
func (g *goGen) declare(name, what string) string {
	if prev, ok := g.names[name]; ok {
		g.fail = append(g.fail, fmt.Sprintf("%s and %s both need the Go name %s: rename one, or label the alternative", prev, what, name))
	}
	g.names[name] = what
	return name
}

func (g *goGen) script(w *bytes.Buffer, sm *scriptModel) {
	s, sha, version := sm.s, sm.sha, g.lib.m.Version
	n := camel(s.Name)
	what := "script " + s.Name
	keysT := g.declare(n+"Keys", what)
	argsT := g.declare(n+"Args", what)
	varName := "script" + n
	fieldRows := func(names []string, what string) [][]string {
		rows := make([][]string, len(names))
		for i, n := range names {
			rows[i] = []string{camel(n), "string", "// " + what + ": " + n}
		}
		return rows
	}
	fmt.Fprintf(w, "// %s are the keys of script %s, in KEYS order.\ntype %s struct {\n", keysT, s.Name, keysT)
	alignRows(w, "\t", fieldRows(s.Keys, "KEYS"))
	fmt.Fprintf(w, "}\n\n// %s are the arguments of script %s, in ARGV order.\ntype %s struct {\n", argsT, s.Name, argsT)
	alignRows(w, "\t", fieldRows(s.Args, "ARGV"))
	w.WriteString("}\n\n")

	fmt.Fprintf(w, "var %s = script{\n", varName)
	lit := [][]string{
		{"name:", strconv.Quote(s.Name) + ","},
		{"sha:", strconv.Quote(sha) + ",", fmt.Sprintf("// scripts.sum, version %d", version)},
		{"function:", strconv.Quote(sm.function) + ","},
	}
	for _, f := range []struct {
		key string
		on  bool
	}{{"readOnly:", sm.readOnly}, {"idempotent:", sm.idempotent}, {"anySlot:", sm.anySlot}} {
		if f.on {
			lit = append(lit, []string{f.key, "true,"})
		}
	}
	lit = append(lit, []string{"body:", goString(string(s.Source)) + ","})
	scriptLiteral(w, lit)
	w.WriteString("}\n\n")
	fmt.Fprintf(w, "// %sSHA1 is the SHA1 of script %s as released in version %d (scripts.sum).\nconst %s = %q\n\n", n, s.Name, version, g.declare(n+"SHA1", what), sha)

	// The declared errors.
	var errVars []string
	for _, d := range sm.errs {
		if !g.declared[d.prefix] {
			g.declared[d.prefix] = true
			g.declare(d.name, fmt.Sprintf("error %q of %s", d.prefix, s.Name))
		}
		errVars = append(errVars, d.name)
	}
	errList := "nil"
	if len(errVars) > 0 {
		errList = "[]*DeclaredError{" + strings.Join(errVars, ", ") + "}"
	}

	// The reply type.
	typ, dec := "Value", "decodeAny"
	replyDoc := "Its reply has no contract in the manifest: it is returned as is."
	if sm.contract {
		replyDoc = "Its reply contract: " + commentText(s.Reply.String())
		if sm.reply != nil {
			typ, dec = g.goType(sm.reply, n+"Reply", n, what)
		}
	}
	call := fmt.Sprintf("c.call(ctx, &%s, []string{%s}, []string{%s}, %s)", varName, fields("keys.", s.Keys), fields("args.", s.Args), errList)
	fmt.Fprintf(w, "// %s calls script %s (%s).\n// %s\n", n, s.Name, commentText(s.File), replyDoc)
	if sm.contract && sm.reply == nil {
		g.replyTypes[s.Name] = ""
		fmt.Fprintf(w, "func (c *Client) %s(ctx context.Context, keys %s, args %s) error {\n\t_, err := %s\n\treturn err\n}\n\n", n, keysT, argsT, call)
		return
	}
	g.replyTypes[s.Name] = typ
	fmt.Fprintf(w, "func (c *Client) %s(ctx context.Context, keys %s, args %s) (%s, error) {\n", n, keysT, argsT, typ)
	fmt.Fprintf(w, "\tvar zero %s\n\tv, err := %s\n\tif err != nil {\n\t\treturn zero, err\n\t}\n", typ, call)
	fmt.Fprintf(w, "\tr, err := %s(v, \"\")\n\tif err != nil {\n\t\treturn zero, contractError(&%s, v, err)\n\t}\n\treturn r, nil\n}\n\n", dec, varName)
}

func fields(prefix string, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = prefix + camel(n)
	}
	return strings.Join(parts, ", ")
}

// errName names a declared error: its label, else its text without a
// leading "ERR ".
func errName(e *contract.Type) string {
	if e.Label != "" {
		return camel(e.Label)
	}
	text := strings.TrimPrefix(e.Str, "ERR ")
	var words []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) || r > unicode.MaxASCII }) {
		words = append(words, strings.ToLower(f))
	}
	name := camel(strings.Join(words, "_"))
	if name == "" {
		return "Reply"
	}
	return name
}

// goType returns the Go type of sh and the name of its decoder
// func(Value, string) (T, error). name is the name to give a declared type
// (a struct, an enum, a sum), prefix the name its variants and constants
// start with.
func (g *goGen) goType(sh *shape, name, prefix, what string) (typ, dec string) {
	t := sh.t
	switch sh.kind {
	case shapeScalar:
		switch t.Kind {
		case contract.Integer:
			return "int64", "decodeInteger"
		case contract.String:
			return "string", "decodeString"
		case contract.Status:
			return "string", "decodeStatus"
		case contract.Boolean:
			return "bool", "decodeBoolean"
		case contract.Double:
			return "float64", "decodeDouble"
		}
		return "Value", "decodeAny"
	case shapeLiteral:
		// A lone literal carries no data: its Go value is struct{}.
		return "struct{}", g.decoder("struct{}", literalCheck(t, "v", "path", "struct{}{}")+"\treturn struct{}{}, nil\n")
	case shapeArray:
		et, ed := g.goType(sh.elem, name+"Elem", prefix, what)
		body := fmt.Sprintf("\tif v.Kind != KindArray {\n\t\treturn nil, miss(path, %q, v)\n\t}\n\tout := make([]%s, len(v.Elems))\n\tfor i, e := range v.Elems {\n\t\tx, err := %s(e, elemPath(path, i))\n\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t\tout[i] = x\n\t}\n\treturn out, nil\n", t.Plain(), et, ed)
		return "[]" + et, g.decoder("[]"+et, body)
	case shapeTuple:
		return g.tuple(sh, name, prefix, what, "")
	case shapeOptional:
		et, ed := g.goType(sh.elem, name, prefix, what)
		body := fmt.Sprintf("\tif v.Kind == KindNil {\n\t\treturn nil, nil\n\t}\n\tx, err := %s(v, path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn &x, nil\n", ed)
		return "*" + et, g.decoder("*"+et, body)
	case shapeEnum:
		return g.enum(t, name, prefix, what)
	case shapeTagged:
		return g.sum(sh, name, prefix, what)
	case shapeAnyOf:
		// The reply as is, once one alternative matches.
		var body bytes.Buffer
		for i, a := range sh.alts {
			_, ad := g.goType(a, fmt.Sprintf("%sAlt%d", name, i+1), prefix, what)
			fmt.Fprintf(&body, "\tif _, err := %s(v, path); err == nil {\n\t\treturn v, nil\n\t}\n", ad)
		}
		fmt.Fprintf(&body, "\treturn Value{}, miss(path, %q, v)\n", t.Plain())
		return "Value", g.decoder("Value", body.String())
	}
	return "Value", "decodeAny"
}

// literalCheck is the statement that returns an error unless v is the
// literal t.
func literalCheck(t *contract.Type, v, path, zero string) string {
	var call string
	switch t.Kind {
	case contract.IntLit:
		call = fmt.Sprintf("expectInt(%s, %s, %d)", v, path, t.Int)
	case contract.Nil:
		call = fmt.Sprintf("expectNil(%s, %s)", v, path)
	default:
		call = fmt.Sprintf("expectString(%s, %s, %q)", v, path, t.Str)
	}
	return fmt.Sprintf("\tif err := %s; err != nil {\n\t\treturn %s, err\n\t}\n", call, zero)
}

// decoder declares an anonymous decoder returning typ with body, sharing
// one with the same body.
func (g *goGen) decoder(typ, body string) string {
	key := typ + "\n" + body
	if n, ok := g.decs[key]; ok {
		return n
	}
	g.n++
	n := fmt.Sprintf("decode%d", g.n)
	g.decs[key] = n
	fmt.Fprintf(&g.decls, "func %s(v Value, path string) (%s, error) {\n%s}\n\n", n, typ, body)
	return n
}

// tuple declares a struct for tuple sh: a field per element that is not a
// literal, named by its label or its position. method, when set, is the
// sum type's marker method the struct implements.
func (g *goGen) tuple(sh *shape, name, prefix, what, method string) (string, string) {
	t := sh.t
	g.declare(name, what)
	var fieldRows [][]string
	var body bytes.Buffer
	fmt.Fprintf(&body, "\tvar out %s\n\tif v.Kind != KindArray || len(v.Elems) != %d {\n\t\treturn out, miss(path, %q, v)\n\t}\n", name, len(t.Elems), t.Plain())
	names := fieldNames(sh.fields, map[string]bool{}, camel, func(i int) string { return fmt.Sprintf("E%d", i) }, func(f string, i int) string { return fmt.Sprintf("%sE%d", f, i) })
	for k, fd := range sh.fields {
		i, e := fd.index, fd.t
		at := fmt.Sprintf("elemPath(path, %d)", i)
		if fd.literal {
			body.WriteString(literalCheck(e, fmt.Sprintf("v.Elems[%d]", i), at, "out"))
			continue
		}
		f := names[k]
		et, ed := g.goType(fd.shape, name+f, prefix+camel(e.Label), what)
		fieldRows = append(fieldRows, []string{f, et, fmt.Sprintf("// reply[%d]: %s", i, commentText(e.Plain()))})
		fmt.Fprintf(&body, "\tif x, err := %s(v.Elems[%d], %s); err != nil {\n\t\treturn out, err\n\t} else {\n\t\tout.%s = x\n\t}\n", ed, i, at, f)
	}
	body.WriteString("\treturn out, nil\n")
	fmt.Fprintf(&g.decls, "// %s is the reply %s.\ntype %s struct {\n", name, commentText(t.Plain()), name)
	alignRows(&g.decls, "\t", fieldRows)
	g.decls.WriteString("}\n\n")
	if method != "" {
		g.decls.WriteString(markerMethod(name, method))
	}
	dec := "decode" + name
	fmt.Fprintf(&g.decls, "func %s(v Value, path string) (%s, error) {\n%s}\n\n", dec, name, body.String())
	return name, dec
}

// sum declares an interface for a tagged union with one struct per
// alternative.
func (g *goGen) sum(sh *shape, name, prefix, what string) (string, string) {
	t := sh.t
	method := "is" + name
	g.declare(name, what)
	vnames := make([]string, len(sh.variants))
	for i, v := range sh.variants {
		vnames[i] = prefix + v.suffix
	}
	fmt.Fprintf(&g.decls, "// %s is one of the replies %s: %s.\ntype %s interface{ %s() }\n\n", name, commentText(t.Plain()), strings.Join(vnames, ", "), name, method)
	var body bytes.Buffer
	body.WriteString("\tif v.Kind == KindArray && len(v.Elems) > 0 {\n\t\tswitch tag := v.Elems[0]; {\n")
	for i, v := range sh.variants {
		vn := vnames[i]
		_, vd := g.tuple(v.tuple, vn, vn, what, method)
		cond := ""
		if v.tag.Kind == contract.IntLit {
			cond = fmt.Sprintf("tag.Kind == KindInt && tag.Int == %d", v.tag.Int)
		} else {
			cond = fmt.Sprintf("(tag.Kind == KindBulk || tag.Kind == KindStatus) && tag.Str == %q", v.tag.Str)
		}
		fmt.Fprintf(&body, "\t\tcase %s:\n\t\t\treturn %s(v, path)\n", cond, vd)
	}
	fmt.Fprintf(&body, "\t\t}\n\t}\n\treturn nil, miss(path, %q, v)\n", t.Plain())
	dec := "decode" + name
	fmt.Fprintf(&g.decls, "func %s(v Value, path string) (%s, error) {\n%s}\n\n", dec, name, body.String())
	return name, dec
}

func intName(n int64) string {
	if n < 0 {
		return "Minus" + strconv.FormatInt(-n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// literalName makes an identifier tail of a string literal.
func literalName(s string) string {
	var words []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		words = append(words, strings.ToLower(f))
	}
	if len(words) == 0 {
		return "Empty"
	}
	return camel(strings.Join(words, "_"))
}

// enum declares a named type for a union of integer or string literals
// with a constant per alternative.
func (g *goGen) enum(t *contract.Type, name, prefix, what string) (string, string) {
	isInt := t.Alts[0].Kind == contract.IntLit
	base := "string"
	if isInt {
		base = "int64"
	}
	g.declare(name, what)
	fmt.Fprintf(&g.decls, "// %s is the reply %s.\ntype %s %s\n\n// The values of %s.\nconst (\n", name, commentText(t.Plain()), name, base, name)
	var cases []string
	var rows [][]string
	for _, a := range t.Alts {
		var c, val string
		if isInt {
			c, val = prefix+intName(a.Int), strconv.FormatInt(a.Int, 10)
		} else {
			c, val = prefix+literalName(a.Str), strconv.Quote(a.Str)
		}
		if a.Label != "" {
			c = prefix + camel(a.Label)
		}
		g.declare(c, what)
		rows = append(rows, []string{c, name, "= " + val})
		cases = append(cases, val)
	}
	alignRows(&g.decls, "\t", rows)
	g.decls.WriteString(")\n\n")
	var body string
	if isInt {
		body = fmt.Sprintf("\tif v.Kind == KindInt {\n\t\tswitch v.Int {\n\t\tcase %s:\n\t\t\treturn %s(v.Int), nil\n\t\t}\n\t}\n\treturn 0, miss(path, %q, v)\n", strings.Join(cases, ", "), name, t.Plain())
	} else {
		body = fmt.Sprintf("\tif v.Kind == KindBulk || v.Kind == KindStatus {\n\t\tswitch v.Str {\n\t\tcase %s:\n\t\t\treturn %s(v.Str), nil\n\t\t}\n\t}\n\treturn \"\", miss(path, %q, v)\n", strings.Join(cases, ", "), name, t.Plain())
	}
	dec := "decode" + name
	fmt.Fprintf(&g.decls, "func %s(v Value, path string) (%s, error) {\n%s}\n\n", dec, name, body)
	return name, dec
}

// caller writes a key builder for caller c: For<Caller>(placeholders...)
// returns a value whose methods call the caller's scripts with its keys.
func (g *goGen) caller(w *bytes.Buffer, cm *callerModel) {
	c, params := cm.c, cm.params
	n := camel(c.Name)
	typ := g.declare(n+"Caller", "caller "+c.Name)
	ctor := g.declare("For"+n, "caller "+c.Name)
	fmt.Fprintf(w, "// %s calls the scripts of caller %s with its key templates:\n", typ, c.Name)
	if len(c.Keys) > 0 {
		// An indented block of a doc comment is set off by an empty line.
		w.WriteString("//\n")
	}
	for _, k := range c.Keys {
		fmt.Fprintf(w, "%s\n", trimComment("//\t"+k.Name+": "+commentText(k.Template)))
	}
	fmt.Fprintf(w, "type %s struct {\n", typ)
	rows := [][]string{{"c", "*Client"}}
	for _, p := range params {
		rows = append(rows, []string{lowerCamel(p), "string"})
	}
	alignRows(w, "\t", rows)
	w.WriteString("}\n\n")
	sig := make([]string, len(params))
	assign := make([]string, len(params))
	for i, p := range params {
		sig[i] = lowerCamel(p) + " string"
		assign[i] = lowerCamel(p) + ": " + lowerCamel(p)
	}
	patterns := map[*keyCheck]string{}
	for _, k := range cm.checks {
		if k.kind == checkPattern {
			v := g.declare("pattern"+n+camel(k.params[0]), "caller "+c.Name)
			patterns[k] = v
			g.regexp = true
			fmt.Fprintf(w, "// %s is placeholders.%s.pattern of caller %s.\nvar %s = regexp.MustCompile(%q)\n\n", v, k.params[0], c.Name, v, k.pattern)
		}
	}
	fmt.Fprintf(w, "// %s returns caller %s's scripts with its keys built from %s,\n// or a *PlaceholderError for a value its declared placeholders refuse or\n// that would break a key's hash tag.\n", ctor, c.Name, strings.Join(params, ", "))
	fmt.Fprintf(w, "func (c *Client) %s(%s) (%s, error) {\n", ctor, strings.Join(sig, ", "), typ)
	for _, k := range cm.checks {
		p := lowerCamel(k.params[0])
		var cond string
		switch k.kind {
		case checkNonEmpty:
			cond = p + ` == ""`
		case checkPattern:
			cond = "!" + patterns[k] + ".MatchString(" + p + ")"
		case checkNoOpen:
			cond = "strings.Contains(" + p + `, "{")`
		case checkNoClose:
			cond = "strings.Contains(" + p + `, "}")`
		case checkTagNonEmpty:
			var parts []string
			for _, q := range k.params {
				parts = append(parts, lowerCamel(q)+` == ""`)
			}
			cond = strings.Join(parts, " && ")
		}
		value := p
		if len(k.params) > 1 {
			value = `""`
		}
		fmt.Fprintf(w, "\tif %s {\n\t\treturn %s{}, &PlaceholderError{Caller: %q, Placeholder: %q, Value: %s, Reason: %q}\n\t}\n", cond, typ, c.Name, strings.Join(k.params, ", "), value, k.reason)
	}
	fmt.Fprintf(w, "\treturn %s{c: c", typ)
	if len(assign) > 0 {
		w.WriteString(", " + strings.Join(assign, ", "))
	}
	w.WriteString("}, nil\n}\n\n")
	for _, cs := range cm.scripts {
		s := cs.s.s
		sname := camel(s.Name)
		var keys []string
		for i, k := range s.Keys {
			keys = append(keys, camel(k)+": "+templateExpr(cs.keys[i], "k."))
		}
		ret := "(" + g.replyTypes[s.Name] + ", error)"
		if g.replyTypes[s.Name] == "" {
			ret = "error"
		}
		fmt.Fprintf(w, "// %s calls script %s with caller %s's keys.\n", sname, s.Name, c.Name)
		fmt.Fprintf(w, "func (k %s) %s(ctx context.Context, args %sArgs) %s {\n\treturn k.c.%s(ctx, %sKeys{%s}, args)\n}\n\n", typ, sname, sname, ret, sname, sname, strings.Join(keys, ", "))
	}
}

type segment struct {
	text        string
	placeholder bool
}

// templateSegments splits a key template into literal text and <name>
// placeholders (the manifest validated it).
func templateSegments(t string) []segment {
	var out []segment
	for t != "" {
		i := strings.IndexByte(t, '<')
		j := strings.IndexByte(t, '>')
		if i < 0 || j < i {
			out = append(out, segment{text: t})
			break
		}
		if i > 0 {
			out = append(out, segment{text: t[:i]})
		}
		out = append(out, segment{text: t[i+1 : j], placeholder: true})
		t = t[j+1:]
	}
	return out
}

// templateExpr is the Go expression that builds a template's segments from the
// fields of recv.
func templateExpr(segs []segment, recv string) string {
	var parts []string
	for _, s := range segs {
		if s.placeholder {
			parts = append(parts, recv+lowerCamel(s.text))
		} else {
			parts = append(parts, strconv.Quote(s.text))
		}
	}
	if len(parts) == 0 {
		return `""`
	}
	return strings.Join(parts, " + ")
}

// initialisms are written in capitals in Go names.
var initialisms = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{"id": "ID", "ttl": "TTL", "url": "URL", "sha": "SHA", "api": "API", "ip": "IP", "json": "JSON", "http": "HTTP", "uuid": "UUID"}
}}

// camel turns snake_case (or kebab-case) into an exported Go name.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' }) {
		if up, ok := initialisms.Get()[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "X" + out
	}
	return out
}

// lowerCamel is camel with a lowercase first word, not a Go keyword.
func lowerCamel(s string) string {
	c := camel(s)
	words := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
	if len(words) == 0 || c[0] == 'X' && (words[0][0] < 'a' || words[0][0] > 'z') {
		return "p" + c
	}
	first := words[0]
	if up, ok := initialisms.Get()[strings.ToLower(first)]; ok {
		c = strings.ToLower(up) + c[len(up):]
	} else {
		c = strings.ToLower(c[:1]) + c[1:]
	}
	if goKeywords.Get()[c] || reservedParams.Get()[c] {
		c += "_"
	}
	return c
}

var goKeywords = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true, "defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true, "if": true, "import": true, "interface": true, "map": true, "package": true, "range": true, "return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true}
}}

// reservedParams are the names a caller's key builder uses itself.
var reservedParams = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"c": true, "k": true, "ctx": true, "args": true, "keys": true}
}}

func isGoIdent(s string) bool {
	if s == "" || goKeywords.Get()[s] {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// goString writes s as a Go string literal: a raw string when it can be
// one (readable in a diff), else a quoted one. A form feed is quoted too:
// gofmt counts it as a line break in a raw string and lays out what follows
// on that assumption.
func goString(s string) string {
	if !strings.ContainsAny(s, "`\r\f") && !strings.ContainsRune(s, 0xFEFF) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}
