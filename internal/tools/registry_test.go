package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
)

func TestSpecsRender(t *testing.T) {
	reg, err := NewRegistry(Core()...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"read_file", "write_file", "list_files", "find_files", "search_workspace", "run_terminal_command"}
	specs := reg.Specs()
	if len(specs) != len(want) {
		t.Fatalf("%d specs", len(specs))
	}
	for i, s := range specs {
		if s.Name != want[i] {
			t.Fatalf("spec %d is %s, want %s", i, s.Name, want[i])
		}
		if s.Description == s.Name || strings.Contains(s.Description, "{{") || strings.Contains(s.Description, "<no value>") || len(s.Description) < 100 {
			t.Fatalf("%s: description not rendered: %q", s.Name, s.Description)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema.Type != "object" || len(schema.Properties) == 0 {
			t.Fatalf("%s: schema %s (%v)", s.Name, s.Parameters, err)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Fatalf("%s requires unknown %s", s.Name, r)
			}
		}
	}
	if _, err := NewRegistry(ReadFile{}, ReadFile{}); err == nil {
		t.Fatal("duplicate tool accepted")
	}
	mustContain(t, specs[0].Description, "2000 lines", "256 KB", "already provided")
}

func TestExecuteMistakes(t *testing.T) {
	h := newHarness(t, nil)
	out := h.reg.Execute(context.Background(), h.env, Call{Name: "read_flie", Args: json.RawMessage(`{}`), ActionID: "x1"})
	mustContain(t, out.Result.Content, `Unknown tool "read_flie"`, "read_file, run_terminal_command")
	out = h.reg.Execute(context.Background(), h.env, Call{Name: "read_file", Args: json.RawMessage(`["main.go"]`), ActionID: "x2"})
	mustContain(t, out.Result.Content, "Invalid arguments for read_file", "JSON object")
	for _, a := range h.rec.actions() {
		if a.Status != event.ActionError {
			t.Fatalf("a mistake was shown as %s: %+v", a.Status, a)
		}
	}
}

func TestExecuteShowsWhatRuns(t *testing.T) {
	h := newHarness(t, map[string]string{"a.go": "x\n"})
	h.call("find_files", map[string]any{"pattern": "*.go"})
	acts := h.rec.actions()
	if len(acts) != 2 || acts[0].Status != event.ActionRunning || acts[0].Text != "Finding *.go" ||
		acts[1].Status != event.ActionSuccess || acts[1].Text != "Found 1 files" || acts[1].GroupID != "g1" || acts[1].Tool != "find_files" {
		t.Fatalf("actions = %+v", acts)
	}
}

func TestToolsRunOutsideExecute(t *testing.T) {
	h := newHarness(t, map[string]string{"a.txt": numbered(150), ".env": "A=1\n"})
	env := &Env{Workspace: h.ws} // no reporter, no approver, no emit
	res, err := ReadFile{}.Run(context.Background(), env, ArgsOf(map[string]any{"path": "a.txt"}))
	if err != nil || res.IsError || !strings.Contains(res.Content, "lines 1–150") {
		t.Fatalf("%+v %v", res, err)
	}
	res, err = WriteFile{}.Run(context.Background(), env, ArgsOf(map[string]any{"path": ".env", "content": "A=2\n"}))
	if err != nil || !res.Denied {
		t.Fatalf("a sensitive write ran without approval: %+v %v", res, err)
	}
	res, _ = ReadFile{}.Run(context.Background(), &Env{}, ArgsOf(map[string]any{"path": "a.txt"}))
	mustContain(t, res.Content, "no workspace")
}

func TestArgs(t *testing.T) {
	a, err := ParseArgs(json.RawMessage(`{"path":"x.go","n":"12","f":3.0,"b":"true","bad":"x","nul":null,"obj":{"k":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := a.Path(); !ok || p != "x.go" {
		t.Fatalf("Path = %q %v", p, ok)
	}
	if n, ok, err := a.Int("n"); n != 12 || !ok || err != nil {
		t.Fatalf("Int(n) = %d %v %v", n, ok, err)
	}
	if n, ok, err := a.Int("f"); n != 3 || !ok || err != nil {
		t.Fatalf("Int(f) = %d %v %v", n, ok, err)
	}
	if b, ok, err := a.Bool("b"); !b || !ok || err != nil {
		t.Fatalf("Bool(b) = %v %v %v", b, ok, err)
	}
	if _, ok, err := a.Int("bad"); !ok || err == nil {
		t.Fatal("Int of a word accepted")
	}
	if _, ok := a.String("nul"); ok {
		t.Fatal("null counts as present")
	}
	if s, _ := a.String("missing", "obj"); s != `{"k":1}` {
		t.Fatalf("String(obj) = %q", s)
	}
	for _, raw := range []string{"", "null", "  "} {
		if _, err := ParseArgs(json.RawMessage(raw)); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
	}
	for _, raw := range []string{`[]`, `"x"`, `{"a":`} {
		if _, err := ParseArgs(json.RawMessage(raw)); err == nil {
			t.Fatalf("%q accepted", raw)
		}
	}
}

func FuzzArgs(f *testing.F) {
	for _, s := range []string{`{"path":"a","startLine":"3","recursive":"yes"}`, `{"startLine":1e400}`, `{"n":-0.5}`, `null`, `{"path":{"x":[1,2]}}`, `{"a":"\u0000"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		a, err := ParseArgs(json.RawMessage(raw))
		if err != nil {
			return
		}
		_, _ = a.Path()
		_, _, _ = a.Int("startLine", "n", "path", "a")
		_, _, _ = a.Bool("recursive", "path")
		var m map[string]any
		_ = a.Decode(&m)
		// Every tool's argument parsing must cope with whatever arrives.
		_, _, _ = lineRange(a)
		_, _ = Terminal{}.withDefaults().timeout(a, 0)
		if s, ok := a.String("startLine"); ok && s == "" && a.Has("startLine") {
			if _, ok, err := a.Int("startLine"); ok || err != nil {
				t.Fatalf("empty string counted as a number: %v %v", ok, err)
			}
		}
	})
}
