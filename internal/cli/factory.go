package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/procs"
	"github.com/olly-agent/olly/internal/store"
	ws "github.com/olly-agent/olly/internal/workspace"
)

// Factory hands commands what they need, built lazily so that a command
// which needs no model server (olly --version, olly config path) never
// starts one. internal/app fills it; tests fill it with fakes.
type Factory struct {
	IO *IOStreams

	// Flags are the global flags, filled when the command line is parsed.
	Flags GlobalFlags

	// Environ is the environment settings are read from, as os.Environ
	// gives it; nil means os.Environ(). Tests set it (even to an empty
	// slice) so they never read the real one.
	Environ []string
	// HomeDir is the home directory for the default file locations; empty
	// means os.UserHomeDir().
	HomeDir string

	flagSet   *pflag.FlagSet
	configMu  sync.Mutex
	config    *config.Config
	configErr error
	loaded    bool

	providerMu sync.Mutex
	provider   llm.Provider

	storeMu sync.Mutex
	store   *store.Store
	admin   *app.Admin

	// OpenTerminal opens the controlling terminal, where print mode asks
	// for approvals; nil opens /dev/tty. Tests set it.
	OpenTerminal func() (io.ReadWriteCloser, error)
	// NewProvider builds the model client from the settings; nil is
	// app.NewProvider. Tests set it (to skip retry waits).
	NewProvider func(*config.Config) (llm.Provider, error)
}

// GlobalFlags are the flags every command accepts.
type GlobalFlags struct {
	// Cwd is the workspace directory (--cwd); empty means the current one.
	Cwd string
	// BaseURL overrides baseUrl (--base-url).
	BaseURL string
	// Model overrides agentMode.model (--model).
	Model string
	// Set holds --set key=value settings, in order.
	Set []string
	// MaxIterations overrides agent.maxIterations (--max-iterations); a
	// string so the settings layer validates it like any other value.
	MaxIterations string
	// AddDirs widen the workspace for this run (--add-dir, repeatable),
	// besides the user-level workspace.extraRoots.
	AddDirs []string
}

func (f *Factory) bindGlobalFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&f.Flags.Cwd, "cwd", "", "workspace `directory` (default: the current directory)")
	pf.StringVar(&f.Flags.BaseURL, "base-url", "", "model server `URL` (setting baseUrl)")
	pf.StringVar(&f.Flags.Model, "model", "", "agent `model` (setting agentMode.model)")
	pf.StringArrayVar(&f.Flags.Set, "set", nil, "set any setting for this run, as `key=value` (repeatable; see olly config list)")
	pf.StringVar(&f.Flags.MaxIterations, "max-iterations", "", "most tool rounds in one agent run (setting agent.maxIterations)")
	pf.StringArrayVar(&f.Flags.AddDirs, "add-dir", nil, "let the agent read and write `directory` too, without asking (repeatable; setting workspace.extraRoots)")
	f.flagSet = pf
}

// Config loads the settings once, on first use, and returns the same result
// (or error) afterwards. Warnings (unknown OLLY_* variables, …) go to
// stderr when the settings are loaded.
func (f *Factory) Config() (*config.Config, error) {
	f.configMu.Lock()
	defer f.configMu.Unlock()
	if f.loaded {
		return f.config, f.configErr
	}
	f.loaded = true
	opts, err := f.ConfigOptions()
	if err != nil {
		f.configErr = err
		return nil, err
	}
	f.config, f.configErr = config.Load(opts)
	var warnings []string
	if f.config != nil {
		warnings = f.config.Warnings()
	} else if le := (*config.LoadError)(nil); errors.As(f.configErr, &le) {
		warnings = le.Warnings
	}
	for _, w := range warnings {
		fmt.Fprintln(f.IO.ErrOut, "olly: warning:", w)
	}
	return f.config, f.configErr
}

