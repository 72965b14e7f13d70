package cli

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/exetrim"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/ui/tui"
	"github.com/olly-agent/olly/internal/workspace"
)

// interactive reports whether olly without -p opens the terminal UI: both
// stdin and stdout are a terminal.
func (f *Factory) interactive() bool { return f.IO.StdinTTY && f.IO.StdoutTTY }

// runTUI opens the terminal UI on a new session (with the task, if one was
// given), or on the one --continue or --resume names.
func runTUI(ctx context.Context, f *Factory, opts *printOptions, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Continue && opts.Resume != "" {
		return usageError("--continue and --resume both name a session: use one (--continue: the latest here; --resume ID: that one)")
	}
	args, err := resumeArgs(ctx, f, opts, args)
	if err != nil {
		return err
	}
	d, err := f.runDeps(ctx)
	if err != nil {
		return err
	}
	defer d.closeLog()
	// The person answers approvals in the UI.
	a, err := app.New(ctx, app.Options{Config: d.cfg, Store: d.store, Provider: d.provider, Log: d.log, Approvals: approval.Policy{}, ExtraRoots: d.addDirs})
	if err != nil {
		return err
	}
	defer a.Close()

	sess, err := tuiSession(ctx, f, a, opts, d.workspace)
	if err != nil {
		return err
	}
	idx, err := a.StartIndexing(ctx, nil) // failures go to the log
	if err != nil {
		d.log.Warn("tui: search by meaning is off: the indexer did not start", "error", err)
	}
	defer func() {
		if err := idx.Stop(); err != nil {
			d.log.Warn("tui: indexer", "error", err)
		}
	}()
	d.log.Info("tui", "session", sess.ID, "workspace", sess.Workspace, "model", sess.Model)

	// Start-up is over: drop the executable's pages only it used
	// (internal/exetrim).
	exetrim.Trim()
	task := strings.TrimSpace(strings.Join(args, " "))
	id := sess.ID
	if id == "" {
		// The picker first; the task, if any, goes to the session picked.
		if id, err = tui.Run(ctx, tuiOptions(f, a, sess.Workspace, "", "")); err != nil {
			return err
		}
	}
	for id != "" {
		if id, err = tui.Run(ctx, tuiOptions(f, a, sess.Workspace, id, task)); err != nil {
			return err
		}
		task = ""
	}
	return nil
}

func tuiOptions(f *Factory, a *app.App, dir, id, task string) tui.RunOptions {
	return tui.RunOptions{Deps: tuiDeps(a, dir), Feed: a.Sessions, SessionID: id, Task: task, Workspace: dir, In: f.IO.In, Out: f.IO.Out}
}

// tuiDeps are the services the UI calls, from the app.
func tuiDeps(a *app.App, dir string) tui.Deps {
	catalog := frontendCatalog(a)
	branch := gitBranch(dir)
	return tui.Deps{
		Sessions: a.Sessions,
		Answer:   a.Approvals.Answer,
		AlwaysApprove: func(ctx context.Context, id string) error {
			on := true
			_, err := a.SetAutoApprove(ctx, id, &on, &on)
			return err
		},
		RunCommand: func(ctx context.Context, id, command string) error {
			_, err := a.Sessions.RunCommand(ctx, id, command)
			return err
		},
		Checkpoints: a.Checkpoints,
		Commands:    a.Sessions.Commands,
		// The trust dialog: only the person's key presses answer it.
		TrustRequests: a.TrustRequests,
		AnswerTrust:   a.AnswerTrust,
		Models:        catalog.List,
		Files:         func(ctx context.Context) (*workspace.FileList, error) { return workspaceFiles(ctx, a.Files, dir) },
		Branch:        func() string { return branch },
		PendingStats:  a.Store.PendingStats,
		SearchSessions: func(ctx context.Context, query string) ([]store.SessionMatch, string, error) {
			key, err := session.WorkspaceKey(dir)
			if err != nil {
				return nil, "", err
			}
			res, err := session.Search(ctx, a.Store, session.SearchOptions{
				Query: store.SearchQuery{Text: query, Workspace: key}, Embedder: a.Embedder()})
			if err != nil {
				return nil, "", err
			}
			return res.Sessions, res.Notice, nil
		},
		BranchPrompts: a.Sessions.BranchPrompts,
	}
}

// workspaceFiles lists the workspace's files for @ completion from the
// process's shared cache (gitignore-aware, bounded: workspace.FileIndex).
func workspaceFiles(ctx context.Context, idx *workspace.FileIndex, dir string) (*workspace.FileList, error) {
	ws, err := workspace.New([]string{dir})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return idx.Files(ctx, ws)
}

// gitBranch is the workspace's current git branch ("" outside git).
func gitBranch(dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "branch", "--show-current")
	cmd.Stderr = io.Discard
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// tuiSession is the session the TUI opens: the picker's (an empty id),
// the one --continue or --resume names, or a new one; its shell starts
// at once (app.PrestartShell).
func tuiSession(ctx context.Context, f *Factory, a *app.App, opts *printOptions, dir string) (*store.Session, error) {
	var sess *store.Session
	var err error
	switch {
	case opts.Resume == resumePick:
		// --resume without an id: the UI's sessions picker.
		if opts.resumeMiss != "" {
			return nil, usageError("no session matches %q (olly sessions list shows them; --resume alone opens a list to pick from)", opts.resumeMiss)
		}
		recent, err := a.Sessions.Recent(ctx, dir, 1)
		if err != nil {
			return nil, err
		}
		if len(recent) == 0 {
			return nil, usageError("no sessions in %s yet: olly starts a new one", dir)
		}
		sess = &store.Session{Workspace: dir}
	case opts.resuming():
		if sess, err = resumeTarget(ctx, f, a.Sessions, opts, dir, f.terminal()); err != nil {
			return nil, err
		}
		a.PrestartShell(sess)
	default:
		// The id first, so the session's shell starts while a model is
		// picked.
		id := store.NewID(time.Now())
		a.PrestartShell(&store.Session{ID: id, Workspace: dir, Mode: string(event.ModeAgent)})
		model, err := pickModel(ctx, f, a, a.Config.AgentMode.Model)
		if err != nil {
			return nil, err
		}
		if sess, err = a.Sessions.Create(ctx, session.CreateOptions{ID: id, Workspace: dir, Mode: event.ModeAgent, Model: model}); err != nil {
			return nil, err
		}
	}
	return sess, nil
}
