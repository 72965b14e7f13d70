package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/models"
)

type modelsOptions struct {
	IO       *IOStreams
	Provider func() (llm.Provider, error)
	JSON     bool
}

func newModelsCmd(f *Factory) *cobra.Command {
	opts := &modelsOptions{IO: f.IO, Provider: f.Provider}
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the server's models with their capabilities and context length",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runModels(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON array")
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
	Error             string           `json:"error,omitempty"`
}

func runModels(ctx context.Context, opts *modelsOptions) error {
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	list, err := models.NewCatalog(p).List(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]modelJSON, 0, len(list))
		for _, m := range list {
			j := modelJSON{Name: m.Name, Size: m.Size, Family: m.Family, ParameterSize: m.ParameterSize,
				QuantizationLevel: m.QuantizationLevel, ContextLength: m.ContextLength, Capabilities: m.Capabilities, Running: m.Running}
			if m.Err != nil {
				j.Error = m.Err.Error()
			}
			out = append(out, j)
		}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
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
	fmt.Fprintln(tw, "NAME\tSIZE\tFAMILY\tPARAMS\tQUANT\tCONTEXT\tCAPABILITIES")
	for _, m := range list {
		ctxLen := "-"
		if m.ContextLength > 0 {
			ctxLen = fmt.Sprint(m.ContextLength)
		}
		caps := capabilityWords(m.Capabilities)
		if m.Err != nil {
			caps = "? (" + m.Err.Error() + ")"
		}
		if m.Running {
			caps += "  [loaded]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, humanSize(m.Size), dash(m.Family), dash(m.ParameterSize), dash(m.QuantizationLevel), ctxLen, caps)
	}
	return tw.Flush()
}

// capabilityWords renders capabilities as the words people use.
func capabilityWords(c llm.Capabilities) string {
	var w []string
	for _, x := range []struct {
		on   bool
		name string
	}{{c.Chat, "chat"}, {c.Tools, "tools"}, {c.Thinking, "thinking"}, {c.Vision, "vision"}, {c.FIM, "fim"}, {c.Embedding, "embedding"}} {
		if x.on {
			w = append(w, x.name)
		}
	}
	s := strings.Join(w, " ")
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
