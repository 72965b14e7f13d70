package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// Options are what a frontend decides about the services it runs.
type Options struct {
	// Config are the effective settings (required).
	Config *config.Config
	// Store is the open database (required; the caller closes it).
	Store *store.Store
	// Provider is the model server; nil builds one from the settings.
	Provider llm.Provider
	// NewProvider builds the model-server clients of settings with a
	// retry policy: at the start when Provider is nil, and when the
	// connection settings change (Reconfigure); nil: NewProviderWithRetry.
	NewProvider func(cfg *config.Config, retry llm.RetryPolicy) (llm.Provider, error)
	// Approvals is the policy of sessions that set none (print mode sets
	// Unattended and Yes from the terminal and --yes).
	Approvals approval.Policy
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// ExtraRoots widen every session's workspace in advance (--add-dir);
	// the user-level setting workspace.extraRoots is added to them.
	ExtraRoots []string
	// Sandbox confines commands; nil detects this machine's.
	Sandbox *sandbox.Sandbox
}

// App holds olly's services, built once per process.
type App struct {
	// Config are the settings olly started with; Settings are those in
	// use (Reconfigure).
	Config *config.Config
	Log    *slog.Logger
	// Provider is the model server of the current settings (it follows
	// Reconfigure).
	Provider  llm.Provider
	Store     *store.Store
	Sessions  *session.Service
	Approvals *approval.Manager
	Tools     *tools.Registry
	Agent     *agent.Agent
	// Sandbox confines the commands of every session.
	Sandbox *sandbox.Sandbox
	// Files caches the workspaces' file listings for @file completion,
	// shared by every frontend of this process (TUI, RPC, each web
	// connection).
	Files *workspace.FileIndex

	policy approval.Policy
	// extraRoots widen every session's workspace (--add-dir,
	// workspace.extraRoots).
	extraRoots []string
	closeOnce  sync.Once
	now        func() time.Time

	// spaces are the per-workspace services (spaces.go).
	spaces spaces
	// trust is what this process remembers of project trust (trust.go).
	trust trustState

	// What a settings change replaces (reconfigure.go): the settings in
	// use, the model-server clients, the title writer, the frontends'
	// model catalog.
	reconfigMu   sync.Mutex
	settings     atomic.Pointer[config.Config]
	live         liveProvider
	titles       liveTitles
	catalog      *models.Catalog
	makeProvider func(cfg *config.Config, retry llm.RetryPolicy) (llm.Provider, error)
}

