package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, from this package's directory.
const moduleRoot = "../.."

const storePath = "github.com/olly-agent/olly/internal/store"

// TestOnlyTheSessionServiceAppends reads the code: the event log has one
// way in, the session service's Emit (DESIGN §3). A package other than
// internal/session (and the store itself) that calls the store's Append
// or AppendAsync, or builds a store.EventRecord, writes around Emit: its
// events reach the log but never the live bus. Test files may seed a store
// directly.
func TestOnlyTheSessionServiceAppends(t *testing.T) {
	allowed := map[string]bool{"internal/session": true, "internal/store": true}
	var checked int
	for _, file := range goFiles(t) {
		dir := filepath.ToSlash(filepath.Dir(file))
		if allowed[dir] {
			continue
		}
		f := parse(t, file)
		name := importName(f, storePath)
		if name == "" {
			continue
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Append" || sel.Sel.Name == "AppendAsync") && !isBuiltinAppendLike(sel) {
					t.Errorf("%s: %s calls %s on the store: emit the event through session.Service.Emit instead",
						file, position(file, n), sel.Sel.Name)
				}
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == name && n.Sel.Name == "EventRecord" {
					t.Errorf("%s: %s builds a store.EventRecord: emit the event through session.Service.Emit instead",
						file, position(file, n))
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("only %d files import internal/store: is the module root (%s) right?", checked, moduleRoot)
	}
}

// TestOneWiringRoot reads the code: the store, the session service and
// the checkpoint managers are built in internal/app only, so no command or
// frontend carries a second, differently wired copy.
func TestOneWiringRoot(t *testing.T) {
	built := map[string]string{ // import path → constructor
		storePath: "Open",
		"github.com/olly-agent/olly/internal/session":    "New",
		"github.com/olly-agent/olly/internal/checkpoint": "New",
		"github.com/olly-agent/olly/internal/lsp":        "NewManager",
	}
	home := map[string]bool{"internal/app": true}
	for _, file := range goFiles(t) {
		dir := filepath.ToSlash(filepath.Dir(file))
		f := parse(t, file)
		for path, ctor := range built {
			name := importName(f, path)
			if name == "" || home[dir] || strings.HasSuffix(path, "/"+dir) {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && sel.Sel.Name == ctor {
						t.Errorf("%s: %s calls %s.%s: get it from internal/app (app.New, app.NewAdmin, app.OpenStore)",
							file, position(file, sel), name, ctor)
					}
				}
				return true
			})
		}
	}
}

// goFiles lists the module's non-test Go files, relative to its root.
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != moduleRoot {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, err := filepath.Rel(moduleRoot, p)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var fset = token.NewFileSet()

func parse(t *testing.T, rel string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(fset, filepath.Join(moduleRoot, rel), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func position(_ string, n ast.Node) string {
	p := fset.Position(n.Pos())
	return "line " + strconv.Itoa(p.Line)
}

// importName is the name file f uses for the package at path, "" when it
// does not import it.
func importName(f *ast.File, path string) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			if im.Name != nil {
				return im.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

// isBuiltinAppendLike excludes Append methods of the standard library's
// byte and string builders (strconv.AppendInt and the like, reached as
// package functions): a selector on a package name other than the store's
// is not the store.
func isBuiltinAppendLike(sel *ast.SelectorExpr) bool {
	id, ok := sel.X.(*ast.Ident)
	return ok && (id.Name == "strconv" || id.Name == "slices" || id.Name == "utf8" || id.Name == "binary")
}
