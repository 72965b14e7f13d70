package lsp

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// These tests run the real gopls over testdata/gofixture; they skip when
// gopls is not installed.

func TestGoplsDefinitionAcrossPackages(t *testing.T) {
	m, ws := newGoplsManager(t)
	ctx := testCtx(t)
	main := filepath.Join(ws.Primary().Path, "cmd/report/main.go")
	// "TotalArea" follows an emoji on its line: the column must be counted
	// in UTF-16 units for the server to find it.
	locs, err := m.Definition(ctx, main, posOf(t, main, "TotalArea(all)", 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 1 {
		t.Fatalf("got %d locations, want 1: %+v", len(locs), locs)
	}
	p, _ := locs[0].URI.Path()
	if filepath.Base(p) != "total.go" || locs[0].Range.Start.Line != 5 {
		t.Fatalf("definition at %s:%d, want total.go:6", p, locs[0].Range.Start.Line+1)
	}
}

func TestGoplsReferencesAndImplementations(t *testing.T) {
	m, ws := newGoplsManager(t)
	ctx := testCtx(t)
	root := ws.Primary().Path
	shapes := filepath.Join(root, "shapes.go")
	refs, err := m.References(ctx, shapes, posOf(t, shapes, "Shape interface", 0), false)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, r := range refs {
		p, _ := r.URI.Path()
		files[ws.Rel(p)] = true
	}
	for _, want := range []string{"total.go", "cmd/report/main.go"} {
		if !files[want] {
			t.Errorf("references to Shape miss %s; got %v", want, files)
		}
	}
	impls, err := m.Implementations(ctx, shapes, posOf(t, shapes, "Shape interface", 0))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range impls {
		p, _ := l.URI.Path()
		names = append(names, filepath.Base(p))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"circle.go", "shapes.go"}) {
		t.Fatalf("implementations of Shape in %v, want circle.go and shapes.go", names)
	}
}

func TestGoplsAfterWriteAndCheck(t *testing.T) {
	m, ws := newGoplsManager(t)
	ctx := testCtx(t)
	total := filepath.Join(ws.Primary().Path, "total.go")
	p, err := ws.Resolve("total.go")
	if err != nil {
		t.Fatal(err)
	}
	write(t, total, strings.Replace(mustRead(t, total), "var sum float64", "var sum float64 = \"zero\"", 1))
	out, err := m.AfterWrite(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "total.go:7:") || !strings.Contains(out, "Error") {
		t.Fatalf("AfterWrite = %q, want a type error on total.go:7", out)
	}
	rep, err := m.Check(ctx, []string{"total.go"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors == 0 || !strings.Contains(rep.Text, "total.go:7:") {
		t.Fatalf("Check before the fix = %+v, want the error", rep)
	}
	write(t, total, strings.Replace(mustRead(t, total), " = \"zero\"", "", 1))
	if out, err := m.AfterWrite(ctx, p); err != nil || out != "" {
		t.Fatalf("AfterWrite after the fix = %q, %v; want nothing", out, err)
	}
	rep, err = m.Check(ctx, []string{"total.go"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != 0 || len(rep.Unchecked) != 0 {
		t.Fatalf("Check after the fix = %+v, want clean", rep)
	}
}
