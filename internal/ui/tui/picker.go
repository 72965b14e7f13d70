package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// Picker kinds.
const (
	pickModel = iota
	pickMode
	pickSessions
	pickBranch
	pickCopy
)

// picker is a searchable list: models, modes or sessions.
type picker struct {
	kind    int
	title   string
	query   string
	entries []pickEntry
	shown   []int
	sel     int
	loading bool
	failed  string
	help    string
	notice  string
	// searched marks a list that came from a search (not filtered again).
	searched bool
	// session is the session a branch picker lists the prompts of.
	session string
	// texts are what a copy picker's rows copy (value: the index).
	texts []string
}

// pickEntry is one row: the value chosen, its label and a muted detail.
type pickEntry struct {
	value, label, detail string
}

// pickerMsg carries the rows read for a picker.
type pickerMsg struct {
	kind     int
	entries  []pickEntry
	notice   string
	searched bool
	err      error
}

func (m *Model) openPicker(kind int) tea.Cmd {
	p := &picker{kind: kind, loading: true}
	m.picker = p
	switch kind {
	case pickMode:
		p.title = "Mode"
		var es []pickEntry
		for _, md := range session.Modes() {
			d := ""
			if string(md) == m.info.Mode || (md == event.ModeAgent && m.info.Mode == "") {
				d = "current"
			}
			es = append(es, pickEntry{value: string(md), label: string(md), detail: d})
		}
		p.load(pickerMsg{kind: kind, entries: es})
		return nil
	case pickModel:
		p.title = "Model"
		if m.deps.Models == nil {
			p.load(pickerMsg{kind: kind, err: fmt.Errorf("the model list is not available here")})
			return nil
		}
		ctx, list, cur := m.ctx, m.deps.Models, m.info.Model
		return func() tea.Msg {
			ms, err := list(ctx)
			if err != nil {
				return pickerMsg{kind: kind, err: err}
			}
			var es []pickEntry
			for _, md := range ms {
				var d []string
				if md.ContextLength > 0 {
					d = append(d, "ctx "+kilo(md.ContextLength))
				}
				c := md.Capabilities
				for _, f := range []struct {
					on   bool
					name string
				}{{c.Tools, "tools"}, {c.Thinking, "thinking"}, {c.Vision, "vision"}, {c.Embedding, "embedding only"}} {
					if f.on {
						d = append(d, f.name)
					}
				}
				if md.ParameterSize != "" {
					d = append(d, md.ParameterSize)
				}
				if md.Name == cur {
					d = append(d, "current")
				}
				es = append(es, pickEntry{value: md.Name, label: md.Name, detail: strings.Join(d, " · ")})
			}
			return pickerMsg{kind: kind, entries: es}
		}
	case pickSessions:
		p.title = "Sessions"
		p.help = "Enter resumes · ctrl+s searches all messages · ctrl+b branches · ctrl+k forks"
		ctx, s, dir, stats := m.ctx, m.deps.Sessions, m.info.Workspace, m.deps.PendingStats
		if s == nil {
			p.load(pickerMsg{kind: kind, err: fmt.Errorf("sessions are not available here")})
			return nil
		}
		return func() tea.Msg {
			ss, err := s.Recent(ctx, dir, 100)
			if err != nil {
				return pickerMsg{kind: kind, err: err}
			}
			var badges map[string]store.DiffStats
			if stats != nil {
				badges, _ = stats(ctx) // badges are a nicety: a failure leaves them out
			}
			var es []pickEntry
			for _, x := range ss {
				es = append(es, sessionEntry(x, badges[x.ID], ""))
			}
			return pickerMsg{kind: kind, entries: es}
		}
	}
	return nil
}

