package tui

import (
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/session"
)

// quitWindow is how long a first ctrl+c waits for the second.
const quitWindow = 2 * time.Second

// commandCompletion lists the TUI's own commands (session.LocalCommands:
// the others go to the session service), then the session's
// (the built-ins and the custom commands of its workspace and the person).
func (m *Model) commandCompletion() *completion {
	c := &completion{kind: compCommand, descs: map[string]string{}}
	for _, lc := range session.LocalCommands() {
		c.all = append(c.all, lc.Name)
		c.descs[lc.Name] = lc.About
	}
	cmds := session.Commands()
	if m.deps.Commands != nil && m.info.ID != "" {
		if list, err := m.deps.Commands(m.ctx, m.info.ID); err == nil {
			cmds = list
		}
	}
	for _, sc := range cmds {
		if _, local := c.descs[sc.Name]; local {
			continue // the TUI's own command of that name
		}
		c.all = append(c.all, sc.Name)
		about := sc.About
		if sc.Source != "" && sc.Source != session.SourceBuiltin {
			about += " (" + sc.Source + ")"
		}
		c.descs[sc.Name] = about
	}
	return c
}

// key handles a key press: overlays first, then the approval card, then
// the global keys, then the editor.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	s := msg.String()
	if s != "ctrl+c" {
		m.quitArmed = time.Time{}
	}
	switch {
	case s == "ctrl+c":
		return m.ctrlC()
	case m.help:
		m.help = false
		return nil
	case m.picker != nil:
		return m.picker.key(m, msg)
	case m.review != nil:
		return m.review.key(m, msg)
	}
	if cmd, ok := m.approvals.key(m, msg); ok {
		return cmd
	}
	if cmd, ok := m.trust.key(m, msg); ok {
		return cmd
	}
	if m.rnd.sel != nil {
		return m.selectKey(msg)
	}
	if cmd, ok := m.input.completionKey(msg); ok {
		return cmd
	}
	switch s {
	case "esc":
		return m.cancel()
	case "enter":
		return m.submit(session.WhenBusySteer)
	case "tab":
		if m.busy {
			return m.submit(session.WhenBusyFollowUp)
		}
		return nil
	case "?":
		if m.input.value() == "" {
			m.help = true
			return nil
		}
	case "ctrl+o":
		m.rnd.expand = !m.rnd.expand
		return nil
	case "ctrl+g":
		return m.selectMode()
	case "alt+y":
		return m.openCopyPicker()
	case "ctrl+f":
		return m.openReview()
	case "ctrl+r":
		return m.input.searchHistory()
	case "ctrl+t":
		m.mouse = !m.mouse
		if m.mouse {
			m.notice = "mouse on: the wheel scrolls (ctrl+t again to select text with the mouse)"
		} else {
			m.notice = "mouse off: select text with the mouse"
		}
		return nil
	case "ctrl+y":
		return m.copyAnswer()
	case "pgup":
		m.scroll += max(1, m.height/2)
		return nil
	case "pgdown":
		m.scroll = max(0, m.scroll-max(1, m.height/2))
		return nil
	case "up":
		if cmd, ok := m.input.historyUp(); ok {
			return cmd
		}
	case "down":
		if m.input.historyDown() {
			return nil
		}
	}
	return m.input.update(msg)
}

// ctrlC clears the input, or quits on a second press within quitWindow.
func (m *Model) ctrlC() tea.Cmd {
	now := m.now()
	if !m.quitArmed.IsZero() && now.Sub(m.quitArmed) <= quitWindow {
		if m.busy && m.deps.Sessions != nil {
			m.deps.Sessions.Abort(m.info.ID)
		}
		return tea.Quit
	}
	m.quitArmed = now
	if m.input.value() != "" {
		m.input.reset()
	}
	m.notice = "press ctrl+c again to quit"
	return nil
}

// cancel stops the running turn (esc).
func (m *Model) cancel() tea.Cmd {
	if !m.busy || m.deps.Sessions == nil {
		return nil
	}
	if m.deps.Sessions.Abort(m.info.ID) {
		m.notice = "canceling: running commands are stopped, what was done is kept"
	}
	return nil
}

// submit sends the input: a local /command, a !command, or a prompt
// (steering the running turn, or queued as a follow-up, while busy).
func (m *Model) submit(whenBusy session.WhenBusy) tea.Cmd {
	text := strings.TrimSpace(m.input.value())
	if text == "" {
		return nil
	}
	m.notice = ""
	if name, ok := localCommand(text); ok {
		m.input.reset()
		return m.runLocal(name)
	}
	m.input.reset()
	if strings.HasPrefix(text, "!") && !strings.HasPrefix(text, "!!") {
		return m.runCommand(strings.TrimSpace(text[1:]))
	}
	if !m.busy {
		whenBusy = session.WhenBusyRefuse
	}
	return m.send(text, whenBusy)
}

