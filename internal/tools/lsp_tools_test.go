package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
)

// TestLSPToolsWithGopls runs each code-intelligence tool against gopls on
// the fixture module: definitions across packages, references across
// files, implementations of an interface, calls both ways, supertypes and
// subtypes, hover signatures, workspace symbols and outlines.
func TestLSPToolsWithGopls(t *testing.T) {
	env, m := goplsEnv(t)
	ctx := lspCtx(t)
	byName := map[string]Tool{}
	for _, tl := range LSP(m, nil) {
		byName[tl.Spec().Name] = tl
	}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    []string // substrings of the content, in order
		notWant []string
		isError bool
		display func(t *testing.T, d event.ToolAction)
	}{
		{name: "definition of a function called from another package", tool: "find_definition",
			args: map[string]any{"path": "cmd/report/main.go", "symbolName": "TotalArea"},
			want: []string{"Definition of `TotalArea` (from cmd/report/main.go:12:33)", "total.go:6:6", "  5: // TotalArea sums the areas of shapes.", "→ 6: func TotalArea(shapes []Shape) float64 {"},
			display: func(t *testing.T, d event.ToolAction) {
				if d.FilePath != "total.go" || d.StartLine != 6 || d.Text != "Definition of TotalArea" {
					t.Errorf("display %+v", d)
				}
			}},
		{name: "definition by line and character after an emoji", tool: "find_definition",
			args: map[string]any{"path": "cmd/report/main.go", "line": 12, "character": 33},
			want: []string{"total.go:6:6"}},
		{name: "references across files grouped by file", tool: "find_references",
			args: map[string]any{"path": "shapes.go", "symbolName": "Shape"},
			want: []string{"4 references to `Shape` in 3 files", "── cmd/report/main.go (1) ──", "── shapes.go (1) ──", "→ 5:6: type Shape interface {", "── total.go (2) ──", "→ 6:25: func TotalArea", "→ 15:17: func Describe"},
			display: func(t *testing.T, d event.ToolAction) {
				if len(d.Listing) != 3 || d.Listing[2] != (event.ListingEntry{Path: "total.go", Count: 2}) {
					t.Errorf("listing %+v", d.Listing)
				}
			}},
		{name: "references without the declaration", tool: "find_references",
			args: map[string]any{"path": "shapes.go", "symbolName": "Shape", "includeDeclaration": false},
			want: []string{"3 references to `Shape` in 2 files"}, notWant: []string{"shapes.go (1)"}},
		{name: "implementations of an interface", tool: "find_implementations",
			args: map[string]any{"path": "shapes.go", "symbolName": "Shape"},
			want: []string{"2 implementations of `Shape`", "circle.go:6:6", "→ 6: type Circle struct {", "shapes.go:11:6", "→ 11: type Square struct {"}},
		{name: "workspace symbol finds a type", tool: "find_symbol",
			args: map[string]any{"query": "Square"},
			want: []string{"found for \"Square\"", "struct Square — shapes.go:11:6", "type Square struct {"}},
		{name: "hover shows the signature and documentation", tool: "get_hover_info",
			args: map[string]any{"path": "cmd/report/main.go", "symbolName": "Describe"},
			want: []string{"Hover info for `Describe` at cmd/report/main.go:14:22", "→ 14: \t\tfmt.Println(shapes.Describe(s))", "func shapes.Describe(s shapes.Shape) string", "Describe says what a shape is"}},
		{name: "incoming calls", tool: "get_call_hierarchy",
			args:    map[string]any{"path": "total.go", "symbolName": "TotalArea", "direction": "incoming"},
			want:    []string{"Call hierarchy of function TotalArea (total.go:6:6)", "Incoming calls (1 caller)", "function main — cmd/report/main.go:10:6", "→ 12:33: fmt.Println(\"π≈3.14 😀\", shapes.TotalArea(all))"},
			notWant: []string{"Outgoing"}},
		{name: "outgoing calls", tool: "get_call_hierarchy",
			args:    map[string]any{"path": "total.go", "symbolName": "Describe", "direction": "outgoing"},
			want:    []string{"Outgoing calls (3 callees)", "function Area — shapes.go:6:2", "function Name — shapes.go:7:2", "function Sprintf", "(outside the workspace)"},
			notWant: []string{"Incoming"}},
		{name: "supertypes of a struct", tool: "get_type_hierarchy",
			args: map[string]any{"path": "shapes.go", "symbolName": "Square", "direction": "supertypes"},
			want: []string{"Type hierarchy of class Square", "Supertypes (", "interface Shape — shapes.go:5:6"}},
		{name: "subtypes of an interface", tool: "get_type_hierarchy",
			args: map[string]any{"path": "shapes.go", "symbolName": "Shape"},
			want: []string{"Subtypes (2):", "class Circle — circle.go:6:6", "class Square — shapes.go:11:6"}},
		{name: "outline with nesting", tool: "get_document_symbols",
			args: map[string]any{"path": "shapes.go"},
			want: []string{"shapes.go — 7 symbols, 19 lines:", "interface Shape", "(lines 5–8)", "\n  method Area func() float64 (line 6)", "struct Square", "\n  field Side float64 (line 12)", "method (Square).Area"}},
		{name: "diagnostics of a clean file", tool: "get_diagnostics",
			args: map[string]any{"path": "total.go"},
			want: []string{"No problems in total.go"}},
		{name: "symbol not in the file", tool: "find_definition",
			args: map[string]any{"path": "total.go", "symbolName": "Nope"},
			want: []string{`the symbol "Nope" does not occur in total.go`, "get_document_symbols"}, isError: true},
		{name: "position out of range", tool: "get_hover_info",
			args: map[string]any{"path": "total.go", "line": 99, "character": 1},
			want: []string{"line 99 is out of range: the file has 17 lines"}, isError: true},
		{name: "not a function", tool: "get_call_hierarchy",
			args: map[string]any{"path": "shapes.go", "symbolName": "Shape"},
			want: []string{"gopls answered textDocument/prepareCallHierarchy with an error"}, isError: true},
		{name: "bad direction", tool: "get_type_hierarchy",
			args: map[string]any{"path": "shapes.go", "symbolName": "Shape", "direction": "sideways"},
			want: []string{"direction must be supertypes, subtypes or both"}, isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := byName[tt.tool].Run(ctx, env, ArgsOf(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v, want %v:\n%s", res.IsError, tt.isError, res.Content)
			}
			rest := res.Content
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("result lacks %q (in order):\n%s", w, res.Content)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tt.notWant {
				if strings.Contains(res.Content, w) {
					t.Fatalf("result has %q:\n%s", w, res.Content)
				}
			}
			if tt.display != nil {
				tt.display(t, res.Display)
			}
		})
	}
}

