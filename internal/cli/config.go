package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
)

// configDeps is what the config subcommands need from the Factory; tests
// build it directly.
type configDeps struct {
	IO *IOStreams
	// Config is the effective settings (cached for the process).
	Config func() (*config.Config, error)
	// Reload loads the settings afresh, after a file was changed.
	Reload func() (*config.Config, error)
	// Paths locates the files without reading them.
	Paths func() (config.Paths, error)
}

func factoryConfigDeps(f *Factory) configDeps {
	return configDeps{
		IO:     f.IO,
		Config: f.Config,
		Reload: func() (*config.Config, error) {
			opts, err := f.ConfigOptions()
			if err != nil {
				return nil, err
			}
			return config.Load(opts)
		},
		Paths: func() (config.Paths, error) {
			opts, err := f.ConfigOptions()
			if err != nil {
				return config.Paths{}, err
			}
			return config.ResolvePaths(opts)
		},
	}
}

func newConfigCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Show and change olly's settings",
		Long: `Show and change olly's settings.

Each value comes from the first of these that sets it: --base-url, --model
and --set flags; OLLY_* environment variables; the project file
(.olly/config.yaml in the workspace); the global file
($XDG_CONFIG_HOME/olly/config.yaml); the built-in default.
"olly config list" shows which one each value came from.`,
	}
	deps := factoryConfigDeps(f)
	cmd.AddCommand(
		newConfigListCmd(deps, nil),
		newConfigGetCmd(deps, nil),
		newConfigSetCmd(deps, nil),
		newConfigUnsetCmd(deps, nil),
		newConfigPathCmd(deps, nil),
	)
	return cmd
}

// configListOptions are `olly config list`'s inputs.
type configListOptions struct {
	configDeps
	JSON bool
}

func newConfigListCmd(deps configDeps, runF func(*configListOptions) error) *cobra.Command {
	opts := &configListOptions{configDeps: deps}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every setting, its value and where it came from",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runConfigList(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array of {key, value, source, env}")
	return cmd
}

// jsonSetting is one setting in --json output.
type jsonSetting struct {
	Key    string        `json:"key"`
	Value  any           `json:"value"`
	Source config.Source `json:"source"`
	Env    string        `json:"env,omitempty"`
}

func runConfigList(opts *configListOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		// The person needs to know which file to fix.
		printFileLocations(opts.IO.ErrOut, opts.Paths)
		return err
	}
	entries := cfg.Entries()
	if opts.JSON {
		out := make([]jsonSetting, len(entries))
		for i, en := range entries {
			v := en.JSON()
			if en.Secret {
				v = config.Mask(en.Text())
			}
			out[i] = jsonSetting{Key: en.Key, Value: v, Source: en.Source, Env: en.Env}
		}
		return writeJSON(opts.IO.Out, out)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	if opts.IO.StdoutTTY {
		fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
	}
	for _, en := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", en.Key, orDash(en.Display()), en.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// What the approval and sandbox settings mean on this machine.
	_, err = fmt.Fprintf(opts.IO.Out, "\n# %s\n", app.PolicySummary(cfg, nil))
	return err
}