func localCommand(text string) (string, bool) {
	if !strings.HasPrefix(text, "/") {
		return "", false
	}
	name := strings.Fields(text[1:])
	if len(name) == 0 {
		return "", false
	}
	lc, ok := session.LocalCommandNamed(name[0])
	return lc.Name, ok
}

func (m *Model) runLocal(name string) tea.Cmd {
	switch name {
	case "help":
		m.help = true
	case "quit":
		return tea.Quit
	case "changes":
		return m.openReview()
	case "copy":
		return m.openCopyPicker()
	case "model":
		return m.openPicker(pickModel)
	case "mode":
		return m.openPicker(pickMode)
	case "sessions":
		return m.openPicker(pickSessions)
	}
	return nil
}

// send submits a prompt to the session service and runs its turn in a
// command; the turn's events arrive through the subscription.
func (m *Model) send(text string, whenBusy session.WhenBusy) tea.Cmd {
	if m.deps.Sessions == nil {
		return nil
	}
	m.scroll = 0
	sub, err := m.deps.Sessions.Submit(m.ctx, m.info.ID, session.PromptInput{Text: text}, whenBusy)
	if err != nil {
		if errors.Is(err, session.ErrBusy) {
			m.notice = "olly is still working: Enter steers it, Tab queues a follow-up, Esc cancels"
		} else {
			m.notice = err.Error()
		}
		return nil
	}
	switch sub.Queued {
	case session.WhenBusySteer:
		m.notice = "sent to the running turn: it reads it after the current step"
		return nil
	case session.WhenBusyFollowUp:
		m.notice = "queued: runs when this turn ends"
		return nil
	}
	if !m.busy {
		m.busy, m.busySince = true, m.now()
	}
	m.lastPrompt = text
	ctx := m.ctx
	cmds := []tea.Cmd{func() tea.Msg {
		res, err := sub.Run(ctx)
		return turnDoneMsg{res: res, err: err}
	}}
	return tea.Batch(append(cmds, m.startTicking())...)
}

// runCommand runs "!command" as the person, through approvals as usual.
func (m *Model) runCommand(command string) tea.Cmd {
	if m.deps.RunCommand == nil {
		m.notice = "!commands are not available here"
		return nil
	}
	if m.busy {
		m.notice = "wait for the turn to end (or Esc) before running a command"
		return nil
	}
	m.busy, m.busySince, m.scroll = true, m.now(), 0
	ctx, run, id := m.ctx, m.deps.RunCommand, m.info.ID
	cmds := []tea.Cmd{func() tea.Msg {
		return turnDoneMsg{err: run(ctx, id, command)}
	}}
	return tea.Batch(append(cmds, m.startTicking())...)
}

// helpLines is the ? screen.
func (m *Model) helpLines(h int) []string {
	st := m.rnd.st
	out := []string{st.head.Render("olly — keys") + st.muted.Render("  (any key closes)"), ""}
	for _, sec := range helpKeys {
		out = append(out, st.info.Bold(true).Render(sec.title))
		for _, k := range sec.keys {
			out = append(out, "  "+pad(st.key.Render(k[0]), 22)+" "+k[1])
		}
		out = append(out, "")
	}
	out = append(out, st.info.Bold(true).Render("Commands"))
	c := m.commandCompletion()
	for _, name := range c.all {
		out = append(out, "  "+pad(st.key.Render("/"+name), 22)+" "+c.descs[name])
	}
	for i := range out {
		out[i] = m.rnd.clipLine(" " + out[i])
	}
	if len(out) > h {
		out = out[:h]
	}
	return out
}

// helpKeys are the keys, as ? and docs/tui.md list them.
var helpKeys = []struct {
	title string
	keys  [][2]string
}{
	{"Prompt", [][2]string{
		{"enter", "send (while olly works: steer the running turn)"},
		{"tab", "while olly works: queue as a follow-up; else complete"},
		{"alt+enter shift+enter", "new line (also ctrl+j)"},
		{"↑ / ↓", "previous / next prompt from the history"},
		{"ctrl+r", "search the prompt history"},
		{"@path", "attach a file (fuzzy completion, gitignore-aware)"},
		{"/command", "commands, with completion"},
		{"!command", "run a command yourself; its output goes to the model"},
	}},
	{"Turn", [][2]string{
		{"esc", "cancel the running turn"},
		{"ctrl+c ctrl+c", "quit"},
		{"y n e a", "approval: approve, deny (with a reason), edit, always"},
		{"o o", "approval: run outside the sandbox (confirmed)"},
	}},
	{"View", [][2]string{
		{"ctrl+o", "expand thinking, tool output, sub-agents"},
		{"ctrl+g", "select one of them: ↑/↓, enter expands, y copies"},
		{"ctrl+f", "review panel: keep or undo changes"},
		{"pgup / pgdown", "scroll (wheel too, with the mouse on)"},
		{"ctrl+t", "mouse on/off (off keeps text selection)"},
		{"ctrl+y", "copy the last answer (OSC 52)"},
		{"alt+y", "copy a code block of an answer (OSC 52)"},
		{"?", "this help (on an empty prompt)"},
	}},
}
