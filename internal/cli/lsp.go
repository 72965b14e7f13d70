package cli

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lspserver"
)

func newLSPCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "lsp",
		Short: "Language server for editors: inline completions and \"Edit with olly…\" (stdio)",
		Long: `olly lsp speaks the Language Server Protocol on stdin and stdout. Editors start
it for inline completions as you type (textDocument/inlineCompletion, or
textDocument/completion for editors without it), filled in by
completionMode.model, and for the code action "Edit with olly…", which rewrites
the selection by an instruction (chatMode.model). Set-ups for VS Code, Neovim
and Helix: docs/editors.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLSP(cmd.Context(), f) },
	}
}

// runLSP serves one editor until it exits or stdin ends. It opens no
// database: a keystroke costs one model call and nothing else.
func runLSP(ctx context.Context, f *Factory) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := f.settings()
	if err != nil {
		return err
	}
	logger, logFile, logErr := app.OpenLog(cfg.Paths().StateDir, slog.LevelInfo)
	defer logFile.Close()
	if logErr != nil {
		logger.Warn("no log", "error", logErr) // stdout is the protocol's: say nothing there
	}
	// No retries: a completion that waits for a retry is stale by then.
	newProvider := f.NewProvider
	if newProvider == nil {
		newProvider = func(c *config.Config) (llm.Provider, error) { return app.NewProviderWithRetry(c, llm.RetryPolicy{}) }
	}
	p, err := newProvider(cfg)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	runCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger.Info("lsp: serving", "model", cfg.CompletionMode.Model, "baseUrl", cfg.BaseURL)
	return lspserver.Serve(runCtx, stdio{f.IO.In, f.IO.Out}, lspserver.Options{
		Provider: p, Settings: lspSettings(cfg), Log: logger, Version: version(), Warm: true,
	})
}

// lspSettings takes the completion and edit settings from olly's.
func lspSettings(cfg *config.Config) lspserver.Settings {
	edit := cfg.ChatMode
	if edit.Model == "" && cfg.AgentMode.Model != "" {
		edit.Model = cfg.AgentMode.Model
	}
	c := cfg.Completion
	return lspserver.Settings{
		Model: cfg.CompletionMode.Model, Temperature: cfg.CompletionMode.Temperature, MaxTokens: cfg.CompletionMode.MaxTokens,
		EditModel: edit.Model, EditTemperature: cfg.ChatMode.Temperature, EditMaxTokens: cfg.ChatMode.MaxTokens,
		Enabled:     cfg.EnableAutoComplete,
		PrefixChars: c.PrefixChars, SuffixChars: c.SuffixChars, ContextChars: c.ContextChars,
		Debounce: c.Debounce, LatencyBudget: c.LatencyBudget, KeepAlive: c.KeepAlive,
	}
}

// stdio is the editor's end of the connection. Closing it closes nothing:
// the process's streams end with the process.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
