package config

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMCPServersSetting(t *testing.T) {
	tests := []struct {
		name, value string
		want        []MCPServer
		err         string
	}{
		{name: "stdio", value: `{fs: {command: npx, args: [-y, srv], env: {A: b}}}`,
			want: []MCPServer{{Name: "fs", Type: MCPStdio, Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"A": "b"}}}},
		{name: "url is http", value: `{web: {url: "https://x.example/mcp"}}`,
			want: []MCPServer{{Name: "web", Type: MCPHTTP, URL: "https://x.example/mcp"}}},
		{name: "sse", value: `{old: {type: sse, url: "http://127.0.0.1:1/sse"}}`,
			want: []MCPServer{{Name: "old", Type: MCPSSE, URL: "http://127.0.0.1:1/sse"}}},
		{name: "sorted", value: `{b: {command: x}, a: {command: y}}`,
			want: []MCPServer{{Name: "a", Type: MCPStdio, Command: "y"}, {Name: "b", Type: MCPStdio, Command: "x"}}},
		{name: "no command", value: `{x: {args: [a]}}`, err: "needs a command"},
		{name: "bad type", value: `{x: {type: ws, url: "http://h"}}`, err: "not stdio, http or sse"},
		{name: "bad url", value: `{x: {type: http, url: "file:///etc"}}`, err: "not an http(s) URL"},
		{name: "bad name", value: `{"a__b": {command: x}}`, err: "no \"__\""},
		{name: "list", value: `[a, b]`, err: "expected MCP servers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(LoadOptions{Home: t.TempDir(), Environ: []string{"OLLY_MCP_SERVERS=" + tt.value}})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := c.MCP.Servers
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v", got)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if g.Name != w.Name || g.Type != w.Type || g.Command != w.Command || g.URL != w.URL ||
					strings.Join(g.Args, " ") != strings.Join(w.Args, " ") || len(g.Env) != len(w.Env) {
					t.Errorf("server %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestMCPServersListingMasksSecrets: env and header values (tokens) are
// not shown by olly config list/get.
func TestMCPServersListingMasksSecrets(t *testing.T) {
	c, err := Load(LoadOptions{Home: t.TempDir(), Environ: []string{
		`OLLY_MCP_SERVERS={gh: {command: gh-mcp, env: {GITHUB_TOKEN: ghp_secret}}, w: {url: "https://h/mcp", headers: {Authorization: Bearer tok_secret}}}`}})
	if err != nil {
		t.Fatal(err)
	}
	en, _ := c.Entry("mcp.servers")
	js, _ := json.Marshal(en.JSON())
	for _, shown := range []string{en.Text(), string(js)} {
		if strings.Contains(shown, "secret") || !strings.Contains(shown, "GITHUB_TOKEN") || !strings.Contains(shown, "gh-mcp") {
			t.Errorf("listing: %s", shown)
		}
	}
	if c.MCP.Servers[0].Env["GITHUB_TOKEN"] != "ghp_secret" {
		t.Error("masking changed the setting itself")
	}
}
