package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/mcp"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/trust"
)

// MCPManager builds the MCP servers of workspace dir: the user's
// mcp.servers and the project's .mcp.json, stdio servers confined by the
// sandbox (workspace-write with network) unless mcp.unsandboxed names
// them. Problems with the configuration files are returned beside it:
// the servers that could be read still work.
func (a *App) MCPManager(dir string) (*mcp.Manager, []error) {
	return NewMCPManager(a.Config, a.Sandbox, a.sandboxSpec(), dir, a.Log)
}

// NewMCPManager is MCPManager for callers without an App (olly mcp,
// olly doctor): sb nil detects the sandbox, spec is the command sandbox's
// template (SandboxSpec).
func NewMCPManager(cfg *config.Config, sb *sandbox.Sandbox, spec sandbox.Spec, dir string, log *slog.Logger) (*mcp.Manager, []error) {
	paths := cfg.Paths()
	servers, errs := mcp.Configured(cfg.MCP.Servers, paths.GlobalFile, dir)
	st, err := trust.Open(trust.Path(paths.StateDir))
	if err != nil {
		errs = append(errs, err) // project servers stay untrusted
	}
	if sb == nil {
		sb = sandbox.New("")
	}
	// The servers start from the shell's clean environment (no provider
	// keys or other secrets of olly's own); what a server needs goes in
	// its configured env.
	base := shell.EnvPolicy{Keep: cfg.Shell.Env.Keep, Drop: cfg.Shell.Env.Drop}.Environ(os.Environ())
	wrap, env := mcpWrap(sb, spec, dir, paths.StateDir, base)
	c := cfg.MCP
	return mcp.New(mcp.Options{Workspace: dir, Servers: servers, Trust: st, Wrap: wrap, Environ: env,
		Unsandboxed: c.Unsandboxed, Allow: c.Allow, AutoApproveReadOnly: c.AutoApproveReadOnly,
		CallTimeout: c.CallTimeout, ConnectTimeout: c.ConnectTimeout, Log: log}), errs
}

// SandboxSpec is the template of every command's sandbox under cfg (see
// sandboxSpec).
func SandboxSpec(cfg *config.Config) sandbox.Spec { return (&App{Config: cfg}).sandboxSpec() }

// mcpWrap returns the sandbox wrapper of a workspace's stdio servers and
// the environment they start with (TMPDIR in a folder of olly's state
// directory that the sandbox lets them write); nil when no sandbox works.
func mcpWrap(sb *sandbox.Sandbox, spec sandbox.Spec, dir, statedir string, base []string) (func(string, *exec.Cmd) error, []string) {
	if !sb.Status().Active() {
		return nil, base
	}
	sum := sha256.Sum256([]byte(dir))
	tmp := filepath.Join(statedir, "mcp", hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return func(string, *exec.Cmd) error {
			return fmt.Errorf("create the servers' temporary folder: %w", err)
		}, base
	}
	spec.Policy = sandbox.WorkspaceWrite
	spec.Writable = append([]string{dir}, spec.Writable...)
	spec.Own = []string{tmp}
	// The places as they resolve now, when the servers' sandbox is
	// decided: a link a command puts in place of one later is not
	// followed when a server starts (Pinned).
	spec = sandbox.Pin(spec)
	// Servers reach their services (GitHub, a database, a package
	// registry for npx): the network is what most of them are for.
	spec.Network = true
	helper := sb.WithHelper()
	env := make([]string, 0, len(base)+1)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	env = append(env, "TMPDIR="+tmp)
	return func(_ string, cmd *exec.Cmd) error { return helper.Prepare(cmd, spec) }, env
}

// externalTools is a workspace's MCP servers as the turn's tool source;
// nil when none are configured, so turns skip them entirely.
func externalTools(m *mcp.Manager) tools.ToolSource {
	if m == nil || len(m.Servers()) == 0 {
		return nil
	}
	return m
}

// mcpPrompts offers the MCP prompts of a session's workspace as slash
// commands (session.PromptSource).
type mcpPrompts struct{ a *App }

func (p mcpPrompts) manager(dir string) (*mcp.Manager, error) {
	ws, err := p.a.openWorkspace(dir)
	if err != nil {
		return nil, err
	}
	sp, err := p.a.spaceFor(ws)
	if err != nil {
		return nil, err
	}
	return sp.mcp, nil
}

// PromptCommands implements session.PromptSource.
func (p mcpPrompts) PromptCommands(ctx context.Context, dir string) []session.Command {
	m, err := p.manager(dir)
	if err != nil || len(m.Servers()) == 0 {
		return nil
	}
	var out []session.Command
	for _, c := range m.Prompts(ctx) {
		out = append(out, session.Command{Name: c.Name, Usage: c.Usage, About: c.Description, Source: "mcp"})
	}
	return out
}

// ExpandPrompt implements session.PromptSource.
func (p mcpPrompts) ExpandPrompt(ctx context.Context, dir, command, args string) (string, error) {
	m, err := p.manager(dir)
	if err != nil {
		return "", err
	}
	return m.ExpandPrompt(ctx, command, args)
}
