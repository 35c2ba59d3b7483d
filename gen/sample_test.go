package gen

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateEveryLanguage is the fast tier's sample of the TypeScript and
// Python bindings, whose toolchain and live tests (TestTSBindings,
// TestPythonBindings, TestGoBindings, TestGoBindingsLive) run in the full
// tier: every binding generates in every language, twice to the same
// bytes, no file empty; the Go files parse, and the Python modules compile
// where python3 is installed.
func TestGenerateEveryLanguage(t *testing.T) {
	py, pyErr := exec.LookPath("python3")
	dir := t.TempDir()
	var pyFiles []string
	for folder, path := range bindings {
		m, sum := loadWithSum(t, path)
		for _, lang := range []string{"go", "ts", "python"} {
			files, err := Generate(lang, m, sum, Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", folder, lang, err)
			}
			again, err := Generate(lang, m, sum, Options{})
			if err != nil || len(again) != len(files) || len(files) == 0 {
				t.Fatalf("%s %s: %d then %d files (%v)", folder, lang, len(files), len(again), err)
			}
			for i, f := range files {
				if !bytes.Equal(f.Data, again[i].Data) || f.Name != again[i].Name {
					t.Errorf("%s %s: %s differs between two runs", folder, lang, f.Name)
				}
				if len(f.Data) == 0 {
					t.Errorf("%s %s: %s is empty", folder, lang, f.Name)
				}
				if strings.HasSuffix(f.Name, ".go") {
					if _, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Data, parser.AllErrors); err != nil {
						t.Errorf("%s: %s does not parse: %v", folder, f.Name, err)
					}
				}
				if lang == "python" && pyErr == nil && strings.HasSuffix(f.Name, ".py") {
					p := filepath.Join(dir, folder+"_"+f.Name)
					writeFile(t, p, f.Data)
					pyFiles = append(pyFiles, p)
				}
			}
		}
	}
	if len(pyFiles) > 0 {
		if out, err := exec.Command(py, append([]string{"-m", "py_compile"}, pyFiles...)...).CombinedOutput(); err != nil {
			t.Errorf("the Python bindings do not compile: %v\n%s", err, out)
		}
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
