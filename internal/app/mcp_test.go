package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/mcp/mcptest"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// TestMCPPromptsAreCommands: a session's commands (RPC get_commands) list
// the prompts of its workspace's connected MCP servers after the built-in
// ones, and a prompt can be used before its server is connected.
func TestMCPPromptsAreCommands(t *testing.T) {
	node, script := mcptest.Everything(t)
	ctx := context.Background()
	home, ws := t.TempDir(), t.TempDir()
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "c"), "XDG_DATA_HOME=" + filepath.Join(home, "d"),
			"XDG_STATE_HOME=" + filepath.Join(home, "s"),
			"OLLY_MCP_SERVERS={everything: {command: " + node + ", args: [" + script + ", stdio]}}"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	prov, err := ollama.New(llmtest.New(t).URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(ctx, Options{Config: cfg, Store: st, Provider: prov, Sandbox: sandbox.Disabled("test")})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sess, err := a.Sessions.Create(ctx, session.CreateOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	commands := func() (builtin, prompt *session.Command) {
		cmds, err := a.Sessions.Commands(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cmds {
			switch c.Name {
			case "plan":
				builtin = &c
			case "mcp__everything__args-prompt":
				prompt = &c
			}
		}
		return builtin, prompt
	}
	// Listing commands connects no server: the server's prompts appear
	// once it is connected (a turn, or using one of its prompts).
	if builtin, prompt := commands(); builtin == nil || builtin.Source != "builtin" || prompt != nil {
		t.Fatalf("before the server connected: plan %+v, args-prompt %+v", builtin, prompt)
	}
	text, err := mcpPrompts{a}.ExpandPrompt(ctx, ws, "mcp__everything__args-prompt", "Paris")
	if err != nil || !strings.Contains(text, "Paris") {
		t.Fatalf("using the prompt: %q, %v", text, err)
	}
	if _, prompt := commands(); prompt == nil || prompt.Source != "mcp" || prompt.Usage != "/mcp__everything__args-prompt <city> [state]" {
		t.Fatalf("args-prompt: %+v", prompt)
	}
}
