package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/checkpoint"
)

// reviewPanel is the files-changed panel over the session's pending
// changes: the checkpoint package's review model (ReviewSession) does the
// work and the "change X of Y" arithmetic; the panel shows it and turns
// keys into its calls.
type reviewPanel struct {
	rs    *checkpoint.ReviewSession
	ids   []string
	files []checkpoint.FileReview
	pos   checkpoint.ChangePosition
	// message is the last keep or undo's outcome, conflicts included.
	message []string
	loading bool
	failed  string
	deps    Deps
	ctx     context.Context
	session string
	undoAll bool // X was pressed once: the second press undoes everything
}

// reviewMsg carries a rebuilt review.
type reviewMsg struct {
	rs      *checkpoint.ReviewSession
	ids     []string
	files   []checkpoint.FileReview
	pos     checkpoint.ChangePosition
	message []string
	err     error
}

// openReview opens the panel (or closes it when open).
func (m *Model) openReview() tea.Cmd {
	if m.review != nil {
		m.review = nil
		return nil
	}
	if m.deps.Checkpoints == nil {
		m.notice = "the review panel is not available here"
		return nil
	}
	m.review = &reviewPanel{loading: true, deps: m.deps, ctx: m.ctx, session: m.info.ID}
	return m.review.refresh()
}

// refresh rebuilds the review from the session's pending checkpoints,
// keeping the position.
func (p *reviewPanel) refresh() tea.Cmd {
	ctx, deps, id, rs := p.ctx, p.deps, p.session, p.rs
	return func() tea.Msg {
		mgr, err := deps.Checkpoints(ctx, id)
		if err != nil {
			return reviewMsg{err: err}
		}
		ch, err := mgr.SessionChanges(ctx, id)
		if err != nil {
			return reviewMsg{err: err}
		}
		if rs == nil {
			rs = mgr.NewReviewSession()
		}
		pos, err := rs.Start(ctx, ch.IDs()...)
		if err != nil {
			return reviewMsg{err: err}
		}
		return reviewMsg{rs: rs, ids: ch.IDs(), files: rs.Files(), pos: pos}
	}
}

func (p *reviewPanel) apply(msg reviewMsg) {
	p.loading = false
	if msg.err != nil {
		p.failed = msg.err.Error()
		return
	}
	p.failed = ""
	if msg.rs != nil {
		p.rs, p.ids = msg.rs, msg.ids
	}
	p.files, p.pos = msg.files, msg.pos
	if msg.message != nil {
		p.message = msg.message
	}
}

// current is the file and hunk of the current change.
func (p *reviewPanel) current() (*checkpoint.FileReview, *checkpoint.Hunk) {
	for i := range p.files {
		f := &p.files[i]
		if f.Path != p.pos.FilePath {
			continue
		}
		for j := range f.Hunks {
			if f.Hunks[j].Number == p.pos.Hunk {
				return f, &f.Hunks[j]
			}
		}
		return f, nil
	}
	return nil, nil
}

func (p *reviewPanel) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s := msg.String()
	if s != "X" {
		p.undoAll = false
	}
	switch s {
	case "esc", "ctrl+f", "q":
		m.review = nil
		return nil
	case "?":
		m.help = true
		return nil
	}
	if p.rs == nil {
		return nil
	}
	f, h := p.current()
	switch s {
	case "down", "j", "n":
		return p.navigate(checkpoint.NextChange)
	case "up", "k", "p":
		return p.navigate(checkpoint.PrevChange)
	case "right", "tab", "]":
		return p.navigate(checkpoint.NextFile)
	case "left", "shift+tab", "[":
		return p.navigate(checkpoint.PrevFile)
	case "y", "enter":
		if f != nil && h != nil {
			return p.act(checkpoint.ActionKeep, f.Path, h.Number)
		}
	case "u", "backspace":
		if f != nil && h != nil {
			return p.act(checkpoint.ActionUndo, f.Path, h.Number)
		}
	case "Y":
		if f != nil {
			return p.act(checkpoint.ActionKeep, f.Path, 0)
		}
	case "U":
		if f != nil {
			return p.act(checkpoint.ActionUndo, f.Path, 0)
		}
	case "A":
		return p.all(checkpoint.ActionKeep)
	case "X":
		if !p.undoAll {
			p.undoAll = true
			p.message = []string{"press X again to undo every pending change"}
			return nil
		}
		p.undoAll = false
		return p.all(checkpoint.ActionUndo)
	}
	return nil
}

