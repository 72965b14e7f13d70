package lsp

import (
	"context"
	"fmt"
	"time"
)

// FileReport is one file's settled diagnostics, or why it was not checked.
type FileReport struct {
	// Path is absolute; Rel its display form.
	Path string
	Rel  string
	// Server is the command that checked it.
	Server      string
	Diagnostics []Diagnostic
	// Mapper indexes the text the diagnostics are for, to show columns as
	// a person counts them.
	Mapper *Mapper
	// Err says why the file was not checked: *UnavailableError,
	// *NoServerError, *NotSettledError, a crash, a read failure.
	Err error
}

// Errors returns the error-severity diagnostics.
func (r FileReport) Errors() []Diagnostic {
	var out []Diagnostic
	for _, d := range r.Diagnostics {
		if d.Severity.IsError() {
			out = append(out, d)
		}
	}
	return out
}

// Diagnose returns the settled diagnostics of files (absolute paths): each
// is synced with the disk, then olly waits (bounded by DiagnosticsWait)
// until the server has reported on the current text and has been quiet
// for a moment, at least CheckSettle after the last change, because
// servers report errors that a change causes in other files after a delay.
// It returns an error only when ctx ends.
func (m *Manager) Diagnose(ctx context.Context, paths []string) ([]FileReport, error) {
	return m.diagnose(ctx, paths, false, true)
}

// diagnose syncs every file first, then waits for each: one shared
// deadline, so checking many files costs one wait, not one each.
func (m *Manager) diagnose(ctx context.Context, paths []string, saved, settleAll bool) ([]FileReport, error) {
	type pending struct {
		c *client
		d docState
	}
	reports := make([]FileReport, len(paths))
	waits := make([]*pending, len(paths))
	for i, p := range paths {
		reports[i] = FileReport{Path: p, Rel: m.display(p)}
		c, srv, err := m.clientForPath(ctx, p)
		if err == nil {
			var d docState
			d, err = m.sync(c, srv, p, saved)
			waits[i] = &pending{c: c, d: d}
			reports[i].Server = c.name
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			reports[i].Err, waits[i] = err, nil
		}
	}
	start := time.Now()
	for i, w := range waits {
		if w == nil {
			continue
		}
		diags, err := m.settle(ctx, w.c, w.d, settleAll, start)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reports[i].Diagnostics, reports[i].Err, reports[i].Mapper = diags, err, NewMapper(w.d.text)
	}
	return reports, nil
}

// settle returns the diagnostics of d's current version: pulled when the
// server supports pull diagnostics, otherwise the pushed ones once they
// arrived and settled.
func (m *Manager) settle(ctx context.Context, c *client, d docState, settleAll bool, start time.Time) ([]Diagnostic, error) {
	if id, ok := c.supportsPull(); ok {
		return m.pull(ctx, c, d, id)
	}
	wait := m.opts.DiagnosticsWait
	if c.diags.mark() == 0 || c.loading() {
		wait = m.opts.WarmupDiagnosticsWait
	}
	quiet := m.opts.DiagnosticsQuiet
	var got published
	ok := c.diags.waitFor(ctx, start.Add(wait), func(v storeView, now time.Time) (bool, time.Time) {
		p, have := v.files[d.path]
		if !have || p.seq <= d.sentSeq || (p.version != nil && *p.version != d.version) {
			return false, time.Time{}
		}
		got = p
		ready := p.at.Add(quiet)
		if settleAll {
			ready = latest(ready, v.lastAt.Add(quiet), time.Unix(0, c.lastChange.Load()).Add(m.opts.CheckSettle))
		}
		return !now.Before(ready), ready
	})
	if ok || got.seq > 0 {
		// Not quiet yet at the deadline, but the current text's
		// diagnostics did arrive: they are the answer.
		return got.diags, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, &NotSettledError{Server: c.name, Path: m.display(d.path), After: wait}
}

// pull asks the server for the document's diagnostics.
func (m *Manager) pull(ctx context.Context, c *client, d docState, identifier string) ([]Diagnostic, error) {
	var rep documentDiagnosticReport
	p := documentDiagnosticParams{TextDocument: TextDocumentIdentifier{URI: d.uri}, Identifier: identifier}
	if err := c.call(ctx, "textDocument/diagnostic", p, &rep); err != nil {
		return nil, err
	}
	if rep.Kind == "unchanged" {
		// olly sends no previous result id, so this is a server's
		// mistake; its last pushed diagnostics are the best answer.
		if prev, ok := c.diags.get(d.path); ok {
			return prev.diags, nil
		}
		return nil, fmt.Errorf("%s answered textDocument/diagnostic with an unchanged report olly did not ask for", c.name)
	}
	v := d.version
	c.diags.put(d.path, &v, rep.Items)
	return rep.Items, nil
}

func latest(ts ...time.Time) time.Time {
	out := ts[0]
	for _, t := range ts[1:] {
		if t.After(out) {
			out = t
		}
	}
	return out
}