// changedList is the run's changed files, as the checkpoint would say.
type changedList []string

func (c changedList) ChangedFiles(context.Context, string) ([]string, error) { return c, nil }

// TestAutoDiagnosticsAfterWrite writes a type error through write_file
// and expects gopls's error in the tool result, then checks the run's
// changed files with get_diagnostics and the gate, fixes the error, and
// expects both clean.
func TestAutoDiagnosticsAfterWrite(t *testing.T) {
	env, m := goplsEnv(t)
	ctx := lspCtx(t)
	reg, err := NewRegistry(append(Core(), LSP(m, changedList{"total.go", "circle.go"})...)...)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(mustReadFile(t, env, "total.go")), "var sum float64", "var sum float64 = \"zero\"", 1)
	res := execute(t, ctx, reg, env, "write_file", map[string]any{"path": "total.go", "content": broken})
	if !strings.Contains(res.Content, "\n\n[Auto-diagnostics]\ntotal.go:7:20: Error: cannot use \"zero\"") {
		t.Fatalf("write result lacks the type error:\n%s", res.Content)
	}
	res = execute(t, ctx, reg, env, "get_diagnostics", map[string]any{})
	if !strings.Contains(res.Content, "── total.go (1) ──\ntotal.go:7:20: Error:") || !strings.Contains(res.Content, "No problems in circle.go") || res.Display.Detail != "1 error, 0 other problems" {
		t.Fatalf("get_diagnostics of the changed files:\n%s\n%+v", res.Content, res.Display)
	}
	rep, err := m.Check(ctx, []string{"total.go"})
	if err != nil || rep.Errors != 1 {
		t.Fatalf("gate before the fix: %+v, %v", rep, err)
	}
	fixed := strings.Replace(broken, " = \"zero\"", "", 1)
	res = execute(t, ctx, reg, env, "write_file", map[string]any{"path": "total.go", "content": fixed})
	if strings.Contains(res.Content, "Auto-diagnostics") {
		t.Fatalf("write of the fix still reports:\n%s", res.Content)
	}
	res = execute(t, ctx, reg, env, "get_diagnostics", map[string]any{})
	if res.Content != "No problems in total.go, circle.go (checked by the language server)." {
		t.Fatalf("get_diagnostics after the fix: %q", res.Content)
	}
	rep, err = m.Check(ctx, []string{"total.go"})
	if err != nil || rep.Errors != 0 || len(rep.Unchecked) != 0 {
		t.Fatalf("gate after the fix: %+v, %v", rep, err)
	}
}

func execute(t *testing.T, ctx context.Context, reg *Registry, env *Env, name string, args map[string]any) *Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	out := reg.Execute(ctx, env, Call{ID: "c1", Name: name, Args: raw, GroupID: "g", ActionID: "a"})
	return out.Result
}

func mustReadFile(t testing.TB, env *Env, rel string) []byte {
	t.Helper()
	wp, text, bad := resolveFile(env, "test", ArgsOf(map[string]any{"path": rel}))
	if bad != nil {
		t.Fatalf("%s: %s", wp.Rel, bad.Content)
	}
	return text
}

func TestLSPToolSpecs(t *testing.T) {
	var names []string
	for _, tl := range LSP(nil, nil) {
		s := tl.Spec()
		names = append(names, s.Name)
		if strings.Contains(s.Description, "{{") || len(s.Description) < 80 {
			t.Errorf("%s: description not rendered: %q", s.Name, s.Description)
		}
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil || len(schema.Properties) == 0 {
			t.Errorf("%s: schema %s: %v", s.Name, s.Parameters, err)
		}
	}
	want := []string{"get_diagnostics", "get_document_symbols", "find_definition", "find_references", "find_implementations",
		"find_symbol", "get_hover_info", "get_call_hierarchy", "get_type_hierarchy"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}
