package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/store"
)

type modelsOptions struct {
	IO       *IOStreams
	Provider func() (llm.Provider, error)
	Store    func(context.Context) (*store.Store, error)
	Config   func() (*config.Config, error)
	JSON     bool
}

func newModelsCmd(f *Factory) *cobra.Command {
	opts := &modelsOptions{IO: f.IO, Provider: f.Provider, Store: f.Store, Config: f.settings}
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the server's models with their capabilities and context length",
		Long: `List the server's models with their capabilities, context length and the window olly
will request (the per-model cap if set, else agent.maxContextWindow, never more than the model's own
length). Every listing is recorded, so with the server down olly shows the last list, marked cached.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runModels(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON array")
	cmd.AddCommand(newModelsEnableCmd(opts, true), newModelsEnableCmd(opts, false), newModelsSetCmd(opts))
	return cmd
}

// modelJSON is one model in `olly models --json`.
type modelJSON struct {
	Name              string           `json:"name"`
	Size              int64            `json:"size"`
	Family            string           `json:"family,omitempty"`
	ParameterSize     string           `json:"parameterSize,omitempty"`
	QuantizationLevel string           `json:"quantizationLevel,omitempty"`
	ContextLength     int              `json:"contextLength,omitempty"`
	Capabilities      llm.Capabilities `json:"capabilities"`
	Running           bool             `json:"running,omitempty"`
	Enabled           bool             `json:"enabled"`
	// NumCtxCap is the per-model cap (olly models set NAME --context N).
	NumCtxCap int `json:"numCtxCap,omitempty"`
	// NumCtx is the window olly sends: min(contextLength, numCtxCap if set,
	// else agent.maxContextWindow).
	NumCtx int `json:"numCtx"`
	// NumCtxFrom says which of the three decided NumCtx: "model", "cap" or
	// "agent.maxContextWindow".
	NumCtxFrom string `json:"numCtxFrom"`
	Cached     bool   `json:"cached,omitempty"`
	Error      string `json:"error,omitempty"`
	// Dialect is the tool-call markup read from the model's template
	// (toolcall.TemplateDialect); without native tools olly asks for
	// calls in it. Absent when none was recognised.
	Dialect string `json:"dialect,omitempty"`
}

// numCtx is the window olly requests for a model, and what decided it: the
// agent's rule (llm.NumCtx) with this person's settings.
func numCtx(m models.Model, cfg *config.Config) (int, string) {
	return llm.NumCtx(m.ContextLength, cfg.ContextWindow, cfg.Agent.MaxContextWindow, m.NumCtxCap)
}

func runModels(ctx context.Context, opts *modelsOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	st, err := opts.Store(ctx)
	if err != nil {
		return err
	}
	list, offline, err := models.NewCatalog(p).WithCache(st).ListOrCached(ctx)
	if err != nil {
		return err
	}
	if offline != nil {
		if len(list) == 0 {
			return offline
		}
		fmt.Fprintf(opts.IO.ErrOut, "olly: %v\nolly: showing the models cached when the server was last reached\n", offline)
	}
	if opts.JSON {
		return writeModelsJSON(opts.IO, list, cfg)
	}
	if len(list) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No models are installed on %s.", p.BaseURL())
		if p.Dialect() == "ollama" {
			fmt.Fprint(opts.IO.ErrOut, " Install one with `ollama pull qwen3:8b` (or another model that can call tools).")
		}
		fmt.Fprintln(opts.IO.ErrOut)
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSIZE\tFAMILY\tPARAMS\tQUANT\tCONTEXT\tNUM_CTX\tDIALECT\tCAPABILITIES")
	for _, m := range list {
		ctxLen := "-"
		if m.ContextLength > 0 {
			ctxLen = fmt.Sprint(m.ContextLength)
		}
		n, from := numCtx(m, cfg)
		use := fmt.Sprint(n)
		if from == "cap" {
			use += " (cap)"
		}
		caps := capabilityWords(m.Capabilities)
		if m.Err != nil {
			caps = "? (" + m.Err.Error() + ")"
		}
		if m.Running {
			caps += "  [loaded]"
		}
		if !m.Enabled {
			caps += "  [disabled]"
		}
		if m.Cached {
			caps += "  [cached]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, humanSize(m.Size), dash(m.Family), dash(m.ParameterSize), dash(m.QuantizationLevel), ctxLen, use, dash(string(m.Dialect)), caps)
	}
	return tw.Flush()
}

func writeModelsJSON(io *IOStreams, list []models.Model, cfg *config.Config) error {
	out := make([]modelJSON, 0, len(list))
	for _, m := range list {
		j := modelJSON{Name: m.Name, Size: m.Size, Family: m.Family, ParameterSize: m.ParameterSize,
			QuantizationLevel: m.QuantizationLevel, ContextLength: m.ContextLength, Capabilities: m.Capabilities,
			Running: m.Running, Enabled: m.Enabled, NumCtxCap: m.NumCtxCap, Cached: m.Cached, Dialect: string(m.Dialect)}
		j.NumCtx, j.NumCtxFrom = numCtx(m, cfg)
		if m.Err != nil {
			j.Error = m.Err.Error()
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// newModelsEnableCmd is `olly models enable|disable NAME…|--all`.
func newModelsEnableCmd(opts *modelsOptions, enable bool) *cobra.Command {
	verb, short := "enable", "Offer models again in pickers and automatic choice"
	if !enable {
		verb, short = "disable", "Never pick or offer these models (their settings are kept)"
	}
	var all bool
	cmd := &cobra.Command{
		Use:   verb + " NAME…|--all",
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return usageError("name the models to %s, or pass --all", verb)
			}
			return runModelsEnable(cmd.Context(), opts, args, all, enable)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every cached model")
	return cmd
}

func runModelsEnable(ctx context.Context, opts *modelsOptions, names []string, all, enable bool) error {
	st, err := opts.Store(ctx)
	if err != nil {
		return err
	}
	known, err := knownModels(ctx, opts, st, names)
	if err != nil {
		return err
	}
	if all {
		names = names[:0]
		for n := range known {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	for _, n := range names {
		name, ok := models.ResolveName(known, n)
		if !ok {
			return usageError("no model %q on the server or in the cache (`olly models` lists them)", n)
		}
		if err := st.SetModelEnabled(ctx, name, enable); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "%s: %sd\n", name, map[bool]string{true: "enable", false: "disable"}[enable])
	}
	return nil
}

// newModelsSetCmd is `olly models set NAME --context N`.
func newModelsSetCmd(opts *modelsOptions) *cobra.Command {
	var ctxCap int
	cmd := &cobra.Command{
		Use:   "set NAME --context N",
		Short: "Cap the context window olly requests for one model (0 removes the cap)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("context") {
				return usageError("say what to set: --context N (tokens; 0 removes the cap)")
			}
			if err := models.CheckContextCap(ctxCap); err != nil {
				return usageError("--context %v", err)
			}
			st, err := opts.Store(cmd.Context())
			if err != nil {
				return err
			}
			known, err := knownModels(cmd.Context(), opts, st, args)
			if err != nil {
				return err
			}
			name, ok := models.ResolveName(known, args[0])
			if !ok {
				return usageError("no model %q on the server or in the cache (`olly models` lists them)", args[0])
			}
			if err := st.SetModelContextCap(cmd.Context(), name, ctxCap); err != nil {
				return err
			}
			if ctxCap == 0 {
				fmt.Fprintf(opts.IO.ErrOut, "%s: context cap removed (agent.maxContextWindow applies)\n", name)
			} else {
				fmt.Fprintf(opts.IO.ErrOut, "%s: olly will request at most %d tokens of context (it takes precedence over agent.maxContextWindow)\n", name, ctxCap)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&ctxCap, "context", 0, "the cap in tokens; 0 removes it")
	return cmd
}

// knownModels returns every model the cache knows of, by name. Only when
// one of names is not among them is the server listed (which refreshes
// the cache) and the cache read again: a listing asks the server about
// every model, too much to check one name.
func knownModels(ctx context.Context, opts *modelsOptions, st *store.Store, names []string) (map[string]bool, error) {
	known, err := cachedModels(ctx, st)
	if err != nil || allKnown(known, names) {
		return known, err
	}
	if p, err := opts.Provider(); err == nil {
		_, _, _ = models.NewCatalog(p).WithCache(st).ListOrCached(ctx)
	}
	return cachedModels(ctx, st)
}

func cachedModels(ctx context.Context, st *store.Store) (map[string]bool, error) {
	cached, err := st.Models(ctx)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(cached))
	for _, m := range cached {
		known[m.Name] = true
	}
	return known, nil
}

func allKnown(known map[string]bool, names []string) bool {
	for _, n := range names {
		if _, ok := models.ResolveName(known, n); !ok {
			return false
		}
	}
	return true
}

// capabilityWords renders capabilities as the words people use.
func capabilityWords(c llm.Capabilities) string {
	s := strings.Join(models.CapabilityWords(c), " ")
	if !c.Known {
		s += " (assumed: the server does not report capabilities)"
	}
	return s
}

func humanSize(n int64) string {
	if n <= 0 {
		return "-"
	}
	units := []string{"B", "KB", "MB", "GB", "TB"}
	f := float64(n)
	i := 0
	for f >= 1000 && i < len(units)-1 {
		f /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
