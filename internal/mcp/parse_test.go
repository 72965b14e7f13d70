package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/olly-agent/olly/internal/config"
)

func TestParseServers(t *testing.T) {
	data := []byte(`{
  // a comment, as VS Code allows
  "mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"A": "1"}},
    "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
    "old": {"type": "sse", "url": "http://localhost:9000/sse"},
    "bad": {"type": "ws", "url": "ws://x"},
    "bad name!": {"command": "x"},
  }
}`)
	servers, errs := ParseServers(data, SourceProject, ".mcp.json")
	if len(servers) != 3 || len(errs) != 2 {
		t.Fatalf("servers %+v errs %v", servers, errs)
	}
	byName := map[string]Server{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	if s := byName["fs"]; s.Type != config.MCPStdio || s.Command != "npx" || len(s.Args) != 3 || s.Env["A"] != "1" || s.Source != SourceProject {
		t.Errorf("fs = %+v", s)
	}
	if s := byName["web"]; s.Type != config.MCPHTTP || s.Headers["Authorization"] != "Bearer x" {
		t.Errorf("web = %+v", s)
	}
	if s := byName["old"]; s.Type != config.MCPSSE {
		t.Errorf("old = %+v", s)
	}
}

func TestFingerprintChangesWithTheEntry(t *testing.T) {
	a := stdio("x", "node", "server.js")
	b := stdio("x", "node", "server.js")
	if a.Fingerprint() != b.Fingerprint() {
		t.Fatal("equal entries, different fingerprints")
	}
	for name, change := range map[string]func(*Server){
		"args":    func(s *Server) { s.Args = []string{"evil.js"} },
		"command": func(s *Server) { s.Command = "bash" },
		"env":     func(s *Server) { s.Env = map[string]string{"NODE_OPTIONS": "--require evil"} },
		"url":     func(s *Server) { s.URL = "http://x" },
	} {
		c := stdio("x", "node", "server.js")
		change(&c)
		if c.Fingerprint() == a.Fingerprint() {
			t.Errorf("changing %s keeps the fingerprint", name)
		}
	}
}

func TestProjectCannotShadowUserServer(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ProjectFile), []byte(`{"mcpServers":{"gh":{"command":"evil"},"p":{"command":"ok"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	servers, errs := Configured([]config.MCPServer{{Name: "gh", Type: config.MCPStdio, Command: "github-mcp"}}, "config.yaml", ws)
	if len(servers) != 2 || servers[0].Command != "github-mcp" || servers[1].Name != "p" || !servers[1].NeedsTrust() || len(errs) != 1 {
		t.Fatalf("servers %+v errs %v", servers, errs)
	}
}

func TestFindImports(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	claude, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"claude-user": map[string]any{"command": "a"}},
		"projects": map[string]any{
			ws:      map[string]any{"mcpServers": map[string]any{"claude-proj": map[string]any{"type": "sse", "url": "http://h/sse"}}},
			"/else": map[string]any{"mcpServers": map[string]any{"other": map[string]any{"command": "b"}}},
		},
	})
	write(filepath.Join(home, ".claude.json"), string(claude))
	write(filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers":{"cursor-srv":{"url":"https://c/mcp"}}}`)
	write(vscodeSettings(home), `{
  "editor.fontSize": 14, // comment
  "mcp": {"servers": {"vs-user": {"type": "stdio", "command": "c", "args": ["/*not a comment*/"]}}},
}`)
	write(filepath.Join(ws, ".vscode", "mcp.json"), `{"servers":{"vs-proj":{"type":"http","url":"http://localhost:1/mcp"}}}`)
	found, errs := FindImports(home, ws)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var names []string
	for _, f := range found {
		names = append(names, f.Name+"@"+strings.SplitN(f.From, " (", 2)[0])
	}
	want := "claude-user@Claude Code claude-proj@Claude Code cursor-srv@Cursor vs-user@VS Code vs-proj@VS Code"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("found %s\nwant  %s", got, want)
	}
	for _, f := range found {
		if f.Name == "vs-user" && (len(f.Args) != 1 || f.Args[0] != "/*not a comment*/") {
			t.Errorf("a comment marker inside a string was stripped: %+v", f.Args)
		}
	}
}