// sessionEntry is a session's row: title, pending +N −N, when, id.
func sessionEntry(x store.Session, st store.DiffStats, snippet string) pickEntry {
	d := x.UpdatedAt.Format("2006-01-02 15:04") + " · " + x.ID[:min(8, len(x.ID))]
	if st.Files > 0 {
		d = fmt.Sprintf("+%d −%d · ", st.Additions, st.Deletions) + d
	}
	if snippet != "" {
		d += " · " + snippet
	}
	return pickEntry{value: x.ID, label: firstNonEmpty(x.Title, "(untitled)"), detail: d}
}

// searchSessions replaces the list with a search of every session's
// messages by words and meaning.
func (m *Model) searchSessions(p *picker) tea.Cmd {
	if m.deps.SearchSessions == nil || strings.TrimSpace(p.query) == "" {
		return nil
	}
	ctx, search, q := m.ctx, m.deps.SearchSessions, p.query
	p.loading, p.notice = true, ""
	return func() tea.Msg {
		matches, notice, err := search(ctx, q)
		if err != nil {
			return pickerMsg{kind: pickSessions, err: err}
		}
		var es []pickEntry
		for _, mt := range matches {
			snip := ""
			if len(mt.Hits) > 0 {
				snip = mt.Hits[0].Snippet
			}
			es = append(es, sessionEntry(mt.Session, store.DiffStats{}, snip))
		}
		return pickerMsg{kind: pickSessions, entries: es, notice: notice, searched: true}
	}
}

// branchPicker lists a session's prompts; Enter branches from the chosen one.
func (m *Model) branchPicker(id string) tea.Cmd {
	if m.deps.BranchPrompts == nil {
		return nil
	}
	m.picker = &picker{kind: pickBranch, title: "Branch from which prompt?", loading: true, session: id,
		help: "the next prompt continues from just before it; the old line stays"}
	ctx, list := m.ctx, m.deps.BranchPrompts
	return func() tea.Msg {
		ps, err := list(ctx, id)
		if err != nil {
			return pickerMsg{kind: pickBranch, err: err}
		}
		var es []pickEntry
		for i := len(ps) - 1; i >= 0; i-- {
			es = append(es, pickEntry{value: fmt.Sprint(ps[i].Seq), label: oneLine(ps[i].Text), detail: fmt.Sprintf("turn %d", ps[i].Turn)})
		}
		return pickerMsg{kind: pickBranch, entries: es}
	}
}

// branch moves the session's leaf before the prompt at seq and reopens it.
func (m *Model) branch(id string, seq int64) tea.Cmd {
	ctx, s := m.ctx, m.deps.Sessions
	return func() tea.Msg {
		if _, err := s.Branch(ctx, id, seq); err != nil {
			return errMsg{err}
		}
		return pickedSessionMsg{id}
	}
}

func (p *picker) load(msg pickerMsg) {
	if msg.kind != p.kind {
		return
	}
	p.loading = false
	if msg.err != nil {
		p.failed = msg.err.Error()
		return
	}
	p.entries, p.notice, p.searched = msg.entries, msg.notice, msg.searched
	p.filter()
}

func (p *picker) filter() {
	p.shown = p.shown[:0]
	if p.query == "" || p.searched {
		for i := range p.entries {
			p.shown = append(p.shown, i)
		}
	} else {
		labels := make([]string, len(p.entries))
		for i, e := range p.entries {
			labels[i] = e.label + " " + e.detail
		}
		for _, mt := range fuzzy.Find(p.query, labels) {
			p.shown = append(p.shown, mt.Index)
		}
	}
	if p.sel >= len(p.shown) {
		p.sel = 0
	}
}

