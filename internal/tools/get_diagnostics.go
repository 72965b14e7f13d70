package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// GetDiagnostics is the get_diagnostics tool: a file's errors and warnings
// from its language server, or those of every file the current run
// changed when no path is given.
type GetDiagnostics struct {
	Servers DiagnosticsProvider
	Changed ChangedFiles
	// MaxPerFile caps the diagnostics listed per file (default 50).
	MaxPerFile int
}

func (t GetDiagnostics) max() int {
	if t.MaxPerFile <= 0 {
		return 50
	}
	return t.MaxPerFile
}

// Spec implements Tool.
func (t GetDiagnostics) Spec() llm.Tool {
	return spec("get_diagnostics", map[string]any{"MaxPerFile": t.max()},
		param{name: "path", typ: "string", desc: "File to check, relative to the workspace root. Omit it to check every file changed in this task."})
}

// Describe implements Describer.
func (t GetDiagnostics) Describe(args Args) event.ToolAction {
	if p, ok := args.Path(); ok && strings.TrimSpace(p) != "" {
		return event.ToolAction{Text: "Checking " + path.Base(strings.TrimSpace(p)), FilePath: strings.TrimSpace(p)}
	}
	return event.ToolAction{Text: "Checking changed files"}
}

// Run implements Tool.
func (t GetDiagnostics) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	if env.LanguageServers != nil { // the turn's workspace servers
		t.Servers = env.LanguageServers
	}
	if t.Servers == nil {
		return noServers("get_diagnostics"), nil
	}
	if env.Workspace == nil {
		return noWorkspace("get_diagnostics"), nil
	}
	if given, ok := args.Path(); ok && strings.TrimSpace(given) != "" {
		wp, _, bad := resolveFile(env, "get_diagnostics", args)
		if bad != nil {
			return bad, nil
		}
		return t.check(ctx, []string{wp.Abs}, event.ToolAction{Text: "Checked " + path.Base(wp.Rel), FilePath: wp.Rel})
	}
	if t.Changed == nil {
		return errResult("get_diagnostics needs a path here: olly cannot tell which files this task changed."), nil
	}
	rels, err := t.Changed.ChangedFiles(ctx, env.Session)
	if err != nil {
		return nil, fmt.Errorf("list the files this task changed: %w", err)
	}
	var abs []string
	for _, r := range rels {
		wp, err := env.Workspace.Resolve(r)
		if err == nil && !wp.IsDir() {
			abs = append(abs, wp.Abs)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return pathError("get_diagnostics", err), nil
		}
	}
	if len(abs) == 0 {
		return &Result{Content: "No files were changed in this task yet (deleted files are not checked); give a path to check a file.",
			Display: event.ToolAction{Text: "Checked changed files", Detail: "none changed"}}, nil
	}
	return t.check(ctx, abs, event.ToolAction{Text: "Checked changed files"})
}

// check diagnoses files and lists every severity, errors first.
func (t GetDiagnostics) check(ctx context.Context, abs []string, look event.ToolAction) (*Result, error) {
	reps, err := t.Servers.Diagnose(ctx, abs)
	if err != nil {
		return nil, err
	}
	var (
		b                 strings.Builder
		errs, others, bad int
		listing           []event.ListingEntry
		clean, notChecked []string
	)
	for _, r := range reps {
		if r.Err != nil {
			bad++
			notChecked = append(notChecked, fmt.Sprintf("%s: not checked: %v.", r.Rel, r.Err))
			continue
		}
		if len(r.Diagnostics) == 0 {
			clean = append(clean, r.Rel)
			continue
		}
		e := len(r.Errors())
		errs += e
		others += len(r.Diagnostics) - e
		fmt.Fprintf(&b, "── %s (%d) ──\n%s\n\n", r.Rel, len(r.Diagnostics), lsp.FormatDiagnostics(r.Rel, r.Diagnostics, r.Mapper, t.max()))
		listing = append(listing, event.ListingEntry{Path: r.Rel, Count: len(r.Diagnostics)})
	}
	if len(clean) > 0 {
		fmt.Fprintf(&b, "No problems in %s.\n", strings.Join(clean, ", "))
	}
	for _, n := range notChecked {
		b.WriteString(n + "\n")
	}
	summary := fmt.Sprintf("%s, %s", lsp.Plural(errs, "error"), lsp.Plural(others, "other problem"))
	if bad > 0 {
		summary += fmt.Sprintf(", %d not checked", bad)
	}
	look.Detail, look.Listing = summary, listing
	if len(reps) == 1 && len(listing) == 1 {
		look.Listing = nil // one file: the action itself points at it
	}
	res := &Result{Content: strings.TrimSpace(b.String()), Display: look, IsError: bad == len(reps)}
	if errs == 0 && bad == 0 && others == 0 {
		res.Content = fmt.Sprintf("No problems in %s (checked by the language server).", strings.Join(clean, ", "))
	}
	return res, nil
}