func TestResultTextCaps(t *testing.T) {
	long := strings.Repeat("x", maxResultChars*2)
	got := capText(long, maxResultChars)
	if len(got) > maxResultChars+100 || !strings.Contains(got, "characters cut") {
		t.Fatalf("capped to %d", len(got))
	}
}

// FuzzParseServers: no input crashes the parsers of .mcp.json and of the
// imported tools' files, and every server they return is valid.
func FuzzParseServers(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x","args":["y"]}}}`))
	f.Add([]byte(`{"servers":{"b":{"type":"sse","url":"http://h/s"}}} // c`))
	f.Add([]byte(`{"mcp":{"servers":{"c":{"url":"https://h"}}},}`))
	f.Add([]byte(`{"projects":{"/w":{"mcpServers":{"d":{"command":"z"}}}}}`))
	f.Add([]byte(`/* "unterminated`))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(servers []Server, _ []error) {
			for _, s := range servers {
				c := s.MCPServer
				if err := c.Normalize(); err != nil {
					t.Fatalf("invalid server returned: %+v: %v", s, err)
				}
			}
		}
		check(ParseServers(data, SourceProject, "f"))
		check(ParseClaude(data, "/w", "f"))
		check(ParseVSCodeSettings(data, "", "f"))
		_ = StripJSONC(data)
	})
}

func TestPromptArgs(t *testing.T) {
	p := &sdk.Prompt{Name: "p", Arguments: []*sdk.PromptArgument{{Name: "city", Required: true}, {Name: "state"}}}
	for args, want := range map[string]string{
		"":                           "map[]",
		"Paris":                      "map[city:Paris]",
		"San Francisco":              "map[city:San state:Francisco]",
		"Springfield Illinois State": "map[city:Springfield state:Illinois State]",
		"state=TX Austin":            "map[city:Austin state:TX]",
		"city=New=York":              "map[city:New=York]",
	} {
		if got := fmt.Sprint(PromptArgs(p, args)); got != want {
			t.Errorf("PromptArgs(%q) = %s, want %s", args, got, want)
		}
	}
}

// A project server whose program is a workspace file the model can edit
// needs trust again once the file changes; the person's own servers and
// files outside the project are not read.
func TestFingerprintFollowsTheProjectFiles(t *testing.T) {
	ws := t.TempDir()
	script := filepath.Join(ws, "tools", "server.js")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("serve()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := stdio("p", "node", "tools/server.js")
	s.Source, s.File = SourceProject, filepath.Join(ws, ProjectFile)
	before := s.Fingerprint()
	if got := s.ProjectFiles(); len(got) != 1 || got[0] != "tools/server.js" {
		t.Fatalf("ProjectFiles = %q, want tools/server.js", got)
	}
	if err := os.WriteFile(script, []byte("serve(); exfiltrate()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.Fingerprint() == before {
		t.Error("an edited server script keeps the fingerprint")
	}
	user := s
	user.Source = SourceUser
	if user.fileHashes() != nil {
		t.Error("a user server's files are hashed")
	}
	outside := stdio("p", "node", "../elsewhere.js")
	outside.Source, outside.File = SourceProject, filepath.Join(ws, ProjectFile)
	if _, ok := outside.fileHashes()["../elsewhere.js"]; ok || len(outside.ProjectFiles()) != 0 {
		t.Errorf("a file outside the project is hashed: %v", outside.fileHashes())
	}
}

// A project server trusted while the script it runs was missing, or while
// it was huge, needs trust again once the script is written or changed.
func TestFingerprintMissingAndLargeFiles(t *testing.T) {
	ws := t.TempDir()
	s := stdio("p", "node", "tools/server.js")
	s.Source, s.File = SourceProject, filepath.Join(ws, ProjectFile)
	missing := s.Fingerprint()
	if err := os.MkdirAll(filepath.Join(ws, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 17<<20) // over the former 16 MiB cap
	if err := os.WriteFile(filepath.Join(ws, "tools", "server.js"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := s.Fingerprint()
	if huge == missing {
		t.Fatal("writing the missing script keeps the fingerprint")
	}
	big[len(big)-1] = 'y'
	if err := os.WriteFile(filepath.Join(ws, "tools", "server.js"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	if s.Fingerprint() == huge {
		t.Fatal("changing a 17 MiB script keeps the fingerprint")
	}
}
