package app

import (
	"go/ast"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The size bars of the packages behind the wiring root and the wire
// protocol (issue 15): a file a reader can hold, a function that fits a
// screen or two. Test files are exempt.
const (
	maxFileLines = 500
	maxFuncLines = 80
)

// sizedPackages are the directories the bars hold for, relative to the
// module root.
var sizedPackages = []string{
	"internal/agent", "internal/session", "internal/app", "internal/cli", "internal/ui/rpc",
	"internal/store", "event", "rpcproto", "rpcclient",
}

// TestSizeBars reads the code: no non-test Go file in sizedPackages has
// more than maxFileLines lines, and no function or method (function
// literals count toward the function that holds them) more than
// maxFuncLines, from its signature to its closing brace.
func TestSizeBars(t *testing.T) {
	var files int
	for _, dir := range sizedPackages {
		entries, err := os.ReadDir(filepath.Join(moduleRoot, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			files++
			checkSize(t, filepath.Join(dir, name))
		}
	}
	if files < 100 {
		t.Fatalf("only %d files checked: is the module root (%s) right?", files, moduleRoot)
	}
}

// checkSize reports the file's length and its long functions.
func checkSize(t *testing.T, rel string) {
	t.Helper()
	f := parse(t, rel)
	if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
		t.Errorf("%s: %d lines (the bar is %d): split it along what its parts do", rel, n, maxFileLines)
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		if n > maxFuncLines {
			t.Errorf("%s: %s is %d lines (the bar is %d): split it", rel, funcName(fn), n, maxFuncLines)
		}
	}
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if ix, ok := typ.(*ast.IndexListExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