func (p *reviewPanel) navigate(mv checkpoint.Move) tea.Cmd {
	ctx, rs, ids := p.ctx, p.rs, p.ids
	return func() tea.Msg {
		pos, err := rs.Navigate(ctx, mv, ids...)
		return reviewMsg{files: rs.Files(), pos: pos, err: err}
	}
}

// act keeps or undoes a hunk (or the file, hunk 0) through the review.
func (p *reviewPanel) act(action, path string, hunk int) tea.Cmd {
	ctx, rs := p.ctx, p.rs
	return func() tea.Msg {
		do := rs.Keep
		if action == checkpoint.ActionUndo {
			do = rs.Undo
		}
		out, pos, err := do(ctx, path, hunk)
		msg := reviewMsg{files: rs.Files(), pos: pos, message: outcomeLines(action, out)}
		if err != nil && out == nil {
			msg.message = []string{"error: " + err.Error()}
		}
		return msg
	}
}

// all keeps or undoes every pending change of the session.
func (p *reviewPanel) all(action string) tea.Cmd {
	ctx, deps, id, rs := p.ctx, p.deps, p.session, p.rs
	return func() tea.Msg {
		mgr, err := deps.Checkpoints(ctx, id)
		if err != nil {
			return reviewMsg{err: err}
		}
		outs, err := mgr.ApplySession(ctx, id, action, "")
		var lines []string
		for i := range outs {
			lines = append(lines, outcomeLines(action, &outs[i])...)
		}
		if err != nil {
			lines = append(lines, "error: "+err.Error())
		}
		pos, _ := rs.Start(ctx)
		return reviewMsg{files: rs.Files(), pos: pos, message: lines}
	}
}

// outcomeLines says what a keep or undo did, with its conflicts as the
// CLI shows them (olly changes).
func outcomeLines(action string, o *checkpoint.Outcome) []string {
	if o == nil {
		return nil
	}
	done := "Kept"
	if action == checkpoint.ActionUndo {
		done = "Undone"
	}
	var out []string
	for _, f := range o.Files {
		what := f.Path
		if f.Hunk > 0 {
			what = fmt.Sprintf("hunk %d of %s", f.Hunk, f.Path)
		}
		switch {
		case len(f.Conflicts) > 0 && f.Applied == 0:
			out = append(out, "Not undone: "+what)
		case len(f.Conflicts) > 0:
			out = append(out, fmt.Sprintf("Partly undone: %s (%d change(s) undone, %d left)", what, f.Applied, len(f.Conflicts)))
		case f.Resolved:
			out = append(out, fmt.Sprintf("%s: %s (%s)", done, what, f.Status))
		default:
			out = append(out, fmt.Sprintf("%s: %s; +%d −%d left to review", done, what, f.Additions, f.Deletions))
		}
	}
	if cs := o.Conflicts(); len(cs) > 0 {
		out = append(out, "These changes were not undone, because the file changed there after the agent wrote it:")
		for _, c := range cs {
			out = append(out, "  "+c.Path+": "+c.String())
		}
		out = append(out, "Keep them (Y), or edit the files yourself.")
	}
	return out
}

