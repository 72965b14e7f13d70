package cli

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/export"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/timeline"
	"github.com/olly-agent/olly/internal/ui/rpc"
	"github.com/olly-agent/olly/rpcproto"
)

// modelPickTimeout bounds choosing the model at start: an editor waits for
// the ready frame, and a model server that is down is reported there
// instead of holding it up.
const modelPickTimeout = 15 * time.Second

// modeRPC is --mode's one value.
const modeRPC = "rpc"

// rpcOptions are the flags of RPC mode.
type rpcOptions struct {
	Mode   string
	Events string
}

// bindModeFlags adds --mode and --rpc-events to the root command and sends
// `olly --mode rpc` to RPC mode; everything else goes on to the command's
// own RunE.
func bindModeFlags(root *cobra.Command, f *Factory, popts *printOptions) {
	opts := &rpcOptions{}
	fl := root.Flags()
	fl.StringVar(&opts.Mode, "mode", "", "`rpc`: serve the JSONL protocol on stdin and stdout, for editors and other programs (docs/rpc.md)")
	fl.StringVar(&opts.Events, "rpc-events", rpcproto.FamilyBoth, "RPC mode's event families: `olly`, pi or both")
	next := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if opts.Mode == "" {
			if cmd.Flags().Changed("rpc-events") {
				return usageError("--rpc-events goes with --mode rpc")
			}
			return next(cmd, args)
		}
		// --resume ID: the id may come as an argument (resumeArgs).
		args, err := resumeArgs(cmd.Context(), f, popts, args)
		if err != nil {
			return err
		}
		if err := opts.check(popts, args); err != nil {
			return err
		}
		return runRPC(cmd.Context(), f, popts, opts)
	}
}

// check refuses flags and arguments RPC mode does not take.
func (o *rpcOptions) check(popts *printOptions, args []string) error {
	switch {
	case o.Mode != modeRPC:
		return usageError("--mode %q: the mode is rpc (print mode is -p)", o.Mode)
	case o.Events != rpcproto.FamilyOlly && o.Events != rpcproto.FamilyPi && o.Events != rpcproto.FamilyBoth:
		return usageError("--rpc-events %q: use olly, pi or both", o.Events)
	case popts.Print:
		return usageError("-p and --mode rpc are two modes: use one")
	case len(args) > 0:
		return usageError("--mode rpc takes no task: send prompts as commands on stdin (docs/rpc.md)")
	case popts.Continue && popts.Resume != "":
		return usageError("--continue and --resume both name a session: use one")
	case popts.Resume == resumePick:
		return usageError("--resume needs a session id in RPC mode (--resume=ID; olly sessions list shows them), or use --continue")
	}
	return nil
}

// runRPC builds the services and serves the protocol until stdin ends or
// a signal stops it. Logs go to the log file: stdout carries frames only.
func runRPC(ctx context.Context, f *Factory, popts *printOptions, opts *rpcOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	d, err := f.runDeps(ctx)
	if err != nil {
		return err
	}
	defer d.closeLog()
	cfg, dir, logger, st, provider := d.cfg, d.workspace, d.log, d.store, d.provider
	// The client answers approvals; --yes approves up to high by itself.
	policy := approval.Policy{AutoApproveCommands: popts.Yes, AutoApproveSensitiveEdits: popts.Yes}
	a, err := app.New(ctx, app.Options{Config: cfg, Store: st, Provider: provider, NewProvider: f.appProviders(), Log: logger, Approvals: policy, ExtraRoots: d.addDirs})
	if err != nil {
		return err
	}
	defer a.Close()

	catalog := frontendCatalog(a)
	sess, warnings, err := rpcSession(ctx, a, catalog, popts, dir)
	if err != nil {
		return err
	}
	logger.Info("rpc mode", "session", sess.ID, "workspace", sess.Workspace, "model", sess.Model)

	// SIGTERM and Ctrl-C end the server like the end of stdin: running
	// work is canceled and recorded, then olly exits 0.
	runCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	emb := a.Embedder()
	idx, err := a.StartIndexing(runCtx, nil) // failures go to the log
	if err != nil {
		logger.Warn("rpc: search by meaning is off: the indexer did not start", "error", err)
		emb = nil
	}
	defer func() {
		if err := idx.Stop(); err != nil {
			logger.Warn("rpc: indexer", "error", err)
		}
	}()

	o := protocolOptions(a, catalog, emb, logger)
	o.In, o.Out, o.SessionID, o.Events, o.Warnings = f.IO.In, f.IO.Out, sess.ID, opts.Events, warnings
	o.Settings = f.settingsService(st, a)
	end := startUpOver(cfg.Paths().StateDir, "rpc", logger)
	err = rpc.Serve(runCtx, o)
	end()
	return err
}

