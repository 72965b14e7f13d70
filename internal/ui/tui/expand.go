package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/timeline"
)

// Select mode (ctrl+g) picks one element of the conversation — a finished
// thinking block, a tool action with more output than its collapsed
// tail, a finished sub-agent group — to expand or collapse on its own
// (ctrl+o expands them all) or to copy. The renderer marks the selected
// element's first line with selMark.

// selMark starts the selected element's first line.
const selMark = "▶"

// isOpen reports whether an element shows expanded.
func (r *renderer) isOpen(x any) bool { return r.expand || r.open[x] }

// mark puts the selection marker on an element's first line when it is
// the selected one.
func (r *renderer) mark(x any, line string) string {
	if r.sel == nil || r.sel != x {
		return line
	}
	// The line starts with at least two columns of indent.
	if !strings.HasPrefix(line, "  ") {
		return r.st.key.Render(selMark) + " " + line
	}
	return r.st.key.Render(selMark) + " " + line[2:]
}

// expandables lists the conversation's expandable elements, top to
// bottom; elements inside a collapsed sub-agent group are left out.
func (r *renderer) expandables(items []*timeline.Item) []any {
	var out []any
	for _, it := range items {
		if it.Kind != timeline.KindAssistant {
			continue
		}
		running := it.Status == "running"
		for i, b := range it.Blocks {
			switch b.Kind {
			case timeline.BlockThinking:
				if !(running && i == len(it.Blocks)-1) && strings.TrimSpace(b.Text) != "" {
					out = append(out, b)
				}
			case timeline.BlockGroup:
				out = r.groupExpandables(b.Group, out)
			}
		}
	}
	return out
}

func (r *renderer) groupExpandables(g *timeline.Group, out []any) []any {
	if g == nil {
		return out
	}
	if g.Subagent && g.Done {
		out = append(out, g)
		if !r.isOpen(g) {
			return out
		}
	}
	for _, a := range g.Actions {
		text := a.Output
		if text == "" {
			text = a.LiveOutput
		}
		if strings.Count(strings.TrimRight(text, "\n"), "\n")+1 > outputLines {
			out = append(out, a)
		}
	}
	for _, c := range g.Children {
		out = r.groupExpandables(c, out)
	}
	return out
}

// selectMode enters select mode on the newest expandable element.
func (m *Model) selectMode() tea.Cmd {
	xs := m.rnd.expandables(m.tb.Timeline().Items)
	if len(xs) == 0 {
		m.notice = "nothing to expand: no thinking, long tool output or sub-agent group on screen"
		return nil
	}
	m.rnd.sel = xs[len(xs)-1]
	m.follow = true
	m.invalidate()
	return nil
}

// selectKey handles a key in select mode.
func (m *Model) selectKey(msg tea.KeyPressMsg) tea.Cmd {
	xs := m.rnd.expandables(m.tb.Timeline().Items)
	i := -1
	for k, x := range xs {
		if x == m.rnd.sel {
			i = k
		}
	}
	switch msg.String() {
	case "esc", "ctrl+g", "q":
		m.leaveSelect()
		return nil
	case "up", "k", "shift+tab":
		if i > 0 {
			m.rnd.sel = xs[i-1]
		}
	case "down", "j", "tab":
		if i >= 0 && i+1 < len(xs) {
			m.rnd.sel = xs[i+1]
		}
	case "enter", "space", " ", "o":
		if i >= 0 {
			if m.rnd.open == nil {
				m.rnd.open = map[any]bool{}
			}
			m.rnd.open[m.rnd.sel] = !m.rnd.open[m.rnd.sel]
		}
	case "y":
		return m.copySelected()
	default:
		return nil
	}
	if i < 0 && len(xs) > 0 {
		// The selected element went away (a new turn): start again.
		m.rnd.sel = xs[len(xs)-1]
	}
	m.follow = true
	m.invalidate()
	return nil
}

func (m *Model) leaveSelect() {
	m.rnd.sel = nil
	m.follow = false
	m.invalidate()
}

// copySelected copies the selected element's text with OSC 52.
func (m *Model) copySelected() tea.Cmd {
	var text, what string
	switch x := m.rnd.sel.(type) {
	case *timeline.Block:
		text, what = x.Text, "the thinking"
	case *timeline.Action:
		text, what = firstNonEmpty(x.Output, x.LiveOutput), "the output"
	case *timeline.Group:
		m.notice = "a sub-agent group has no text of its own to copy: select one of its actions"
		return nil
	}
	if text == "" {
		return nil
	}
	m.notice = fmt.Sprintf("copied %s (%d characters)", what, len(text))
	return tea.SetClipboard(text)
}

// selectHint is the line shown instead of the editor in select mode.
func (m *Model) selectHint() string {
	st := m.rnd.st
	return m.rnd.clipLine(" " + st.key.Render("select") + st.muted.Render("  ↑/↓ move · enter expands or collapses · y copies · esc leaves"))
}