func orDash(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// configGetOptions are `olly config get`'s inputs.
type configGetOptions struct {
	configDeps
	Key        string
	JSON       bool
	ShowSource bool
}

func newConfigGetCmd(deps configDeps, runF func(*configGetOptions) error) *cobra.Command {
	opts := &configGetOptions{configDeps: deps}
	cmd := &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting's effective value",
		Long: `Print one setting's effective value, in the form "olly config set" accepts.
Secrets (apiKey) are printed as they are: this is how a script reads them.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeConfigArgs(false),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Key = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runConfigGet(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {key, value, source} as JSON")
	cmd.Flags().BoolVar(&opts.ShowSource, "show-source", false, "also print where the value came from")
	return cmd
}

func runConfigGet(opts *configGetOptions) error {
	if err := config.CheckKey(opts.Key); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	cfg, err := opts.Config()
	if err != nil {
		printFileLocations(opts.IO.ErrOut, opts.Paths)
		return err
	}
	en, _ := cfg.Entry(opts.Key)
	if opts.JSON {
		return writeJSON(opts.IO.Out, jsonSetting{Key: en.Key, Value: en.JSON(), Source: en.Source})
	}
	if opts.ShowSource {
		_, err = fmt.Fprintf(opts.IO.Out, "%s (from %s)\n", en.Text(), en.Source)
		return err
	}
	_, err = fmt.Fprintln(opts.IO.Out, en.Text())
	return err
}

// configSetOptions are `olly config set`'s inputs.
type configSetOptions struct {
	configDeps
	Key, Value string
	Project    bool
}

func newConfigSetCmd(deps configDeps, runF func(*configSetOptions) error) *cobra.Command {
	opts := &configSetOptions{configDeps: deps}
	var global bool
	cmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Write a setting into the global (default) or project file",
		Long: `Write a setting into the global file (default) or, with --project, into the
workspace's .olly/config.yaml. The value is checked as loading would check it,
and the file keeps its comments, order and other keys.

Durations take milliseconds or units (45s, 2m); lists take a,b,c or [a, b];
agent.sensitiveFilePatterns takes a YAML mapping: '{"**/*": auto, "**/.env*": ask}'.`,
		Example: `  olly config set agentMode.model qwen2.5-coder:14b
  olly config set agent.toolTimeout 2m --project`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: completeConfigArgs(true),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Key, opts.Value = args[0], args[1]
			if global && opts.Project {
				return usageError("--global and --project cannot be used together")
			}
			if runF != nil {
				return runF(opts)
			}
			return runConfigSet(opts)
		},
	}
	cmd.Flags().BoolVar(&global, "global", false, "write the global file (the default)")
	cmd.Flags().BoolVar(&opts.Project, "project", false, "write the workspace's .olly/config.yaml")
	return cmd
}

func runConfigSet(opts *configSetOptions) error {
	if err := config.CheckKey(opts.Key); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if opts.Project {
		if err := config.CheckProjectKey(opts.Key); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
	}
	file, err := targetFile(opts.Paths, opts.Project)
	if err != nil {
		return err
	}
	if err := config.SetInFile(file, opts.Key, opts.Value); err != nil {
		var ce *config.Error
		if errors.As(err, &ce) && ce.Source.Kind == "" {
			return &ExitError{Code: ExitUsage, Err: err} // the value itself is wrong
		}
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Set %s in %s\n", opts.Key, file)
	reportEffective(opts.configDeps, opts.Key, file)
	return nil
}

// reportEffective tells the person when what they just wrote is not what
// olly will use: a later layer overrides it, or the settings have other
// problems.
func reportEffective(deps configDeps, key, file string) {
	cfg, err := deps.Reload()
	if err != nil {
		fmt.Fprintf(deps.IO.ErrOut, "note: the settings still have problems:\n%v\n", err)
		return
	}
	src, _ := cfg.Source(key)
	if src.Kind != config.FromFile || src.Name != file {
		if src.Kind == config.FromDefault {
			return
		}
		fmt.Fprintf(deps.IO.ErrOut, "note: %s comes from %s, which overrides %s\n", key, src, file)
	}
}

// configUnsetOptions are `olly config unset`'s inputs.
type configUnsetOptions struct {
	configDeps
	Key     string
	Project bool
}

func newConfigUnsetCmd(deps configDeps, runF func(*configUnsetOptions) error) *cobra.Command {
	opts := &configUnsetOptions{configDeps: deps}
	var global bool
	cmd := &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove a setting from the global (default) or project file",
		Long: `Remove a setting from the global file (default) or, with --project, from the
workspace's .olly/config.yaml, so the next layer down applies. Keys olly does
not know (a typo, a renamed key) can be removed too.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeConfigArgs(false),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Key = args[0]
			if global && opts.Project {
				return usageError("--global and --project cannot be used together")
			}
			if runF != nil {
				return runF(opts)
			}
			return runConfigUnset(opts)
		},
	}
	cmd.Flags().BoolVar(&global, "global", false, "edit the global file (the default)")
	cmd.Flags().BoolVar(&opts.Project, "project", false, "edit the workspace's .olly/config.yaml")
	return cmd
}