// protocolOptions are the protocol server's services, for RPC mode and
// for each of olly serve's connections.
func protocolOptions(a *app.App, catalog *models.Catalog, emb *store.Embedder, logger *slog.Logger) rpc.Options {
	cfg := a.Config
	return rpc.Options{
		Sessions: a.Sessions, Approvals: a.Approvals, Store: a.Store, Version: version(),
		Server: func() rpc.ModelServer {
			cfg := a.Settings() // the settings page may have changed them (app.App.Reconfigure)
			return rpc.ModelServer{Provider: cfg.Provider, BaseURL: cfg.BaseURL, Thinking: cfg.Agent.EnableThinking, MaxTokens: cfg.AgentMode.MaxTokens}
		},
		Log:    logger,
		Models: catalog, Checkpoints: a.Checkpoints, SetAutoApprove: a.SetAutoApprove, Embedder: emb, AutoCompaction: a.Agent, AutoRetry: a.Agent, Levels: a.Agent,
		RunCommand: func(ctx context.Context, id, command string) (*rpcproto.BashResult, error) {
			res, err := a.Sessions.RunCommand(ctx, id, command)
			if err != nil {
				return nil, err
			}
			return bashResult(command, res), nil
		},
		ExportHTML: func(w io.Writer, s *store.Session, evs []event.Event) error {
			return export.HTML(w, export.Doc{Session: s, Timeline: timeline.Build(evs)})
		},
		ExportDir: filepath.Join(cfg.Paths().DataDir, "exports"),
		Trust:     app.ProtocolTrust{App: a},
		Files:     a.Files, // one cache for every connection of olly serve
		Opened:    a.PrestartShell,
	}
}

// rpcSession is the session RPC mode starts on: the one --continue or
// --resume names, or a new one with a model picked from the server. A
// model that cannot be picked is a warning in the ready frame, not a
// failure: the client sees the problem and can fix it (set_model).
func rpcSession(ctx context.Context, a *app.App, catalog *models.Catalog, popts *printOptions, dir string) (*store.Session, []string, error) {
	if popts.Continue || popts.Resume != "" {
		sess, err := a.Sessions.Resume(ctx, session.ResumeTarget{Workspace: dir, ID: popts.Resume, Latest: popts.Continue})
		if err != nil {
			return nil, nil, &ExitError{Code: ExitFailure, Err: err}
		}
		a.PrestartShell(sess)
		return sess, nil, nil
	}
	return newSession(ctx, a, catalog, dir)
}

// bashResult is a person's command as the protocol reports it.
func bashResult(command string, res *session.TurnResult) *rpcproto.BashResult {
	out := &rpcproto.BashResult{Command: strings.TrimSpace(command), ExitCode: -1, Turn: res.Turn, Cancelled: res.Status == event.FinishCanceled}
	r := res.Shell
	if r == nil { // the turn failed before the command was tried
		out.Message = res.Error
		return out
	}
	out.Command, out.Denied = r.Command, r.Denied
	if !r.Ran {
		out.Message = strings.TrimSpace(r.Content)
		return out
	}
	out.Output, out.ExitCode, out.TimedOut = r.Output, r.ExitCode, r.TimedOut
	out.Cancelled = out.Cancelled || r.Canceled
	out.Truncated, out.FullOutputPath = r.Artifact != "", r.Artifact
	if r.Rejected != "" {
		out.Message = r.Rejected
	}
	return out
}

// frontendCatalog is the model catalog of an interactive frontend (RPC,
// olly serve, the TUI). Its questions (pickers, set_model, get_state) are
// asked once, without retries: a server that is down is reported at once,
// not after seven seconds of retries, and the person may ask again.
// Listings fill the models table, so disabled models are never offered.
// It follows the settings page's connection changes (app.App.Catalog).
func frontendCatalog(a *app.App) *models.Catalog { return a.Catalog() }
