package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/mcp/mcptest"
)

// TestPromptsStartNoServer: listing the prompt commands (a menu) neither
// starts a server nor waits for one; using a prompt connects its server,
// and from then on its prompts are listed.
func TestPromptsStartNoServer(t *testing.T) {
	node, script := mcptest.Everything(t)
	marker := filepath.Join(t.TempDir(), "started")
	m := New(Options{Workspace: t.TempDir(), CallTimeout: 30 * time.Second, ConnectTimeout: 30 * time.Second, Servers: []Server{
		stdio("everything", node, script, "stdio"),
		// A server that would hold a connection attempt for the whole
		// timeout, and leaves a mark if it is ever started.
		stdio("slow", "sh", "-c", "touch "+marker+"; sleep 60"),
	}})
	defer m.Close()
	ctx := context.Background()
	start := time.Now()
	if got := m.Prompts(ctx); len(got) != 0 {
		t.Fatalf("prompts of servers never connected: %+v", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("listing took %s: it waited for a server", d)
	}
	text, err := m.ExpandPrompt(ctx, "mcp__everything__args-prompt", "Paris")
	if err != nil || !strings.Contains(text, "Paris") {
		t.Fatalf("ExpandPrompt on a server not yet connected = %q, %v", text, err)
	}
	found := false
	for _, c := range m.Prompts(ctx) {
		if strings.HasPrefix(c.Name, "mcp__slow__") {
			t.Errorf("a prompt of the unconnected server: %+v", c)
		}
		found = found || c.Name == "mcp__everything__args-prompt"
	}
	if !found {
		t.Errorf("the connected server's prompts are not listed: %+v", m.Prompts(ctx))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("listing or using another server's prompt started the slow server")
	}
}
