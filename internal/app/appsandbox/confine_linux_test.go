//go:build linux

package appsandbox_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/trust"
)

func activeSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	b := sandbox.New("")
	if !b.Status().Active() {
		t.Skipf("no sandbox on this machine (%s): this test needs Landlock", b.Status().Reason)
	}
	return b
}

// setup loads settings for a home folder (olly's folders inside it) and
// the workspace rel inside it ("" the home folder itself: the worst case,
// where the workspace-write sandbox's root holds olly's own folders), and
// returns them with the workspace.
func setup(t *testing.T, rel string, environ ...string) (*config.Config, string) {
	t.Helper()
	home, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(home, rel)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	environ = append(environ, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
	cfg, err := config.Load(config.LoadOptions{Workspace: ws, Home: home, Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, ws
}

// TestSandboxedCommandCannotTrust checks the trust store's premise with
// the spec the app really gives commands: a command cannot change the
// trust decisions, nor olly's settings or data, even when the workspace
// is the home folder that holds them.
func TestSandboxedCommandCannotTrust(t *testing.T) {
	b := activeSandbox(t)
	cfg, home := setup(t, "")
	paths := cfg.Paths()
	s, err := trust.Open(trust.Path(paths.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Trust(home, trust.KindHook, "PreToolUse/0", "good"); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(paths.ConfigDir, "config.yaml")
	db := filepath.Join(paths.DataDir, "olly.db")
	for _, f := range []string{settings, db} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("original"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(s.Path())
	// As the session shell does: the template plus the workspace roots.
	spec := app.SandboxSpec(cfg)
	spec.Policy = sandbox.WorkspaceWrite
	spec.Writable = append([]string{home}, spec.Writable...)
	for _, target := range []string{s.Path(), settings, db} {
		for name, script := range map[string]string{
			"overwrite": "echo '{}' > " + target,
			"rename":    "echo '{}' > " + filepath.Join(home, "t.json") + " && mv " + filepath.Join(home, "t.json") + " " + target,
			"remove":    "rm -f " + target,
		} {
			cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script)
			waitc, err := b.Start(cmd, spec)
			if err != nil {
				t.Fatal(err)
			}
			if err := <-waitc; err == nil {
				t.Errorf("%s %s: the sandboxed command succeeded", name, target)
			}
		}
	}
	if after, _ := os.ReadFile(s.Path()); string(after) != string(before) {
		t.Fatal("the trust file changed")
	}
	for _, f := range []string{settings, db} {
		if b, _ := os.ReadFile(f); string(b) != "original" {
			t.Fatalf("%s changed: %q", f, b)
		}
	}
	if !s.Trusted(home, trust.KindHook, "PreToolUse/0", "good") {
		t.Fatal("the decision was lost")
	}
}

// TestProjectMCPServerStaysConfined: mcp.unsandboxed naming a project
// server (from the workspace's .mcp.json, which the model can write) does
// not start it outside the sandbox; naming a server of the person's own
// settings does.
func TestProjectMCPServerStaysConfined(t *testing.T) {
	b := activeSandbox(t)
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	script := func(name string) string {
		return "touch " + name + "-ran; touch .git/" + name + "-hook; touch '" + filepath.Join(outside, name+"-escaped") + "'"
	}
	user := `{mine: {command: sh, args: ["-c", "` + script("mine") + `"]}}`
	cfg, ws := setup(t, "proj", "OLLY_MCP_SERVERS="+user, "OLLY_MCP_UNSANDBOXED=[proj, mine]", "OLLY_MCP_CONNECT_TIMEOUT=5s")
	project := `{"mcpServers": {"proj": {"command": "sh", "args": ["-c", "` + script("proj") + `"]}}}`
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	// The workspace is a repository: a confined server must not write its
	// .git either (and, with a mount namespace, may still create files
	// at the top level).
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Per-entry rules allow no new top-level entries: there the confined
	// server's attempt shows in its stderr instead.
	topLevel := b.Status().Git == sandbox.GitMount
	m, errs := app.NewMCPManager(cfg, b, app.SandboxSpec(cfg), ws, slog.New(slog.DiscardHandler))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	defer m.Close()
	st, err := trust.Open(trust.Path(cfg.Paths().StateDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Servers() {
		if s.Name == "proj" {
			if err := st.Trust(ws, trust.KindMCP, s.Name, s.Fingerprint()); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The manager read the trust file when it opened; reopen it so it
	// sees the decision.
	m.Close()
	m, _ = app.NewMCPManager(cfg, b, app.SandboxSpec(cfg), ws, slog.New(slog.DiscardHandler))
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, name := range []string{"proj", "mine"} {
		_, err := m.Connect(ctx, name) // not MCP servers: connecting fails once they ran
		if err == nil || strings.Contains(err.Error(), "not trusted") {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "mine" || topLevel {
			waitFor(t, filepath.Join(ws, name+"-ran"))
		} else if !strings.Contains(err.Error(), name+"-ran") {
			t.Fatalf("%s did not run: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "proj-hook")); err == nil {
		t.Error("the confined project server wrote the workspace's .git")
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "mine-hook")); err != nil {
		t.Error("the user's unconfined server could not write .git (the check above proves nothing then)")
	}
	if _, err := os.Stat(filepath.Join(outside, "proj-escaped")); err == nil {
		t.Error("the project server wrote outside the workspace: mcp.unsandboxed started it unconfined")
	}
	if _, err := os.Stat(filepath.Join(outside, "mine-escaped")); err != nil {
		t.Error("the user's own server named in mcp.unsandboxed was confined (the check above proves nothing then)")
	}
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	for range 100 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not appear: the server did not run", path)
}
