package tools

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/lsp"
)

func TestResolveTarget(t *testing.T) {
	src := strings.Join([]string{
		"package demo",                          // 1
		"",                                      // 2
		"// Run starts the demo; Run is cheap.", // 3
		"func Run() { msg := \"Run 😀\"; _ = msg }", // 4
		"",                            // 5
		"func caller() {",             // 6
		"\t😀x := 1; Run()",            // 7
		"}",                           // 8
		"type Server struct{}",        // 9
		"func (s *Server) Start() {}", // 10
	}, "\n") + "\n"
	ws := newWorkspace(t, map[string]string{"demo.go": src, "dir/": ""})
	env := &Env{Workspace: ws}
	tests := []struct {
		name     string
		args     map[string]any
		line     int
		col      int
		utf16    uint32 // expected protocol character
		symbol   string
		errMatch string
	}{
		{name: "symbol skips comment and string", args: map[string]any{"symbolName": "Run"}, line: 4, col: 6, utf16: 5, symbol: "Run"},
		{name: "symbol nearest the given line", args: map[string]any{"symbolName": "Run", "line": 8}, line: 7, col: 11, utf16: 11, symbol: "Run"},
		{name: "case-insensitive fallback", args: map[string]any{"symbolName": "server"}, line: 9, col: 6, utf16: 5, symbol: "server"},
		{name: "qualified name falls back to its last part", args: map[string]any{"symbolName": "Server.Start"}, line: 10, col: 18, utf16: 17, symbol: "Server.Start"},
		{name: "whole words only", args: map[string]any{"symbolName": "Ru"}, errMatch: `the symbol "Ru" does not occur in demo.go`},
		{name: "line and character as given", args: map[string]any{"line": 7, "character": 4}, line: 7, col: 4, utf16: 4, symbol: "x"},
		{name: "line and character win over symbolName", args: map[string]any{"symbolName": "Run", "line": "9", "character": "6"}, line: 9, col: 6, utf16: 5, symbol: "Run"},
		{name: "line alone: first non-blank character", args: map[string]any{"line": 7}, line: 7, col: 2, utf16: 1, symbol: ""},
		{name: "line out of range", args: map[string]any{"line": 99, "character": 1}, errMatch: "line 99 is out of range: the file has 10 lines"},
		{name: "character out of range", args: map[string]any{"line": 8, "character": 5}, errMatch: "character 5 is out of range: line 8 has 1 characters"},
		{name: "nothing to resolve", args: map[string]any{}, errMatch: "needs symbolName"},
		{name: "bad line number", args: map[string]any{"line": "ten"}, errMatch: "line must be a whole number"},
		{name: "no path", args: map[string]any{"path": ""}, errMatch: "needs a path"},
		{name: "missing file", args: map[string]any{"path": "nope.go", "line": 1}, errMatch: "does not exist"},
		{name: "directory", args: map[string]any{"path": "dir", "line": 1}, errMatch: "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"path": "demo.go"}
			for k, v := range tt.args {
				args[k] = v
			}
			tg, bad := resolveTarget(env, "find_definition", ArgsOf(args))
			if tt.errMatch != "" {
				if bad == nil || !bad.IsError || !strings.Contains(bad.Content, tt.errMatch) {
					t.Fatalf("result %+v, want an error containing %q", bad, tt.errMatch)
				}
				return
			}
			if bad != nil {
				t.Fatalf("unexpected error result: %s", bad.Content)
			}
			if tg.line != tt.line || tg.col != tt.col || tg.pos != (lsp.Position{Line: uint32(tt.line - 1), Character: tt.utf16}) || tg.symbol != tt.symbol {
				t.Fatalf("target %d:%d %+v %q, want %d:%d utf16 %d %q", tg.line, tg.col, tg.pos, tg.symbol, tt.line, tt.col, tt.utf16, tt.symbol)
			}
		})
	}
}

func TestReadContextAroundLocation(t *testing.T) {
	m := lsp.NewMapper([]byte("one\ntwo\nthree\nfour\n"))
	tests := []struct {
		name    string
		line, n int
		want    string
	}{
		{name: "middle", line: 2, n: 1, want: "  1: one\n→ 2: two\n  3: three\n"},
		{name: "clipped at the start", line: 1, n: 2, want: "→ 1: one\n  2: two\n  3: three\n"},
		{name: "clipped at the end", line: 4, n: 1, want: "  3: three\n→ 4: four\n"},
		{name: "no context", line: 3, n: 0, want: "→ 3: three\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readContextAroundLocation(m, tt.line, tt.n); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := readContextAroundLocation(nil, 1, 1); got != "" {
		t.Fatalf("no file: %q", got)
	}
}

func TestWordAt(t *testing.T) {
	for _, tt := range []struct {
		line string
		col  int
		want string
	}{
		{"foo(barBaz)", 6, "barBaz"},
		{"foo(barBaz)", 11, "barBaz"}, // just past the word
		{"😀x := 1", 2, "x"},
		{"a + b", 2, "a"},
		{"   ", 2, ""},
	} {
		if got := wordAt([]byte(tt.line), tt.col); got != tt.want {
			t.Errorf("wordAt(%q, %d) = %q, want %q", tt.line, tt.col, got, tt.want)
		}
	}
}
