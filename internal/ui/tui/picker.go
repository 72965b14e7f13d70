package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// Picker kinds.
const (
	pickModel = iota
	pickMode
	pickSessions
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
}

// pickEntry is one row: the value chosen, its label and a muted detail.
type pickEntry struct {
	value, label, detail string
}

// pickerMsg carries the rows read for a picker.
type pickerMsg struct {
	kind    int
	entries []pickEntry
	err     error
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
			if md == m.info.Mode || (md == "agent" && m.info.Mode == "") {
				d = "current"
			}
			es = append(es, pickEntry{value: md, label: md, detail: d})
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
		p.title = "Sessions (Enter resumes, ctrl+k forks)"
		ctx, s, dir := m.ctx, m.deps.Sessions, m.info.Workspace
		if s == nil {
			p.load(pickerMsg{kind: kind, err: fmt.Errorf("sessions are not available here")})
			return nil
		}
		return func() tea.Msg {
			ss, err := s.Recent(ctx, dir, 100)
			if err != nil {
				return pickerMsg{kind: kind, err: err}
			}
			var es []pickEntry
			for _, x := range ss {
				es = append(es, pickEntry{value: x.ID, label: firstNonEmpty(x.Title, "(untitled)"),
					detail: x.UpdatedAt.Format("2006-01-02 15:04") + " · " + x.ID[:min(8, len(x.ID))]})
			}
			return pickerMsg{kind: kind, entries: es}
		}
	}
	return nil
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
	p.entries = msg.entries
	p.filter()
}

func (p *picker) filter() {
	p.shown = p.shown[:0]
	if p.query == "" {
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
			p.filter()
		}
	case "enter":
		if len(p.shown) == 0 {
			return nil
		}
		m.picker = nil
		return m.pick(p.kind, p.entries[p.shown[p.sel]].value)
	case "ctrl+k":
		if p.kind == pickSessions && len(p.shown) > 0 {
			m.picker = nil
			return m.fork(p.entries[p.shown[p.sel]].value)
		}
	default:
		if t := msg.Text; t != "" {
			p.query += t
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
			ch.Mode = &value
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
	out := []string{st.head.Render(p.title) + st.muted.Render("  type to search · ↑/↓ · Enter picks · Esc closes"),
		st.accent.Render("search: ") + p.query, ""}
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
