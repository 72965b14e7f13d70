package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

// Options are what a frontend decides about the services it runs.
type Options struct {
	// Config are the effective settings (required).
	Config *config.Config
	// Store is the open database (required; the caller closes it).
	Store *store.Store
	// Provider is the model server; nil builds one from the settings.
	Provider llm.Provider
	// Approvals is the policy of sessions that set none (print mode sets
	// Unattended and Yes from the terminal and --yes).
	Approvals approval.Policy
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
}

// App holds olly's services, built once per process.
type App struct {
	Config    *config.Config
	Log       *slog.Logger
	Provider  llm.Provider
	Store     *store.Store
	Sessions  *session.Service
	Approvals *approval.Manager
	Tools     *tools.Registry
	Agent     *agent.Agent

	policy    approval.Policy
	closeOnce sync.Once

	// shells holds one shell manager per workspace directory: a manager's
	// roots bound where its sessions' commands may run.
	shellsMu sync.Mutex
	shells   map[string]*shell.Manager
}

// New builds the services from the settings.
func New(ctx context.Context, opts Options) (*App, error) {
	if opts.Config == nil || opts.Store == nil {
		return nil, errors.New("app: settings and store are required")
	}
	a := &App{Config: opts.Config, Log: opts.Log, Provider: opts.Provider, Store: opts.Store, policy: opts.Approvals,
		shells: map[string]*shell.Manager{}}
	if a.Log == nil {
		a.Log = discard()
	}
	if a.Provider == nil {
		p, err := NewProvider(a.Config)
		if err != nil {
			return nil, err
		}
		a.Provider = p
	}
	a.Approvals = approval.NewManager(approval.Options{Default: opts.Approvals})
	var err error
	if a.Tools, err = tools.NewRegistry(tools.Core()...); err != nil {
		return nil, err
	}
	a.Agent, err = agent.New(agent.Deps{
		Provider: a.Provider,
		Tools:    a.Tools,
		Config:   agent.ConfigFrom(&a.Config.Settings),
		ToolEnv:  a.toolEnv,
		Shell:    "bash",
	})
	if err != nil {
		return nil, err
	}
	a.Sessions, err = session.New(session.Deps{Store: a.Store, Runner: a.Agent})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// toolEnv gives a turn's tools what they use beyond the workspace: the
// approval manager with the session's policy, the session's shell, and the
// settings that limit them.
func (a *App) toolEnv(ctx context.Context, t *session.Turn) (tools.Env, error) {
	sess, err := a.Store.Session(ctx, t.SessionID)
	if err != nil {
		return tools.Env{}, fmt.Errorf("read session %s: %w", t.SessionID, err)
	}
	policy := a.policy
	policy.AutoApproveCommands = policy.AutoApproveCommands || sess.AutoApproveCommands
	policy.AutoApproveSensitiveEdits = policy.AutoApproveSensitiveEdits || sess.AutoApproveSensitiveEdits
	a.Approvals.SetPolicy(t.SessionID, policy)
	var sessionRules []config.FileRule
	if len(sess.SensitivePatterns) > 0 {
		if sessionRules, err = config.ParseFileRules(sess.SensitivePatterns); err != nil {
			return tools.Env{}, fmt.Errorf("session %s: its sensitive-file rules: %w", t.SessionID, err)
		}
	}
	shells, err := a.shellsFor(sess.Workspace)
	if err != nil {
		return tools.Env{}, err
	}
	return tools.Env{
		Approver:         a.Approvals,
		Shell:            shells.Session(t.SessionID),
		ArtifactDir:      shells.ArtifactDir(),
		ToolTimeout:      a.Config.Agent.ToolTimeout,
		FileRules:        a.Config.Agent.SensitiveFilePatterns,
		SessionFileRules: sessionRules,
	}, nil
}

// shellsFor returns the shell manager of a workspace, starting it on first
// use. Full command outputs go to the data directory's artifacts, where
// read_file pages them.
func (a *App) shellsFor(workspace string) (*shell.Manager, error) {
	a.shellsMu.Lock()
	defer a.shellsMu.Unlock()
	if m := a.shells[workspace]; m != nil {
		return m, nil
	}
	m, err := shell.NewManager(shell.ManagerOptions{
		Roots:          []string{workspace},
		ArtifactDir:    filepath.Join(a.Config.Paths().DataDir, "artifacts"),
		DefaultTimeout: a.Config.Agent.ToolTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("start shells for %s: %w", workspace, err)
	}
	a.shells[workspace] = m
	return m, nil
}

// Close stops what the services started: every session's shell (with its
// background jobs) is killed. The store belongs to the caller.
func (a *App) Close() error {
	var errs []error
	a.closeOnce.Do(func() {
		a.shellsMu.Lock()
		defer a.shellsMu.Unlock()
		for _, m := range a.shells {
			errs = append(errs, m.CloseAll())
		}
	})
	return errors.Join(errs...)
}

// Workspace returns the absolute workspace directory for dir ("" is the
// current directory).
func Workspace(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the current directory: %w (use --cwd)", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", abs)
	}
	return abs, nil
}
