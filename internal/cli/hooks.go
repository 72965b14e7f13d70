package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/hooks"
	"github.com/olly-agent/olly/internal/trust"
)

// hooksOptions are what the hooks subcommands share.
type hooksOptions struct {
	IO     *IOStreams
	Config func() (*config.Config, error)
	// Workspace is the workspace root (--cwd or the current directory).
	Workspace func() (string, error)
	JSON      bool
}

func newHooksCmd(f *Factory) *cobra.Command {
	opts := &hooksOptions{IO: f.IO, Config: f.Config, Workspace: func() (string, error) {
		o, err := f.ConfigOptions()
		if err != nil {
			return "", err
		}
		return filepath.Abs(o.Workspace)
	}}
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List the hooks of this workspace, and trust or revoke its project hooks",
		Long: "Hooks are commands olly runs on SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact,\n" +
			"SubagentStop and Stop " +
			"(docs/extensibility.md). The user's ~/.config/olly/settings.json hooks always run; a project's\n" +
			".olly/settings.json (and .claude/settings.json) hooks run only after `olly hooks trust` (or the\n" +
			"trust prompt of the TUI or web page), and\n" +
			"again after every change to the file.",
	}
	list := &cobra.Command{Use: "list", Short: "List the hooks and whether each runs", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runHooksList(opts) }}
	list.Flags().BoolVar(&opts.JSON, "json", false, "print the hooks as JSON")
	trustCmd := &cobra.Command{Use: "trust [FILE]", Short: "Trust the project's hook files (or one: .olly/settings.json, .claude/settings.json) as they are now",
		Args: cobra.MaximumNArgs(1), RunE: func(_ *cobra.Command, args []string) error { return runHooksTrust(opts, args, true) }}
	revoke := &cobra.Command{Use: "revoke [FILE]", Short: "Stop trusting the project's hook files (or one)",
		Args: cobra.MaximumNArgs(1), RunE: func(_ *cobra.Command, args []string) error { return runHooksTrust(opts, args, false) }}
	cmd.AddCommand(list, trustCmd, revoke)
	return cmd
}

// hooksState loads the settings, the workspace's hook files and the trust
// store.
func hooksState(opts *hooksOptions) (*config.Config, string, []hooks.File, *trust.Store, error) {
	cfg, err := opts.Config()
	if err != nil {
		return nil, "", nil, nil, err
	}
	ws, err := opts.Workspace()
	if err != nil {
		return nil, "", nil, nil, err
	}
	files, warnings := hooks.Load(hooks.LoadOptions{Workspace: ws, ConfigDir: cfg.Paths().ConfigDir, ClaudeCompat: cfg.Hooks.ClaudeCompat})
	for _, w := range warnings {
		fmt.Fprintln(opts.IO.ErrOut, "olly: warning:", w)
	}
	store, err := trust.Open(trust.Path(cfg.Paths().StateDir))
	if err != nil {
		return nil, "", nil, nil, err
	}
	return cfg, ws, files, store, nil
}

// hookLine is one hook in `olly hooks list --json`.
type hookLine struct {
	hooks.Hook
	// Timeout shadows the hook's nanoseconds with a duration's text.
	Timeout string `json:"timeout"`
	Runs    bool   `json:"runs"`
	Why     string `json:"why,omitempty"`
}

func runHooksList(opts *hooksOptions) error {
	cfg, ws, files, store, err := hooksState(opts)
	if err != nil {
		return err
	}
	var lines []hookLine
	for _, f := range files {
		trusted := hooks.IsTrusted(store, ws, f)
		for _, h := range f.Hooks {
			l := hookLine{Hook: h, Timeout: h.Timeout.String(), Runs: trusted && cfg.Hooks.Enabled}
			switch {
			case !cfg.Hooks.Enabled:
				l.Why = "hooks.enabled is off"
			case !trusted:
				l.Why = "project file not trusted (olly hooks trust)"
			}
			lines = append(lines, l)
		}
	}
	if opts.JSON {
		if lines == nil {
			lines = []hookLine{}
		}
		return writeJSON(opts.IO.Out, lines)
	}
	if len(lines) == 0 {
		fmt.Fprintf(opts.IO.Out, "No hooks: add them to %s or %s (docs/extensibility.md).\n",
			filepath.Join(cfg.Paths().ConfigDir, hooks.UserFileName), hooks.ProjectFile)
		return nil
	}
	return printHooks(opts.IO.Out, lines)
}

func printHooks(w io.Writer, lines []hookLine) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tMATCHER\tCOMMAND\tTIMEOUT\tSOURCE\tRUNS")
	for _, l := range lines {
		runs := "yes"
		if !l.Runs {
			runs = "no: " + l.Why
		}
		m := l.Matcher
		if m == "" {
			m = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.Event, m, l.Command, l.Timeout, l.Source, runs)
	}
	return tw.Flush()
}

// runHooksTrust trusts (or revokes) the project hook files, or the one
// named, printing each command trusted: the person sees what will run.
func runHooksTrust(opts *hooksOptions, args []string, give bool) error {
	_, ws, files, store, err := hooksState(opts)
	if err != nil {
		return err
	}
	var project []hooks.File
	for _, f := range files {
		if f.Project && (len(args) == 0 || filepath.Clean(args[0]) == filepath.Clean(f.Source)) {
			project = append(project, f)
		}
	}
	if len(project) == 0 {
		names := []string{hooks.ProjectFile, hooks.ClaudeProjectFile}
		if len(args) > 0 && !slices.Contains(names, filepath.ToSlash(filepath.Clean(args[0]))) {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%q is not a project hook file: name %s", args[0], names)}
		}
		fmt.Fprintf(opts.IO.Out, "No project hooks in %s.\n", ws)
		return nil
	}
	for _, f := range project {
		if !give {
			if err := hooks.RevokeFile(store, ws, f); err != nil {
				return err
			}
			fmt.Fprintf(opts.IO.Out, "Revoked %s in %s: its hooks no longer run.\n", f.Source, ws)
			continue
		}
		if err := hooks.TrustFile(store, ws, f); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "Trusted %s in %s; these hooks now run (until the file changes):\n", f.Source, ws)
		for _, h := range f.Hooks {
			fmt.Fprintf(opts.IO.Out, "  %s %s: %s\n", h.Event, h.Matcher, h.Command)
		}
	}
	return nil
}