// ConfigOptions gathers what loading the settings reads: the workspace
// (--cwd or the current directory), home, environment and the flag layer.
func (f *Factory) ConfigOptions() (config.LoadOptions, error) {
	opts := config.LoadOptions{Workspace: f.Flags.Cwd, Home: f.HomeDir, Environ: f.Environ, OtherEnv: nonSettingEnv()}
	if opts.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return opts, fmt.Errorf("find the workspace: %w (use --cwd)", err)
		}
		opts.Workspace = wd
	}
	if opts.Home == "" {
		// An unknown home is not an error yet: XDG_* variables may place
		// everything, and Load says what is missing if they do not.
		opts.Home, _ = os.UserHomeDir()
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	flags, err := f.flagLayer()
	if err != nil {
		return opts, err
	}
	opts.Flags = flags
	return opts, nil
}

// flagLayer turns the flags given on the command line into settings:
// --base-url and --model first, then each --set in order, so an explicit
// --set wins over the shorthand.
func (f *Factory) flagLayer() ([]config.FlagValue, error) {
	changed := func(name string) bool { return f.flagSet != nil && f.flagSet.Changed(name) }
	var out []config.FlagValue
	if changed("base-url") {
		out = append(out, config.FlagValue{Flag: "--base-url", Key: "baseUrl", Value: f.Flags.BaseURL})
	}
	if changed("model") {
		out = append(out, config.FlagValue{Flag: "--model", Key: "agentMode.model", Value: f.Flags.Model})
	}
	if changed("max-iterations") {
		out = append(out, config.FlagValue{Flag: "--max-iterations", Key: "agent.maxIterations", Value: f.Flags.MaxIterations})
	}
	for _, kv := range f.Flags.Set {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(key) == "" {
			return nil, usageError("--set %q: expected key=value, for example --set agent.maxIterations=40", kv)
		}
		out = append(out, config.FlagValue{Flag: "--set", Key: strings.TrimSpace(key), Value: value})
	}
	return out, nil
}

// nonSettingEnv names the OLLY_* variables olly reads that are not settings,
// so loading does not warn about them: `olly db`'s database path, the
// marker olly's shell puts on the commands it runs (olly run by the agent
// inherits it), and the switches that turn internal/exetrim,
// internal/procs (one P, sysmon's policy) and the model client's direct
// HTTP transport (internal/llm/internal/wire) off.
func nonSettingEnv() []string {
	return []string{"OLLY_DB", "OLLY_SHELL_RUN", "OLLY_EXETRIM", "OLLY_HTTP_DIRECT", procs.Env, procs.SysmonEnv}
}

// settings returns the settings, or a usage error (exit 2) saying what is
// wrong with them: a broken setting is a configuration error, not a failure
// of the command.
func (f *Factory) settings() (*config.Config, error) {
	cfg, err := f.Config()
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			return nil, err
		}
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return cfg, nil
}

// Provider returns the model-server client for the settings, built once.
func (f *Factory) Provider() (llm.Provider, error) {
	f.providerMu.Lock()
	defer f.providerMu.Unlock()
	if f.provider != nil {
		return f.provider, nil
	}
	cfg, err := f.settings()
	if err != nil {
		return nil, err
	}
	newProvider := f.NewProvider
	if newProvider == nil {
		newProvider = app.NewProvider
	}
	p, err := newProvider(cfg)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	f.provider = p
	return p, nil
}