func (p *picker) key(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	switch s := msg.String(); s {
	case "esc":
		m.picker = nil
		if m.pickOnly {
			return tea.Quit
		}
	case "up", "ctrl+p":
		if p.sel > 0 {
			p.sel--
		}
	case "down", "ctrl+n":
		if p.sel+1 < len(p.shown) {
			p.sel++
		}
	case "backspace":
		if p.query != "" {
			r := []rune(p.query)
			p.query = string(r[:len(r)-1])
			p.searched = false
			p.filter()
		}
	case "enter":
		if len(p.shown) == 0 {
			return nil
		}
		m.picker = nil
		if p.kind == pickCopy {
			return m.copyPicked(p, p.entries[p.shown[p.sel]].value)
		}
		if p.kind == pickBranch {
			seq, err := strconv.ParseInt(p.entries[p.shown[p.sel]].value, 10, 64)
			if err != nil {
				return nil
			}
			return m.branch(p.session, seq)
		}
		return m.pick(p.kind, p.entries[p.shown[p.sel]].value)
	case "ctrl+k":
		if p.kind == pickSessions && len(p.shown) > 0 {
			m.picker = nil
			return m.fork(p.entries[p.shown[p.sel]].value)
		}
	case "ctrl+s":
		if p.kind == pickSessions {
			return m.searchSessions(p)
		}
	case "ctrl+b":
		if p.kind == pickSessions && len(p.shown) > 0 {
			return m.branchPicker(p.entries[p.shown[p.sel]].value)
		}
	default:
		if t := msg.Text; t != "" {
			p.query += t
			p.searched = false
			p.filter()
		}
	}
	return nil
}

// pick applies the choice: the session's model or mode, or another
// session to continue in.
func (m *Model) pick(kind int, value string) tea.Cmd {
	switch kind {
	case pickSessions:
		if value != m.info.ID {
			m.SwitchTo = value
			return tea.Quit
		}
		return nil
	case pickModel, pickMode:
		ch := event.SessionSettings{}
		if kind == pickModel {
			ch.Model = &value
		} else {
			ch.Mode = (*event.Mode)(&value)
		}
		ctx, s, id := m.ctx, m.deps.Sessions, m.info.ID
		if s == nil {
			return nil
		}
		return func() tea.Msg {
			if _, err := s.ChangeSettings(ctx, id, ch); err != nil {
				return errMsg{err}
			}
			return noticeMsg{fmt.Sprintf("next prompts use %s", value)}
		}
	}
	return nil
}

// fork copies a session into a new one and continues there.
func (m *Model) fork(id string) tea.Cmd {
	ctx, s := m.ctx, m.deps.Sessions
	return func() tea.Msg {
		sess, _, err := s.Fork(ctx, id, 0)
		if err != nil {
			return errMsg{err}
		}
		return pickedSessionMsg{sess.ID}
	}
}

// pickedSessionMsg switches to a session made by a command (a fork).
type pickedSessionMsg struct{ id string }

// lines renders the picker.
func (p *picker) lines(m *Model, h int) []string {
	st := m.rnd.st
	out := []string{st.head.Render(p.title) + st.muted.Render("  type to filter · ↑/↓ · Enter picks · Esc closes")}
	if p.help != "" {
		out = append(out, st.muted.Render(p.help))
	}
	out = append(out, st.accent.Render("search: ")+p.query)
	if p.notice != "" {
		out = append(out, st.muted.Render(oneLine(p.notice)))
	}
	out = append(out, "")
	switch {
	case p.loading:
		out = append(out, st.muted.Render("  loading…"))
	case p.failed != "":
		out = append(out, st.bad.Render("  "+oneLine(p.failed)))
	case len(p.shown) == 0:
		out = append(out, st.muted.Render("  nothing matches"))
	}
	rows := h - len(out)
	first := 0
	if p.sel >= rows && rows > 0 {
		first = p.sel - rows + 1
	}
	for i := first; i < len(p.shown) && len(out) < h; i++ {
		e := p.entries[p.shown[i]]
		line := "  " + pad(oneLine(e.label), max(10, m.width/2-2)) + " " + st.muted.Render(oneLine(e.detail))
		if i == p.sel {
			line = st.selected.Render(pad("▸ "+oneLine(e.label), max(10, m.width/2))) + " " + st.muted.Render(oneLine(e.detail))
		}
		out = append(out, m.rnd.clipLine(line))
	}
	for i := range out {
		out[i] = m.rnd.clipLine(" " + out[i])
	}
	return out
}
