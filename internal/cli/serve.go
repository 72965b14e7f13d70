package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/exetrim"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/ui/web"
	"github.com/spf13/cobra"
)

// defaultServeAddr is where olly serve listens unless told.
const defaultServeAddr = "127.0.0.1:7700"

// serveOptions are olly serve's flags.
type serveOptions struct {
	Addr  string
	Open  bool
	Token string
}

func newServeCmd(f *Factory) *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the chat in a browser (docs/web.md)",
		Long: `olly serve serves the chat page on a local address: sessions, streaming
answers, approvals, review of changes. It prints the address with a secret
token; open it in a browser (--open does). Only loopback is served unless
--addr names another address, which needs --token.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			return runServe(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", defaultServeAddr, "`host:port` to listen on (port 0: any free port)")
	fl.BoolVar(&opts.Open, "open", false, "open the page in the default browser")
	fl.StringVar(&opts.Token, "token", "", "the secret the page needs (default: a random one); required with a non-loopback --addr")
	return cmd
}

// check refuses an address anyone on the network could reach without a
// token the person chose and shares knowingly.
func (o *serveOptions) check() error {
	if _, _, err := net.SplitHostPort(o.Addr); err != nil {
		return usageError("--addr %q: give host:port, like %s", o.Addr, defaultServeAddr)
	}
	if !web.IsLoopback(o.Addr) && o.Token == "" {
		return usageError("--addr %s is reachable from other machines: pass --token with a long secret too, or use a loopback address like %s", o.Addr, defaultServeAddr)
	}
	if o.Token != "" && len(o.Token) < 16 {
		return usageError("--token is too short: use at least 16 characters")
	}
	return nil
}

// runServe builds the services, listens, prints the URL and serves until
// a signal.
func runServe(ctx context.Context, f *Factory, opts *serveOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	d, err := f.runDeps(ctx)
	if err != nil {
		return err
	}
	defer d.closeLog()
	cfg, dir, logger := d.cfg, d.workspace, d.log
	a, err := app.New(ctx, app.Options{Config: cfg, Store: d.store, Provider: d.provider, NewProvider: f.appProviders(), Log: logger, Approvals: approval.Policy{}, ExtraRoots: d.addDirs})
	if err != nil {
		return err
	}
	defer a.Close()
	catalog := frontendCatalog(a)
	runCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	emb := a.Embedder()
	idx, err := a.StartIndexing(runCtx, nil)
	if err != nil {
		logger.Warn("serve: search by meaning is off: the indexer did not start", "error", err)
		emb = nil
	}
	defer func() {
		if err := idx.Stop(); err != nil {
			logger.Warn("serve: indexer", "error", err)
		}
	}()
	popts := protocolOptions(a, catalog, emb, logger)
	popts.Settings = f.settingsService(d.store, a)
	srv, err := web.New(web.Options{
		RPC: popts, Workspace: dir, Token: opts.Token, Log: logger,
		NewSession: func(ctx context.Context) (*store.Session, []string, error) {
			return newSession(ctx, a, catalog, dir)
		},
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (another olly serve? pick another port with --addr)", opts.Addr, err)
	}
	url := web.URL(ln, srv.Token())
	fmt.Fprintf(f.IO.Out, "olly serve: open %s\n(Ctrl-C stops; the token in the address is the page's password)\n", url)
	logger.Info("serve", "addr", ln.Addr().String(), "workspace", dir)
	if opts.Open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "olly: could not open a browser (%v): open the address above\n", err)
		}
	}
	exetrim.Trim() // start-up is over (internal/exetrim)
	return srv.Serve(runCtx, ln)
}

// newServeSession starts a session in the workspace, with the model RPC
// mode would pick.
func newSession(ctx context.Context, a *app.App, catalog *models.Catalog, dir string) (*store.Session, []string, error) {
	// The id first, so the session's shell starts while a model is picked.
	id := store.NewID(time.Now())
	a.PrestartShell(&store.Session{ID: id, Workspace: dir, Mode: string(event.ModeAgent)})
	pickCtx, cancel := context.WithTimeout(ctx, modelPickTimeout)
	defer cancel()
	var warnings []string
	model := a.Settings().AgentMode.Model
	choice, err := catalog.PickAgent(pickCtx, model)
	switch {
	case err != nil:
		warnings = append(warnings, err.Error())
	case choice.Picked:
		model = choice.Name
		warnings = append(warnings, choice.Reason)
	default:
		model = choice.Name
	}
	sess, err := a.Sessions.Create(ctx, session.CreateOptions{ID: id, Workspace: dir, Mode: event.ModeAgent, Model: model})
	return sess, warnings, err
}

// openBrowser opens url with the system's opener.
func openBrowser(url string) error {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
	}
	return exec.Command(name, url).Start()
}