// New builds the services from the settings.
func New(ctx context.Context, opts Options) (*App, error) {
	if opts.Config == nil || opts.Store == nil {
		return nil, errors.New("app: settings and store are required")
	}
	a := &App{Config: opts.Config, Log: opts.Log, Store: opts.Store, policy: opts.Approvals, makeProvider: opts.NewProvider,
		now: time.Now, Sandbox: opts.Sandbox, Files: workspace.NewFileIndex(workspace.FileIndexOptions{})}
	a.settings.Store(opts.Config)
	if a.Sandbox == nil {
		a.Sandbox = sandbox.New("")
		// The .git probe's answer is remembered in the state folder
		// (sandboxed commands cannot write it), so an olly start does not
		// re-execute olly to probe again.
		a.Sandbox.CacheGitProbe(filepath.Join(a.Config.Paths().StateDir, "sandbox-git-probe.json"))
	}
	// approval.mode applies only while a sandbox confines what runs
	// without asking (Policy.EffectiveMode).
	a.policy.Mode = a.Config.Approval.Mode
	a.policy.Sandboxed = a.Sandbox.Status().Active()
	if a.Log == nil {
		a.Log = discard()
	}
	if err := a.startClients(opts.Provider); err != nil {
		return nil, err
	}
	a.Approvals = approval.NewManager(approval.Options{Default: a.policy})
	// agent.maxActiveSessions: sessions generating at once, counted across
	// every olly using this database (the store's owner rule).
	a.Store.SetMaxGenerating(a.Config.Agent.MaxActiveSessions)
	var err error
	// The code-intelligence tools get the turn's language servers from
	// their Env (tools.Env.LanguageServers), so one registry serves every
	// workspace.
	// run_subagent (the orchestrator's delegation) is registered with the
	// others; the agent runs its sub-agents (tools.Env.Subagents).
	registered := append(tools.Core(), tools.LSP(nil, changedFiles{a.Store})...)
	registered = append(registered, tools.TodoWrite{}, tools.TodoRead{})              // the agent's todo list (todo.go)
	registered = append(registered, tools.Skill{UserDir: a.Config.Paths().ConfigDir}) // skills, loaded when the model asks
	registered = append(registered, a.webTools()...)                                  // web_fetch, and web_search when a backend is configured (web.go)
	if a.Tools, err = tools.NewRegistry(append(registered, tools.Subagent{})...); err != nil {
		return nil, err
	}
	turns, _ := a.live.clients()
	a.Agent, err = agent.New(agent.Deps{
		Provider: turns,
		Tools:    a.Tools,
		Config:   a.agentConfig(a.Config),
		ToolEnv:  a.toolEnv,
		Shell:    "bash",
		Log:      a.Log,
		// A prompt with images on a model without vision names these.
		VisionModels: a.visionModels,
		Hooks:        a.turnHooks, // hooks.go: /compact's PreCompact hooks
	})
	if err != nil {
		return nil, err
	}
	// Model-written titles (agent.sessionTitleGeneration) run in the
	// session service's background; Close waits for them.
	a.titles.set(agent.NewTitleGenerator(a.Agent, agent.TitleConfigFrom(&a.Config.Settings)))
	a.extraRoots = append(slices.Clone(a.Config.Workspace.ExtraRoots), opts.ExtraRoots...)
	a.Sessions, err = session.New(session.Deps{Store: a.Store, Runner: a.Agent, Titles: &a.titles, Log: a.Log,
		Prompts:       mcpPrompts{a},
		UserConfigDir: a.Config.Paths().ConfigDir, // custom commands and skills
		OpenWorkspace: a.openWorkspace})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// toolEnv gives a turn's tools what they use beyond the workspace: the
// approval manager with the session's policy, the session's shell, and the
// settings that limit them.
func (a *App) toolEnv(ctx context.Context, t *session.Turn) (tools.Env, error) {
	// The turn is about to append its steps: the committer prepares their
	// statements while it waits for the model (store warm.go).
	a.Store.Warm()
	sess, err := a.Store.Session(ctx, t.SessionID)
	if err != nil {
		return tools.Env{}, fmt.Errorf("read session %s: %w", t.SessionID, err)
	}
	a.Approvals.SetPolicy(t.SessionID, a.sessionPolicy(sess))
	var sessionRules []config.FileRule
	if len(sess.SensitivePatterns) > 0 {
		if sessionRules, err = config.ParseFileRules(sess.SensitivePatterns); err != nil {
			return tools.Env{}, fmt.Errorf("session %s: its sensitive-file rules: %w", t.SessionID, err)
		}
	}
	sp, err := a.spaceFor(t.Workspace)
	if err != nil {
		return tools.Env{}, err
	}
	run := sp.checkpoints.Begin(t.SessionID, t.Number)
	cfg := a.Settings() // Reconfigure may have changed them since the start
	if cfg.Agent.AutoCreateBranch {
		a.branchOnFirstWrite(run, t, t.Workspace.Primary().Path)
	}
	env := tools.Env{
		Approver:         a.Approvals,
		Shell:            sp.shells.Session(t.SessionID),
		ArtifactDir:      sp.shells.ArtifactDir(),
		ToolTimeout:      cfg.Agent.ToolTimeout,
		FileRules:        cfg.Agent.SensitiveFilePatterns,
		SessionFileRules: sessionRules,
		Snapshots:        run,
		Diagnostics:      diagnostics{sp.lsp},
		LanguageServers:  sp.lsp,
		Sandbox:          a.commandSandbox(),
		External:         externalTools(sp.mcp),
		Todos:            a.Sessions,
	}
	env.PrestartShell = a.prestartShell(sp.shells.Session(t.SessionID), a.sessionPolicy(sess), t.Workspace)
	if h := a.hookRunner(t.SessionID, t.Workspace); h != nil { // a nil *Runner must not become a non-nil interface
		env.Hooks = h
	}
	return env, nil
}

// sessionPolicy is the approval policy of a session: the frontend's
// (print mode's terminal, --yes) with the session's own auto-approve
// toggles on top. The one place the two are merged.
func (a *App) sessionPolicy(sess *store.Session) approval.Policy {
	policy := a.policy
	policy.AutoApproveCommands = policy.AutoApproveCommands || sess.AutoApproveCommands
	policy.AutoApproveSensitiveEdits = policy.AutoApproveSensitiveEdits || sess.AutoApproveSensitiveEdits
	return policy
}

// Close stops what the services started: every workspace's shells (with
// their background jobs) and language servers. The store belongs to the
// caller.
func (a *App) Close() error {
	var err error
	a.closeOnce.Do(func() {
		if a.Sessions != nil {
			_ = a.Sessions.Close() // waits for titles being written, before the caller closes the store
		}
		err = a.closeSpaces()
	})
	return err
}

// contextCap is the per-model cap on num_ctx from the models table (0:
// none). Read at every turn, so `olly models` changes apply at once.
func (a *App) contextCap(model string) int {
	models, err := a.Store.Models(context.Background())
	if err != nil {
		a.Log.Warn("read the per-model context caps", "error", err)
		return 0
	}
	for _, m := range models {
		if m.Name == model {
			return m.NumCtxCap
		}
	}
	return 0
}

// StartIndexing computes vectors for session search by meaning
// (embedding.model on the model server) in the background, resuming where
// the last run stopped, until the returned handle's Stop. Long-running
// frontends (RPC, web, the terminal UI) call it and stop it before closing
// the store; one-shot commands do not (olly sessions search catches up by
// itself). progress hears of every batch and failure; nil logs failures.
// With no embedding model configured it returns nil (Stop on nil is a
// no-op).
func (a *App) StartIndexing(ctx context.Context, progress func(store.IndexProgress)) (*session.Indexing, error) {
	if progress == nil {
		progress = func(p store.IndexProgress) {
			if p.Err != nil {
				a.Log.Warn("search indexing", "model", p.Model, "err", p.Err, "retryIn", p.RetryIn)
			}
		}
	}
	return session.StartIndexing(ctx, a.Store, a.Embedder(), progress)
}

// Embedder computes vectors with embedding.model on the model server; nil
// when no embedding model is configured (search by words only).
func (a *App) Embedder() *store.Embedder {
	return session.NewEmbedder(a.Provider, a.Config.Embedding.Model)
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

// openWorkspace is a session's workspace: the directory, the extra roots,
// and olly's own folders protected — the file tools never write them,
// even from a workspace that holds them (the home folder).
func (a *App) openWorkspace(dir string) (*workspace.Workspace, error) {
	p := a.Config.Paths()
	return workspace.New([]string{dir}, workspace.WithExtraRoots(a.extraRoots...),
		workspace.WithProtected(p.ConfigDir, p.DataDir, p.StateDir))
}

// scratchDir holds the sessions' scratch directories (agent.OpenScratch).
func (a *App) scratchDir() string { return filepath.Join(a.Config.Paths().StateDir, "scratch") }
