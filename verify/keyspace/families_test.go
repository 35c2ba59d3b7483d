package keyspace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// Every cmd_*.go file's registration function (register<Family>, no
// arguments) is in families: handlers runs only those, on first use, so
// one left out would leave its commands unimplemented.
func TestFamiliesListEveryRegistration(t *testing.T) {
	listed := map[string]bool{}
	for _, f := range families {
		name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
		listed[name[strings.LastIndex(name, ".")+1:]] = true
	}
	files, err := filepath.Glob("cmd_*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Type.Params.NumFields() != 0 || fn.Type.Results != nil {
				continue
			}
			name := fn.Name.Name
			if name == "init" {
				t.Errorf("%s: an init function; register the family in families instead", path)
			}
			if !strings.HasPrefix(name, "register") || name == "register" {
				continue
			}
			found++
			if !listed[name] {
				t.Errorf("%s: %s is not in families", path, name)
			}
		}
	}
	if found != len(families) {
		t.Errorf("%d registration functions in cmd_*.go, %d in families", found, len(families))
	}
}
