package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/lsp"
	"github.com/olly-agent/olly/internal/mcp"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// space holds the services bound to one workspace directory: its shells
// (their roots bound where commands run), its language servers and its
// checkpoints. Sessions of the same directory share them.
type space struct {
	shells      *shell.Manager
	lsp         *lsp.Manager
	checkpoints *checkpoint.Manager
	// mcp are the workspace's MCP servers, connected on first use.
	mcp *mcp.Manager
}

// spaces starts a workspace's services on first use.
type spaces struct {
	mu   sync.Mutex
	byWS map[string]*space
	// scratch are the sessions' scratch directories PrestartShell made
	// (a turn removes its own; one that never ran leaves it): Close
	// removes those still empty.
	scratch []string
}

// spaceFor returns the services of ws, starting them on first use.
func (a *App) spaceFor(ws *workspace.Workspace) (*space, error) {
	dir := ws.Primary().Path
	a.spaces.mu.Lock()
	defer a.spaces.mu.Unlock()
	if sp := a.spaces.byWS[dir]; sp != nil {
		return sp, nil
	}
	shellOpts := shell.ManagerOptions{
		Roots:          []string{dir},
		ArtifactDir:    filepath.Join(a.Config.Paths().DataDir, "artifacts"),
		DefaultTimeout: a.Config.Agent.ToolTimeout,
	}
	a.shellOptions(&shellOpts)
	shells, err := shell.NewManager(shellOpts)
	if err != nil {
		return nil, fmt.Errorf("start shells for %s: %w", dir, err)
	}
	servers, err := lsp.ServersWith(a.Config.LSP.Servers)
	if err != nil {
		return nil, fmt.Errorf("lsp.servers: %w", err)
	}
	mcps, mcpErrs := a.MCPManager(dir)
	for _, err := range mcpErrs {
		a.Log.Warn("mcp configuration", "workspace", dir, "error", err)
	}
	sp := &space{
		shells:      shells,
		lsp:         lsp.NewManager(ws, lsp.Options{Servers: servers, Logger: a.Log}),
		checkpoints: checkpoint.New(a.Store, dir, sessionEmitter{a.Sessions}),
		mcp:         mcps,
	}
	if a.spaces.byWS == nil {
		a.spaces.byWS = map[string]*space{}
	}
	a.spaces.byWS[dir] = sp
	return sp, nil
}

// closeSpaces stops every workspace's shells (and their background jobs)
// and language servers.
func (a *App) closeSpaces() error {
	a.spaces.mu.Lock()
	defer a.spaces.mu.Unlock()
	var errs []error
	for _, sp := range a.spaces.byWS {
		errs = append(errs, sp.shells.CloseAll(), sp.lsp.Close(), sp.mcp.Close())
	}
	for _, dir := range a.spaces.scratch {
		_ = os.Remove(dir) // only if empty: a turn's files are the turn's to remove
	}
	return errors.Join(errs...)
}

// diagnostics is a workspace's language servers as both the write tool's
// auto-diagnostics and the agent's completion gate.
type diagnostics struct{ *lsp.Manager }

// Check implements agent.Diagnostics.
func (d diagnostics) Check(ctx context.Context, files []string) (agent.DiagnosticsReport, error) {
	r, err := d.Manager.Check(ctx, files)
	return agent.DiagnosticsReport{Errors: r.Errors, Text: r.Text, Unchecked: r.Unchecked}, err
}

// changedFiles answers get_diagnostics without a path: the files of the
// session's checkpoints that are still pending review.
type changedFiles struct{ st *store.Store }

func (c changedFiles) ChangedFiles(ctx context.Context, sessionID string) ([]string, error) {
	cps, err := c.st.Checkpoints(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, cp := range cps {
		snaps, err := c.st.Snapshots(ctx, cp.ID)
		if err != nil {
			return nil, err
		}
		for _, s := range snaps {
			if s.Status == store.FilePending && !seen[s.FilePath] {
				seen[s.FilePath] = true
				out = append(out, s.FilePath)
			}
		}
	}
	return out, nil
}

// branchOnFirstWrite starts an agent run's work on a new git branch before
// its first write (agent.autoCreateBranch), and tells the person what it
// did.
func (a *App) branchOnFirstWrite(run *checkpoint.Run, t *session.Turn, dir string) {
	run.BeforeFirstWrite(func(ctx context.Context) {
		b, err := checkpoint.StartBranch(ctx, dir, t.Input.Text, a.now())
		msg := b.Message()
		if err != nil {
			msg = fmt.Sprintf("Could not create a git branch (%v); working on the current branch.", err)
		}
		code := "git_branch"
		if !b.Created {
			code = "git_branch_refused"
		}
		_, _ = t.Emit(context.WithoutCancel(ctx), event.Warning{Code: code, Message: msg})
	})
}
