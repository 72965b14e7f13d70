package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/olly-agent/olly/event"
)

// statusLine is the bottom line: what runs, where, and how full the
// context window is.
func (m *Model) statusLine() string {
	st := m.rnd.st
	var left []string
	if m.busy {
		el := m.now().Sub(m.busySince).Round(1e9)
		left = append(left, st.accent.Render(spinnerFrames[m.rnd.spin%len(spinnerFrames)])+" "+
			st.info.Render(fmt.Sprintf("working %s", el))+st.muted.Render(" · esc cancels"))
	}
	if n := m.approvals.len(); n > 0 {
		left = append(left, st.warn.Render(fmt.Sprintf("%d approval(s) waiting", n)))
	}
	left = append(left, st.head.Render(firstNonEmpty(m.info.Model, "no model")))
	mode := firstNonEmpty(m.info.Mode, string(event.ModeAgent))
	left = append(left, st.status.Render(mode))
	ws := filepath.Base(m.info.Workspace)
	if m.deps.Branch != nil {
		if b := m.deps.Branch(); b != "" {
			ws += " (" + b + ")"
		}
	}
	left = append(left, st.muted.Render(ws))
	right := m.contextUse()
	line := " " + strings.Join(left, st.muted.Render(" │ "))
	gap := m.width - ansi.StringWidth(line) - ansi.StringWidth(right) - 1
	if gap < 1 {
		return pad(line, m.width)
	}
	return line + strings.Repeat(" ", gap) + right + " "
}

// contextUse is the token use against the context window, with the
// breakdown by category when the terminal is wide enough.
func (m *Model) contextUse() string {
	st := m.rnd.st
	u := m.usage
	if u == nil || u.ContextWindow == 0 {
		if m.compacted {
			return st.muted.Render("compacted")
		}
		return st.muted.Render("? for help")
	}
	pct := 100 * u.PromptTokens / u.ContextWindow
	style := st.muted
	switch {
	case pct >= 70:
		style = st.bad
	case pct >= 50:
		style = st.warn
	}
	est := ""
	if u.Estimated {
		est = "~"
	}
	s := style.Render(fmt.Sprintf("ctx %s%s/%s %d%%", est, kilo(u.PromptTokens), kilo(u.ContextWindow), pct))
	if m.compacted {
		s += st.muted.Render(" ⇣compacted")
	}
	if m.width >= 140 {
		c := u.Categories
		instr := ""
		if c.Instructions > 0 {
			instr = " · instr " + kilo(c.Instructions)
		}
		s = st.muted.Render(fmt.Sprintf("sys %s%s · tools %s · msgs %s · results %s · files %s │ ",
			kilo(c.System), instr, kilo(c.ToolDefinitions), kilo(c.Messages), kilo(c.ToolResults), kilo(c.Files))) + s
	}
	return s
}

// kilo writes a token count briefly: 950, 12.3k.
func kilo(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	if n < 100_000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%dk", n/1000)
}