// lines renders the panel: the files with +N −N, the current hunk, and
// what the last action did.
func (p *reviewPanel) lines(m *Model, h int) []string {
	st := m.rnd.st
	title := st.head.Render("Review changes")
	switch {
	case p.loading:
		return []string{title, st.muted.Render("  reading the pending changes…")}
	case p.failed != "":
		return []string{title, st.bad.Render("  " + oneLine(p.failed)), st.muted.Render("  esc closes")}
	}
	if p.pos.Total == 0 {
		out := []string{title + st.muted.Render("  nothing left to review"), ""}
		out = append(out, p.messageLines(m)...)
		return append(out, st.muted.Render("  esc closes"))
	}
	out := []string{title + st.info.Render(fmt.Sprintf("  change %d of %d", p.pos.Current, p.pos.Total)), ""}
	for _, f := range p.files {
		mark := "  "
		line := fmt.Sprintf("%s %s %s", actionMark(f.Action), oneLine(f.Path), m.rnd.stat(f.Additions, f.Deletions))
		if staleFile(f) {
			line += " " + st.warn.Render("(conflict)")
		}
		if f.Path == p.pos.FilePath {
			mark = st.accent.Render("▸ ")
			line = st.info.Bold(true).Render(line)
		}
		out = append(out, m.rnd.clipLine(mark+line))
	}
	out = append(out, "")
	if f, hk := p.current(); f != nil && hk != nil {
		head := fmt.Sprintf("%s — hunk %d of %d", oneLine(f.Path), hk.Number, len(f.Hunks))
		out = append(out, st.hunk.Render(head))
		if hk.Stale {
			out = append(out, st.warn.Render("conflict: "+oneLine(hk.Reason)+" — undo would not apply; keep it or edit the file"))
		}
		out = append(out, p.hunkLines(m, f.Path, hk)...)
	}
	out = append(out, "")
	out = append(out, p.messageLines(m)...)
	k := func(key, what string) string { return st.key.Render(key) + " " + what }
	out = append(out, strings.Join([]string{k("n/p", "next/prev change"), k("tab", "next file"), k("y/u", "keep/undo hunk"),
		k("Y/U", "file"), k("A/X", "all"), k("esc", "close")}, st.muted.Render(" · ")))
	for i := range out {
		out[i] = m.rnd.clipLine(" " + out[i])
	}
	if len(out) > h {
		// Keep the header, the hunk and the keys; cut the file list.
		out = append(out[:2], out[len(out)-(h-2):]...)
	}
	return out
}

func (p *reviewPanel) messageLines(m *Model) []string {
	var out []string
	for _, l := range p.message {
		style := m.rnd.st.ok
		if strings.HasPrefix(l, "Not undone") || strings.HasPrefix(l, "Partly") || strings.HasPrefix(l, "These") || strings.HasPrefix(l, "error") {
			style = m.rnd.st.warn
		}
		out = append(out, style.Render(oneLine(l)))
	}
	return out
}

// hunkLines shows a hunk as a coloured diff with its context.
func (p *reviewPanel) hunkLines(m *Model, path string, hk *checkpoint.Hunk) []string {
	st := m.rnd.st
	if hk.WholeFile {
		return []string{st.muted.Render("  (kept or undone as a whole: binary, large or empty)")}
	}
	var rows []diffRow
	add := func(text string, kind byte) {
		if text == "" {
			return
		}
		for _, l := range strings.Split(strings.TrimSuffix(sanitize(text), "\n"), "\n") {
			rows = append(rows, diffRow{kind: kind, text: l})
		}
	}
	add(hk.ContextBefore, ' ')
	add(hk.OldText, '-')
	add(hk.NewText, '+')
	add(hk.ContextAfter, ' ')
	return renderDiff(st, path, rows)
}

func actionMark(action string) string {
	if action == "created" {
		return "A"
	}
	return "M"
}

// staleFile reports whether a hunk of f no longer holds what the agent
// wrote (undo would report a conflict).
func staleFile(f checkpoint.FileReview) bool {
	for _, h := range f.Hunks {
		if h.Stale {
			return true
		}
	}
	return false
}