func runConfigUnset(opts *configUnsetOptions) error {
	file, err := targetFile(opts.Paths, opts.Project)
	if err != nil {
		return err
	}
	removed, err := config.UnsetInFile(file, opts.Key)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) && (ce.Kind == config.ErrUnknownKey || ce.Kind == config.ErrRenamedKey) {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w; it is not in %s either", err, file)}
		}
		return err
	}
	if !removed {
		fmt.Fprintf(opts.IO.ErrOut, "%s is not set in %s; nothing to do\n", opts.Key, file)
		return nil
	}
	fmt.Fprintf(opts.IO.ErrOut, "Removed %s from %s\n", opts.Key, file)
	if config.CheckKey(opts.Key) == nil {
		reportEffective(opts.configDeps, opts.Key, file)
	}
	return nil
}

func targetFile(paths func() (config.Paths, error), project bool) (string, error) {
	p, err := paths()
	if err != nil {
		return "", err
	}
	if project {
		if p.ProjectFile == "" {
			return "", &ExitError{Code: ExitUsage, Err: errors.New("no workspace for --project; use --cwd DIR")}
		}
		return p.ProjectFile, nil
	}
	return p.GlobalFile, nil
}

// configPathOptions are `olly config path`'s inputs.
type configPathOptions struct {
	configDeps
	JSON bool
}

func newConfigPathCmd(deps configDeps, runF func(*configPathOptions) error) *cobra.Command {
	opts := &configPathOptions{configDeps: deps}
	cmd := &cobra.Command{
		Use:   "path",
		Short: "Show where the settings files and olly's data and logs are",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runConfigPath(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the paths as JSON")
	return cmd
}

// runConfigPath answers even when the settings do not load: the files'
// locations do not depend on their content. Only the data directory does
// (storagePath); the load error is returned after the paths are printed.
func runConfigPath(opts *configPathOptions) error {
	p, err := opts.Paths()
	if err != nil {
		return err
	}
	cfg, loadErr := opts.Config()
	if loadErr == nil {
		p = cfg.Paths()
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, struct {
			config.Paths
			GlobalFileExists  bool `json:"globalFileExists"`
			ProjectFileExists bool `json:"projectFileExists"`
		}{p, fileExists(p.GlobalFile), fileExists(p.ProjectFile)}); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "global config\t%s\t%s\n", p.GlobalFile, existsWord(p.GlobalFile))
		if p.ProjectFile != "" {
			fmt.Fprintf(tw, "project config\t%s\t%s\n", p.ProjectFile, existsWord(p.ProjectFile))
		}
		fmt.Fprintf(tw, "data\t%s\t\n", p.DataDir)
		fmt.Fprintf(tw, "state (logs)\t%s\t\n", p.StateDir)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if loadErr != nil {
		return fmt.Errorf("%w\n(the data directory above ignores storagePath until the settings load)", loadErr)
	}
	return nil
}

func printFileLocations(w io.Writer, paths func() (config.Paths, error)) {
	p, err := paths()
	if err != nil {
		return
	}
	fmt.Fprintf(w, "settings files:\n  global   %s (%s)\n", p.GlobalFile, existsWord(p.GlobalFile))
	if p.ProjectFile != "" {
		fmt.Fprintf(w, "  project  %s (%s)\n", p.ProjectFile, existsWord(p.ProjectFile))
	}
}

func fileExists(path string) bool {
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

func existsWord(path string) string {
	if fileExists(path) {
		return "exists"
	}
	return "not created"
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// completeConfigArgs completes keys, and for set the values of keys with a
// fixed set of them.
func completeConfigArgs(values bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		var out []string
		switch {
		case len(args) == 0:
			for _, k := range config.Keys() {
				if strings.HasPrefix(k.Key, prefix) {
					out = append(out, k.Key+"\t"+firstSentence(k.Doc))
				}
			}
		case len(args) == 1 && values:
			for _, v := range config.ValueHints(args[0]) {
				if strings.HasPrefix(v, prefix) {
					out = append(out, v)
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}
