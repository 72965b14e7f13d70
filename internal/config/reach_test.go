package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestEverySettingIsRead fails for a documented key that no code path
// reads: a setting that does nothing. It parses the module's Go sources
// (tests excluded) and looks for the key's field path as a selector chain:
// agent.maxActiveSessions is read where some expression ends in
// .Agent.MaxActiveSessions, or in .MaxActiveSessions on a variable
// assigned from an expression ending in .Agent; a top-level key such as
// baseUrl where one ends in .BaseURL.
func TestEverySettingIsRead(t *testing.T) {
	pairs, names := selectors(t, "../..")
	settings := reflect.TypeFor[Settings]()
	for _, e := range keys().entries {
		path := fieldPath(settings, e.index)
		last := path[len(path)-1]
		var read bool
		if len(path) == 1 {
			read = names[last]
		} else {
			read = pairs[path[len(path)-2]+"."+last]
		}
		if !read {
			t.Errorf("setting %s (Settings.%s) is documented but no code reads it: make something use it, or remove it from the registry and docs/configuration.md",
				e.key, strings.Join(path, "."))
		}
	}
}

// fieldPath names the Go fields of an index path from Settings.
func fieldPath(t reflect.Type, index []int) []string {
	var out []string
	for _, i := range index {
		f := t.Field(i)
		out = append(out, f.Name)
		t = f.Type
	}
	return out
}

// selectors collects, from every non-test Go file of the module, the
// selector pairs "Outer.Inner" (from x.Outer.Inner, or v.Inner after
// v := x.Outer in the same file) and the selected names.
func selectors(t *testing.T, root string) (pairs, names map[string]bool) {
	t.Helper()
	pairs, names = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" || (strings.HasPrefix(d.Name(), ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		collect(f, pairs, names)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed only %d Go files under %s: the walk is broken", files, root)
	}
	return pairs, names
}

// collect adds one file's selectors to pairs and names.
func collect(f *ast.File, pairs, names map[string]bool) {
	aliases := map[string]string{} // v → Outer, from v := x.Outer
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				id, ok1 := l.(*ast.Ident)
				sel, ok2 := as.Rhs[i].(*ast.SelectorExpr)
				if ok1 && ok2 {
					aliases[id.Name] = sel.Sel.Name
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		names[sel.Sel.Name] = true
		switch x := sel.X.(type) {
		case *ast.SelectorExpr:
			pairs[x.Sel.Name+"."+sel.Sel.Name] = true
		case *ast.Ident:
			if outer, ok := aliases[x.Name]; ok {
				pairs[outer+"."+sel.Sel.Name] = true
			}
		}
		return true
	})
}