// getenv reads the environment the factory was given (tests give their own).
func (f *Factory) getenv(key string) string {
	env := f.Environ
	if env == nil {
		return os.Getenv(key)
	}
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// DatabasePath is the database file: $OLLY_DB when set, else olly.db in the
// data directory. It works even when the settings do not load, so `olly db`
// can always find the file it is asked to check or move aside.
func (f *Factory) DatabasePath() (string, error) {
	if p := f.getenv("OLLY_DB"); p != "" {
		return p, nil
	}
	if cfg, err := f.Config(); err == nil {
		return store.DefaultPath(cfg.Paths().DataDir), nil
	}
	opts, err := f.ConfigOptions()
	if err != nil {
		return "", err
	}
	paths, err := config.ResolvePaths(opts)
	if err != nil {
		return "", fmt.Errorf("find the data directory: %w (pass --db FILE or set OLLY_DB)", err)
	}
	return store.DefaultPath(paths.DataDir), nil
}

// Store opens the database once, on first use. Execute closes it when the
// command ends.
func (f *Factory) Store(ctx context.Context) (*store.Store, error) {
	f.storeMu.Lock()
	defer f.storeMu.Unlock()
	if f.store != nil {
		return f.store, nil
	}
	path, err := f.DatabasePath()
	if err != nil {
		return nil, err
	}
	st, err := app.OpenStore(ctx, path)
	if err != nil {
		return nil, err
	}
	f.store = st
	return st, nil
}

// Admin builds, once, the services of commands that read and edit stored
// sessions without running a turn (app.Admin), over Store.
func (f *Factory) Admin(ctx context.Context) (*app.Admin, error) {
	st, err := f.Store(ctx)
	if err != nil {
		return nil, err
	}
	f.storeMu.Lock()
	defer f.storeMu.Unlock()
	if f.admin == nil {
		if f.admin, err = app.NewAdmin(st); err != nil {
			return nil, err
		}
	}
	return f.admin, nil
}

// Close releases what the factory opened.
func (f *Factory) Close() error {
	f.storeMu.Lock()
	defer f.storeMu.Unlock()
	if f.store == nil {
		return nil
	}
	if f.admin != nil {
		_ = f.admin.Close() // before the store it writes to
		f.admin = nil
	}
	err := f.store.Close()
	f.store = nil
	return err
}

// terminal opens the controlling terminal, or returns nil when there is
// none (a pipe, CI, a daemon): then nobody can answer approvals.
func (f *Factory) terminal() io.ReadWriteCloser {
	open := f.OpenTerminal
	if open == nil {
		open = func() (io.ReadWriteCloser, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }
	}
	t, err := open()
	if err != nil || t == nil {
		return nil
	}
	return t
}

// runDeps are what a mode that runs the agent needs before it builds the
// app: the settings, the workspace, the log, the store and the model
// server's client. closeLog closes the log file; the store belongs to the
// Factory.
type runDeps struct {
	cfg       *config.Config
	workspace string
	addDirs   []string // --add-dir, absolute
	log       *slog.Logger
	closeLog  func()
	store     *store.Store
	provider  llm.Provider
}

// addDirs returns --add-dir's directories made absolute against the
// current directory, where the person typed them ("~/x" is left for the
// workspace to expand).
func (f *Factory) addDirs() ([]string, error) {
	out := make([]string, 0, len(f.Flags.AddDirs))
	for _, d := range f.Flags.AddDirs {
		if strings.TrimSpace(d) == "" {
			return nil, usageError("--add-dir needs a directory")
		}
		if !strings.HasPrefix(d, "~") {
			abs, err := filepath.Abs(d)
			if err != nil {
				return nil, usageError("--add-dir %s: %v", d, err)
			}
			d = abs
		}
		out = append(out, d)
	}
	return out, nil
}

// runDeps loads what print and RPC mode share. A log that cannot be opened
// is a warning on stderr, not a failure.
func (f *Factory) runDeps(ctx context.Context) (*runDeps, error) {
	cfg, err := f.settings()
	if err != nil {
		return nil, err
	}
	workspace, err := app.Workspace(f.Flags.Cwd)
	if err != nil {
		return nil, usageError("%v", err)
	}
	addDirs, err := f.addDirs()
	if err != nil {
		return nil, err
	}
	// A missing extra root is the person's mistake: say so before any
	// session starts.
	if _, err := ws.New([]string{workspace}, ws.WithExtraRoots(append(slices.Clone(cfg.Workspace.ExtraRoots), addDirs...)...)); err != nil {
		return nil, usageError("%v", err)
	}
	logger, logFile, logErr := app.OpenLog(cfg.Paths().StateDir, slog.LevelInfo)
	d := &runDeps{cfg: cfg, workspace: workspace, addDirs: addDirs, log: logger, closeLog: func() { _ = logFile.Close() }}
	if logErr != nil {
		fmt.Fprintf(f.IO.ErrOut, "olly: warning: %v (continuing without a log)\n", logErr)
	}
	if d.store, err = f.Store(ctx); err != nil {
		d.closeLog()
		return nil, err
	}
	if d.provider, err = f.Provider(); err != nil {
		d.closeLog()
		return nil, err
	}
	return d, nil
}
