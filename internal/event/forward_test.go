package event

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPublicNameIsForwarded keeps the aliases complete: a type,
// constant or function added to the public event package is reachable
// under this package's name too, so the two imports stay interchangeable
// until the last importer of this one moves.
func TestEveryPublicNameIsForwarded(t *testing.T) {
	public := exportedNames(t, "../../event")
	here := exportedNames(t, ".")
	for name := range public {
		if !here[name] {
			t.Errorf("event.%s is not forwarded: add it to forward.go", name)
		}
	}
	if len(public) < 50 {
		t.Fatalf("found only %d exported names in ../../event: is the path right?", len(public))
	}
}

func exportedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fs := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		addExported(out, f)
	}
	return out
}

// addExported adds the exported top-level names of f to out: functions
// (not methods), types, constants and variables.
func addExported(out map[string]bool, f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out[s.Name.Name] = true
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
}
