package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/mcp/mcptest"
)

func TestMCPAddListRemove(t *testing.T) {
	e := newTestEnv(t)
	if code, _, errOut := e.run(t, "mcp", "add", "fs", "-e", "A=1", "--", "npx", "-y", "server-fs", "."); code != 0 {
		t.Fatalf("add: %d %s", code, errOut)
	}
	if code, _, errOut := e.run(t, "mcp", "add", "docs", "--url", "https://example.com/mcp"); code != 0 {
		t.Fatalf("add url: %d %s", code, errOut)
	}
	if code, _, errOut := e.run(t, "mcp", "add", "old", "--transport", "sse", "http://localhost:9/sse"); code != 0 {
		t.Fatalf("add sse (Claude Code's form): %d %s", code, errOut)
	}
	if code, _, _ := e.run(t, "mcp", "add", "fs", "--", "x"); code == 0 {
		t.Fatal("a second fs was added")
	}
	if code, _, _ := e.run(t, "mcp", "add", "bad", "npx"); code == 0 {
		t.Fatal("a command without -- was accepted")
	}
	_, out, _ := e.run(t, "mcp", "list")
	for _, want := range []string{"fs", "user", "npx -y server-fs .", "docs", "http https://example.com/mcp", "sse http://localhost:9/sse"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	data, _ := os.ReadFile(e.global())
	if !strings.Contains(string(data), "server-fs") || !strings.Contains(string(data), "A: \"1\"") && !strings.Contains(string(data), "A: '1'") && !strings.Contains(string(data), "A: 1") {
		t.Errorf("settings file:\n%s", data)
	}
	if code, _, errOut := e.run(t, "mcp", "remove", "fs"); code != 0 {
		t.Fatalf("remove: %d %s", code, errOut)
	}
	if _, out, _ = e.run(t, "mcp", "list"); strings.Contains(out, "server-fs") {
		t.Errorf("fs still listed:\n%s", out)
	}
}

func TestMCPProjectTrust(t *testing.T) {
	e := newTestEnv(t)
	if code, _, errOut := e.run(t, "mcp", "add", "--scope", "project", "proj", "--", "node", "server.js"); code != 0 {
		t.Fatalf("add: %d %s", code, errOut)
	}
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	data, _ := os.ReadFile(filepath.Join(e.ws, ".mcp.json"))
	if err := json.Unmarshal(data, &doc); err != nil || doc.MCPServers["proj"]["command"] != "node" {
		t.Fatalf(".mcp.json = %s (%v)", data, err)
	}
	if _, out, _ := e.run(t, "mcp", "list"); !strings.Contains(out, "not trusted (olly mcp trust proj)") {
		t.Fatalf("list:\n%s", out)
	}
	if code, out, errOut := e.run(t, "mcp", "trust", "proj"); code != 0 || !strings.Contains(out, "node server.js") {
		t.Fatalf("trust: %d %s %s", code, out, errOut)
	}
	if _, out, _ := e.run(t, "mcp", "list"); !strings.Contains(out, "trusted") || strings.Contains(out, "not trusted") {
		t.Fatalf("list after trust:\n%s", out)
	}
	// A changed entry needs trusting again.
	if err := os.WriteFile(filepath.Join(e.ws, ".mcp.json"), []byte(`{"mcpServers":{"proj":{"command":"node","args":["evil.js"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, _ := e.run(t, "mcp", "list"); !strings.Contains(out, "not trusted") {
		t.Fatalf("a changed entry is still trusted:\n%s", out)
	}
	if code, _, _ := e.run(t, "mcp", "trust", "nosuch"); code == 0 {
		t.Error("trusting an unknown server succeeded")
	}
}

func TestMCPImport(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, filepath.Join(e.home, ".cursor", "mcp.json"), `{"mcpServers":{"cur":{"command":"cursor-srv"},"two":{"url":"https://t/mcp"}}}`)
	_, out, _ := e.run(t, "mcp", "import")
	if !strings.Contains(out, "cur") || !strings.Contains(out, "Cursor") {
		t.Fatalf("import list:\n%s", out)
	}
	if code, out, errOut := e.run(t, "mcp", "import", "cur"); code != 0 || !strings.Contains(out, "Imported cur") {
		t.Fatalf("import cur: %d %s %s", code, out, errOut)
	}
	if _, out, _ = e.run(t, "mcp", "list"); !strings.Contains(out, "cursor-srv") || strings.Contains(out, "https://t/mcp") {
		t.Fatalf("list after importing one:\n%s", out)
	}
	if code, out, _ := e.run(t, "mcp", "import", "--all"); code != 0 || !strings.Contains(out, "Skipped cur") || !strings.Contains(out, "Imported two") {
		t.Fatalf("import --all: %s", out)
	}
}

func TestMCPTestCommand(t *testing.T) {
	node, script := mcptest.Everything(t)
	e := newTestEnv(t)
	e.write(t, e.global(), "mcp:\n  servers:\n    everything:\n      command: "+node+"\n      args: ["+script+", stdio]\n    broken:\n      command: /nonexistent/mcp\n")
	code, out, _ := e.run(t, "mcp", "test")
	if code == 0 || !strings.Contains(out, "everything: ok") || !strings.Contains(out, "echo") || !strings.Contains(out, "broken: FAILED") {
		t.Fatalf("test: %d\n%s", code, out)
	}
}

// TestDoctorMCPLines: olly doctor has a line per server: a user server
// that connects (with its tool count), one that does not, and an
// untrusted project server, which it does not start.
func TestDoctorMCPLines(t *testing.T) {
	node, script := mcptest.Everything(t)
	srv := llmtest.New(t)
	e := newTestEnv(t, "XDG_DATA_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	e.write(t, e.global(), "mcp:\n  servers:\n    everything:\n      command: "+node+"\n      args: ["+script+", stdio]\n    broken:\n      command: /nonexistent/mcp\n")
	marker := filepath.Join(t.TempDir(), "started")
	e.write(t, filepath.Join(e.ws, ".mcp.json"), `{"mcpServers":{"proj":{"command":"sh","args":["-c","touch `+marker+`"]}}}`)
	_, checks, _ := runDoctorJSON(t, e, "--base-url", srv.URL())
	if c := findCheck(t, checks, "mcp everything"); c.Status != checkOK || !strings.Contains(c.Detail, "connects") || !strings.Contains(c.Detail, "tools") {
		t.Errorf("everything: %+v", c)
	}
	if c := findCheck(t, checks, "mcp broken"); c.Status != checkWarn || c.Fix == "" {
		t.Errorf("broken: %+v", c)
	}
	if c := findCheck(t, checks, "mcp proj"); c.Status != checkWarn || !strings.Contains(c.Fix, "olly mcp trust proj") {
		t.Errorf("proj: %+v", c)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("doctor started an untrusted project server")
	}
}
