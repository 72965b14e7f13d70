package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/atomicfile"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/export"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/timeline"
)

type sessionsShowOptions struct {
	*sessionsOptions
	Events      bool
	AllBranches bool
}

func newSessionsShowCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsShowOptions{sessionsOptions: parent}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session as it was seen: prompts, answers, tools, approvals, changes",
		Long: `Shows the current branch of a session the way it looked live: each prompt,
and the one answer to it with its text, reasoning (one line each), tool groups
and actions, approvals with their answers, changed files and the final message.
ID may be any unique prefix of the id.

--events prints the stored events instead, one JSON object per line (the wire
format of docs/events.md); with --all-branches, every branch of the log.
--json prints the session and its timeline as JSON.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessionsShow(cmd.Context(), opts, args[0])
		},
	}
	cmd.Flags().BoolVar(&opts.Events, "events", false, "print the stored events as JSON lines")
	cmd.Flags().BoolVar(&opts.AllBranches, "all-branches", false, "with --events: every branch of the log, not only the current one")
	return cmd
}

// sessionShowJSON is `olly sessions show --json`.
type sessionShowJSON struct {
	Session  *store.Session     `json:"session"`
	Timeline *timeline.Timeline `json:"timeline"`
}

func runSessionsShow(ctx context.Context, opts *sessionsShowOptions, ref string) error {
	if opts.AllBranches && !opts.Events {
		return usageError("--all-branches goes with --events: the rendered view shows one branch (olly sessions tree shows them all)")
	}
	svc, _, sess, err := opts.find(ctx, ref)
	if err != nil {
		return err
	}
	evs, err := sessionEvents(ctx, svc, sess.ID, opts.AllBranches)
	if err != nil {
		return err
	}
	switch {
	case opts.Events:
		return export.JSONL(opts.IO.Out, evs)
	case opts.JSON:
		return writeJSON(opts.IO.Out, sessionShowJSON{Session: sess, Timeline: timeline.Build(evs)})
	}
	return export.Text(opts.IO.Out, export.Doc{Session: sess, Timeline: timeline.Build(evs)}, export.TextOptions{Color: opts.IO.Color})
}

// sessionEvents reads the current branch of a session, or its whole log.
func sessionEvents(ctx context.Context, svc *session.Service, id string, all bool) ([]event.Event, error) {
	if !all {
		return svc.History(ctx, id)
	}
	return svc.Log(ctx, id)
}

// Export formats.
const (
	formatMarkdown = "md"
	formatJSONL    = "jsonl"
	formatHTML     = "html"
)

type sessionsExportOptions struct {
	*sessionsOptions
	Format      string
	Output      string
	AllBranches bool
}

func newSessionsExportCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsExportOptions{sessionsOptions: parent}
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Export a session as Markdown, JSON lines or a self-contained HTML page",
		Long: `Writes the current branch of a session to stdout, or to FILE with -o:

  md     a readable transcript (the default, or when FILE ends in .md)
  html   one self-contained page: no scripts, nothing loaded from anywhere,
         reasoning and tool groups folded (FILE ending in .html)
  jsonl  the stored events, one JSON object per line (FILE ending in .jsonl);
         --all-branches exports every branch of the log

With -o and --json, a JSON summary of what was written goes to stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessionsExport(cmd.Context(), opts, args[0])
		},
	}
	cmd.Flags().StringVarP(&opts.Format, "format", "f", "", "`md`, html or jsonl (default: from FILE's extension, else md)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write to `FILE` instead of stdout")
	cmd.Flags().BoolVar(&opts.AllBranches, "all-branches", false, "with jsonl: every branch of the log")
	return cmd
}

// exportFormat picks the format: --format, else FILE's extension, else md.
func exportFormat(flag, file string) (string, error) {
	f := strings.ToLower(strings.TrimSpace(flag))
	if f == "" {
		switch strings.ToLower(filepath.Ext(file)) {
		case ".html", ".htm":
			f = formatHTML
		case ".jsonl", ".ndjson", ".json":
			f = formatJSONL
		default:
			f = formatMarkdown
		}
	}
	switch f {
	case "markdown":
		f = formatMarkdown
	case "json":
		f = formatJSONL
	}
	if f != formatMarkdown && f != formatJSONL && f != formatHTML {
		return "", usageError("--format %q: use md, html or jsonl", flag)
	}
	return f, nil
}

// exportJSON is `olly sessions export -o FILE --json`.
type exportJSON struct {
	SessionID string `json:"sessionId"`
	Format    string `json:"format"`
	File      string `json:"file"`
	Bytes     int64  `json:"bytes"`
	Events    int    `json:"events"`
}

func runSessionsExport(ctx context.Context, opts *sessionsExportOptions, ref string) error {
	format, err := exportFormat(opts.Format, opts.Output)
	if err != nil {
		return err
	}
	if opts.AllBranches && format != formatJSONL {
		return usageError("--all-branches goes with --format jsonl: Markdown and HTML show one branch")
	}
	if opts.JSON && opts.Output == "" {
		return usageError("--json describes the file written with -o FILE; without -o the export itself goes to stdout")
	}
	svc, _, sess, err := opts.find(ctx, ref)
	if err != nil {
		return err
	}
	evs, err := sessionEvents(ctx, svc, sess.ID, opts.AllBranches)
	if err != nil {
		return err
	}
	render := func(w io.Writer) error {
		if format == formatJSONL {
			return export.JSONL(w, evs)
		}
		doc := export.Doc{Session: sess, Timeline: timeline.Build(evs)}
		if format == formatHTML {
			return export.HTML(w, doc)
		}
		return export.Markdown(w, doc)
	}
	if opts.Output == "" {
		return render(opts.IO.Out)
	}
	// Rendered whole first, then written through a temporary file: a
	// failure never leaves half an export where the person asked for one.
	var buf bytes.Buffer
	err = render(&buf)
	if err == nil {
		err = atomicfile.Write(opts.Output, buf.Bytes(), 0o644)
	}
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("export to %s: %w", opts.Output, err)}
	}
	n := int64(buf.Len())
	if opts.JSON {
		return writeJSON(opts.IO.Out, exportJSON{SessionID: sess.ID, Format: format, File: opts.Output, Bytes: n, Events: len(evs)})
	}
	fmt.Fprintf(opts.IO.ErrOut, "Exported session %s (%d events) to %s.\n", sess.ID, len(evs), opts.Output)
	return nil
}
