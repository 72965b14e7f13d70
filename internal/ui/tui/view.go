package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/olly-agent/olly/internal/timeline"
)

// layout sizes the widgets for the terminal.
func (m *Model) layout() {
	m.rnd.width = m.width
	m.rnd.md.setup(m.width, m.dark)
	m.input.setWidth(m.width)
	m.invalidate()
}

// View renders the screen: the conversation, then (bottom up) the status
// line, the input editor, completions or the approval card, and the
// review panel, picker or help when open.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "olly — " + firstNonEmpty(m.info.Title, m.info.Workspace)
	if m.mouse {
		// Off by default: capturing the mouse breaks the terminal's own
		// text selection (ctrl+t turns it on, for wheel scrolling).
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

// Render is the screen as text (View's content), exactly Height lines.
func (m *Model) Render() string {
	bottom := m.bottom()
	h := m.height - len(bottom)
	if h < 1 {
		h = 1
	}
	var top []string
	switch {
	case m.help:
		top = m.helpLines(h)
	case m.picker != nil:
		top = m.picker.lines(m, h)
	case m.review != nil:
		top = m.review.lines(m, h)
	default:
		top = m.conversation(h)
	}
	top = fit(top, h)
	out := append(top, bottom...)
	if len(out) > m.height {
		out = out[len(out)-m.height:]
	}
	return strings.Join(out, "\n")
}

// bottom is the fixed part under the conversation.
func (m *Model) bottom() []string {
	var out []string
	if card := m.approvals.card(m); len(card) > 0 {
		out = append(out, card...)
	} else if card := m.trust.card(m); len(card) > 0 {
		out = append(out, card...)
	} else {
		out = append(out, m.input.completionLines(m)...)
		if m.notice != "" {
			out = append(out, m.rnd.clipLine(m.rnd.st.warn.Render(oneLine(m.notice))))
		}
		if m.rnd.sel != nil {
			out = append(out, m.selectHint())
		} else {
			out = append(out, m.input.lines(m)...)
		}
	}
	return append(out, m.statusLine())
}

// conversation is the last h lines of the timeline, scrolled by m.scroll.
// Items are rendered from the newest back only as far as the screen
// reaches, so opening a long session renders one screenful.
func (m *Model) conversation(h int) []string {
	items := m.tb.Timeline().Items
	if len(items) == 0 {
		return m.welcome()
	}
	need := h + m.scroll
	var parts [][]string
	n := 0
	selAt := -1 // the selected element's line, counted from the bottom
	top := true // every item was rendered: the scroll can be clamped
	for i := len(items) - 1; i >= 0; i-- {
		if n >= need && (!m.follow || selAt >= 0) {
			top = false
			break
		}
		lines := m.itemLines(items[i])
		if m.follow && selAt < 0 {
			if k := markedLine(lines, m.rnd.st.key.Render(selMark)); k >= 0 {
				selAt = n + len(lines) - 1 - k
			}
		}
		parts = append(parts, lines)
		n += len(lines)
	}
	all := make([]string, 0, n)
	for i := len(parts) - 1; i >= 0; i-- {
		all = append(all, parts[i]...)
	}
	if m.follow {
		if selAt >= 0 && (selAt < m.scroll || selAt >= m.scroll+h) {
			// Bring the selected element to the middle of the screen.
			m.scroll = max(0, selAt-h/2)
		}
		m.follow = false
	}
	if top && m.scroll > max(0, len(all)-h) {
		m.scroll = max(0, len(all)-h)
	}
	end := len(all) - m.scroll
	start := max(0, end-h)
	return all[start:end]
}

// itemLines renders an item, from the cache when it has not changed since
// its last rendering.
func (m *Model) itemLines(it *timeline.Item) []string {
	running := it.Kind == timeline.KindAssistant && it.Status == "running"
	spin := 0
	if running {
		spin = m.rnd.spin
	}
	c, ok := m.cache[it]
	if !ok || c.ver != m.ver[it.Turn] || c.width != m.width || c.expand != m.rnd.expand || c.spin != spin {
		c = cached{ver: m.ver[it.Turn], width: m.width, expand: m.rnd.expand, spin: spin, lines: splitLines(m.rnd.item(it))}
		m.cache[it] = c
	}
	return c.lines
}

func (m *Model) welcome() []string {
	st := m.rnd.st
	return []string{
		"",
		"  " + st.head.Render("olly") + st.muted.Render(" — a coding agent for the models you run yourself"),
		"",
		"  " + st.muted.Render("Type a task and press Enter. @ attaches a file, / lists commands,"),
		"  " + st.muted.Render("!cmd runs a command yourself, ? (on an empty line) shows every key."),
	}
}

// markedLine is the index of the line that starts with the selection
// marker, -1 when none does.
func markedLine(lines []string, mark string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, mark) {
			return i
		}
	}
	return -1
}

// splitLines splits lines that hold newlines into screen lines.
func splitLines(in []string) []string {
	out := make([]string, 0, len(in))
	for _, l := range in {
		if strings.IndexByte(l, '\n') >= 0 {
			out = append(out, strings.Split(l, "\n")...)
			continue
		}
		out = append(out, l)
	}
	return out
}

// fit pads or cuts lines to exactly h, keeping the bottom.
func fit(lines []string, h int) []string {
	if len(lines) > h {
		return lines[len(lines)-h:]
	}
	pad := make([]string, h-len(lines), h)
	return append(pad, lines...)
}

func (m *Model) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	switch msg.Mouse().Button {
	case tea.MouseWheelUp:
		m.scroll += 3
	case tea.MouseWheelDown:
		m.scroll -= 3
		if m.scroll < 0 {
			m.scroll = 0
		}
	}
	return nil
}

// pad cuts or pads a styled line to width w.
func pad(s string, w int) string {
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-n)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
