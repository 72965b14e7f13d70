package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/lsp"
)

// fakeServers answers the tools' questions from canned data, for what a
// real server cannot be made to do on demand (fail, be missing, return
// hundreds of references).
type fakeServers struct {
	err   error
	locs  []lsp.Location
	diags []lsp.FileReport
}

func (f fakeServers) Definition(context.Context, string, lsp.Position) ([]lsp.Location, error) {
	return f.locs, f.err
}

func (f fakeServers) References(context.Context, string, lsp.Position, bool) ([]lsp.Location, error) {
	return f.locs, f.err
}

func (f fakeServers) Implementations(context.Context, string, lsp.Position) ([]lsp.Location, error) {
	return f.locs, f.err
}

func (f fakeServers) WorkspaceSymbols(context.Context, string, string) (lsp.WorkspaceSymbols, error) {
	if f.err != nil {
		return lsp.WorkspaceSymbols{Skipped: []error{f.err}}, nil
	}
	return lsp.WorkspaceSymbols{Languages: []string{"go"}}, nil
}

func (f fakeServers) DocumentSymbols(context.Context, string) ([]lsp.DocumentSymbol, error) {
	return nil, f.err
}

func (f fakeServers) Hover(context.Context, string, lsp.Position) (*lsp.Hover, error) {
	return nil, f.err
}

func (f fakeServers) PrepareCallHierarchy(context.Context, string, lsp.Position) ([]lsp.CallHierarchyItem, error) {
	return nil, f.err
}

func (f fakeServers) IncomingCalls(context.Context, lsp.CallHierarchyItem) ([]lsp.CallHierarchyIncomingCall, error) {
	return nil, f.err
}

func (f fakeServers) OutgoingCalls(context.Context, lsp.CallHierarchyItem) ([]lsp.CallHierarchyOutgoingCall, error) {
	return nil, f.err
}

func (f fakeServers) PrepareTypeHierarchy(context.Context, string, lsp.Position) ([]lsp.TypeHierarchyItem, error) {
	return nil, f.err
}

func (f fakeServers) Supertypes(context.Context, lsp.TypeHierarchyItem) ([]lsp.TypeHierarchyItem, error) {
	return nil, f.err
}

func (f fakeServers) Subtypes(context.Context, lsp.TypeHierarchyItem) ([]lsp.TypeHierarchyItem, error) {
	return nil, f.err
}

func (f fakeServers) Diagnose(_ context.Context, paths []string) ([]lsp.FileReport, error) {
	return f.diags, nil
}

func TestLSPToolsWithoutAServer(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"app.py": "def run():\n    pass\n"})
	env := &Env{Workspace: ws}
	missing := fakeServers{err: &lsp.UnavailableError{Language: "python", Command: "pyright-langserver", Install: "npm install -g pyright"}}
	args := map[string]any{"path": "app.py", "symbolName": "run", "query": "run"}
	for _, tl := range LSP(missing, nil)[1:] { // get_diagnostics reports per file, below
		name := tl.Spec().Name
		t.Run(name, func(t *testing.T) {
			res, err := tl.Run(context.Background(), env, ArgsOf(args))
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(res.Content, "no language server for python (npm install -g pyright)") {
				t.Fatalf("result %+v, want the honest no-server error", res)
			}
		})
	}
	diag := GetDiagnostics{Servers: fakeServers{diags: []lsp.FileReport{{Rel: "app.py", Err: missing.err}}}}
	res, err := diag.Run(context.Background(), env, ArgsOf(map[string]any{"path": "app.py"}))
	if err != nil || !res.IsError || res.Content != "app.py: not checked: no language server for python (npm install -g pyright)." {
		t.Fatalf("get_diagnostics = %+v, %v; never an empty \"no errors\"", res, err)
	}
}

func TestLSPToolsWithoutManager(t *testing.T) {
	env := &Env{Workspace: newWorkspace(t, map[string]string{"a.go": "package a\n"})}
	for _, tl := range LSP(nil, nil) {
		res, err := tl.Run(context.Background(), env, ArgsOf(map[string]any{"path": "a.go", "line": 1, "query": "a"}))
		if err != nil || !res.IsError || !strings.Contains(res.Content, "without language servers") {
			t.Errorf("%s: %+v, %v", tl.Spec().Name, res, err)
		}
	}
}

func TestFindReferencesCapped(t *testing.T) {
	var src strings.Builder
	src.WriteString("package a\n")
	for i := range 40 {
		fmt.Fprintf(&src, "var v%d = X\n", i)
	}
	ws := newWorkspace(t, map[string]string{"a.go": src.String(), "b.go": "package a\n\nvar w = X\n"})
	a := filepath.Join(root(ws), "a.go")
	var locs []lsp.Location
	for i := range 40 {
		locs = append(locs, lsp.Location{URI: lsp.FileURI(a), Range: lsp.Range{Start: lsp.Position{Line: uint32(i + 1), Character: 9}}})
	}
	locs = append(locs, lsp.Location{URI: lsp.FileURI(filepath.Join(root(ws), "b.go")), Range: lsp.Range{Start: lsp.Position{Line: 2, Character: 8}}},
		lsp.Location{URI: "file:///usr/lib/go/src/x.go", Range: lsp.Range{Start: lsp.Position{Line: 4}}})
	res, err := FindReferences{Servers: fakeServers{locs: locs}}.Run(context.Background(), &Env{Workspace: ws},
		ArgsOf(map[string]any{"path": "b.go", "symbolName": "X"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"42 references to `X` in 3 files:",
		"── a.go (40) ──\n→ 2:10: var v0 = X\n",
		"→ 31:10: var v29 = X\n[… 10 more in this file]",
		"[Showing 30 of 42 references. Not shown: b.go (1), /usr/lib/go/src/x.go (1).]",
	} {
		if !strings.Contains(res.Content, want) {
			t.Fatalf("result lacks %q:\n%s", want, res.Content)
		}
	}
	if len(res.Display.Listing) != 3 || res.Display.Detail != "42 in 3 files" {
		t.Fatalf("display %+v", res.Display)
	}
}
