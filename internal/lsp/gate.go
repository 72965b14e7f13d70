package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/olly-agent/olly/internal/workspace"
)

// AfterWrite implements tools.Diagnoser: after write_file it returns the
// written file's error diagnostics for the model (the seed's
// "[Auto-diagnostics]" block, which write_file adds around it), or "" when
// there are none. It waits for the server to report on the new text, at
// most DiagnosticsWait (longer for a server still starting). A file no
// server handles gets "", a missing server a one-time note with its install
// command, a server that did not answer in time a note saying the file was
// not checked: never a silent "no errors".
func (m *Manager) AfterWrite(ctx context.Context, p workspace.Path) (string, error) {
	reps, err := m.diagnose(ctx, []string{p.Abs}, true, false)
	if err != nil {
		return "", err
	}
	r := reps[0]
	r.Rel = p.Rel
	if r.Err != nil {
		return m.uncheckedNote(r), nil
	}
	errs := r.Errors()
	if len(errs) == 0 {
		return "", nil
	}
	return FormatDiagnostics(r.Rel, errs, r.Mapper, m.opts.MaxDiagnostics), nil
}

// uncheckedNote is what AfterWrite says about a file it could not check.
// A missing or broken server is said once per language: repeating it
// after every write would only crowd the model's context.
func (m *Manager) uncheckedNote(r FileReport) string {
	var nf *NoServerError
	if errors.As(r.Err, &nf) {
		return ""
	}
	var ua *UnavailableError
	var cr *CrashedError
	if errors.As(r.Err, &ua) || errors.As(r.Err, &cr) {
		srv, _ := serverFor(m.opts.Servers, r.Path)
		m.mu.Lock()
		st := m.langs[srv.Language]
		first := st != nil && !st.noted
		if st != nil {
			st.noted = true
		}
		m.mu.Unlock()
		if !first {
			return ""
		}
	}
	return fmt.Sprintf("%s was not checked for errors: %v.", r.Rel, r.Err)
}

// Report is the verification gate's answer for a set of changed files.
type Report struct {
	// Errors counts error diagnostics over all files; Text lists them per
	// file for the model, followed by the files that could not be
	// checked and why.
	Errors int
	Text   string
	// Unchecked are the files (workspace-relative) no server could check:
	// no server for their kind, server not installed, no answer in time.
	Unchecked []string
}

// Check is the post-task verification gate's diagnostics check (seed 000,
// "Post-Task Verification Gate"): the error diagnostics of each changed
// file (workspace-relative paths, as the agent tracks them), settled as in
// Diagnose. A file deleted since is skipped. It returns an error only when
// ctx ends.
func (m *Manager) Check(ctx context.Context, files []string) (Report, error) {
	var (
		abs   []string
		rep   Report
		notes []string
	)
	for _, f := range files {
		p, err := m.ws.Resolve(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // deleted: nothing left to check
		case err != nil:
			rep.Unchecked = append(rep.Unchecked, f)
			notes = append(notes, fmt.Sprintf("%s: not checked: %v", f, err))
		case !p.IsDir():
			abs = append(abs, p.Abs)
		}
	}
	reports, err := m.Diagnose(ctx, abs)
	if err != nil {
		return Report{}, err
	}
	var b strings.Builder
	for _, r := range reports {
		if r.Err != nil {
			// A file of a kind no server handles (README.md) is only
			// listed as unchecked; a missing or failing server is
			// explained.
			var nf *NoServerError
			if !errors.As(r.Err, &nf) {
				notes = append(notes, fmt.Sprintf("%s: not checked: %v", r.Rel, r.Err))
			}
			rep.Unchecked = append(rep.Unchecked, r.Rel)
			continue
		}
		errs := r.Errors()
		if len(errs) == 0 {
			continue
		}
		rep.Errors += len(errs)
		fmt.Fprintf(&b, "%s: %s\n%s\n\n", r.Rel, Plural(len(errs), "error"), FormatDiagnostics(r.Rel, errs, r.Mapper, m.opts.MaxDiagnostics))
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	rep.Text = strings.TrimSpace(b.String())
	return rep, nil
}
