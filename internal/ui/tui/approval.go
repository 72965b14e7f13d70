package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

// Approval card states.
const (
	askChoose  = iota
	askReason  // typing the reason for a denial
	askEdit    // editing the command before approving it
	askOutside // confirming a run outside the sandbox
)

// approvals is the queue of requests waiting for the person, oldest first:
// the card shows the first, and says how many wait behind it.
type approvals struct {
	queue []event.ApprovalRequested
	state int
	field textinput.Model
}

func (a *approvals) len() int { return len(a.queue) }

func (a *approvals) add(p event.ApprovalRequested) {
	for _, q := range a.queue {
		if q.ApprovalID == p.ApprovalID {
			return
		}
	}
	a.queue = append(a.queue, p)
}

func (a *approvals) remove(id string) {
	for i, q := range a.queue {
		if q.ApprovalID == id {
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			if i == 0 {
				a.state = askChoose
			}
			return
		}
	}
}

// card renders the first waiting request with its keys.
func (a *approvals) card(m *Model) []string {
	if len(a.queue) == 0 {
		return nil
	}
	p := a.queue[0]
	st := m.rnd.st
	w := m.width - 4
	var body []string
	title := "Approve "
	switch p.Kind {
	case event.ApprovalCommand:
		title += "this command?"
	case event.ApprovalFileEdit:
		title += "this edit?"
	case event.ApprovalTool:
		title += "this tool call?"
	default:
		title += "this?"
	}
	if n := len(a.queue); n > 1 {
		title += st.muted.Render(fmt.Sprintf("  (1 of %d waiting)", n))
	}
	body = append(body, st.warn.Bold(true).Render(title))
	sev := strings.ToUpper(firstNonEmpty(p.Severity, "none"))
	line := st.severity(p.Severity).Render(" "+sev+" ") + " " + oneLine(p.Reason)
	body = append(body, line)
	if p.Rule != "" {
		body = append(body, st.muted.Render("rule: ")+oneLine(p.Rule))
	}
	if len(p.Words) > 0 {
		words := make([]string, len(p.Words))
		for i, wd := range p.Words {
			words[i] = st.bad.Render(oneLine(wd))
		}
		body = append(body, st.muted.Render("because of: ")+strings.Join(words, st.muted.Render(", ")))
	}
	if p.Command != "" {
		body = append(body, st.accent.Render("$ ")+oneLine(p.Command))
		if p.Cwd != "" {
			body = append(body, st.muted.Render("in "+oneLine(p.Cwd)))
		}
	}
	if p.Sandbox != nil {
		body = append(body, sandboxLine(st, p.Sandbox))
	}
	if p.Tool != "" {
		body = append(body, st.accent.Render("tool: ")+oneLine(p.Tool)+" "+st.muted.Render(oneLine(p.Arguments)))
	}
	if p.FilePath != "" {
		body = append(body, st.muted.Render("file: ")+oneLine(p.FilePath))
	}
	if p.Diff != "" {
		maxLines := m.height/2 - 8
		body = append(body, diffLines(st, p.FilePath, p.Diff, maxLines)...)
	}
	switch a.state {
	case askReason:
		body = append(body, st.info.Render("Why not? (optional, for the model; Enter denies, Esc goes back)"), a.field.View())
	case askEdit:
		body = append(body, st.info.Render("Edit the command (Enter approves it, Esc goes back)"), a.field.View())
	case askOutside:
		body = append(body, st.bad.Bold(true).Render("Run it OUTSIDE the sandbox, with your full access?")+" "+
			st.key.Render("o")+" yes, outside · "+st.key.Render("esc")+" back")
	default:
		body = append(body, a.keys(m, p))
	}
	for i := range body {
		body[i] = pad(body[i], w)
	}
	return splitLines([]string{st.card.Width(m.width).Render(strings.Join(body, "\n"))})
}

func sandboxLine(st styles, sb *event.CommandSandbox) string {
	var s string
	switch {
	case sb.Policy == event.SandboxUnsandboxed:
		s = st.bad.Render("runs OUTSIDE the sandbox") + " (the model asked"
		if sb.Escalation != "" {
			s += ": " + oneLine(sb.Escalation)
		}
		s += ")"
	case !sb.Active:
		s = st.warn.Render("no sandbox on this machine: nothing confines it")
	default:
		s = st.ok.Render("sandboxed") + " (" + firstNonEmpty(sb.Policy, event.SandboxWorkspaceWrite)
		if sb.Mechanism != "" {
			s += ", " + sb.Mechanism
		}
		if sb.Network {
			s += ", network on"
		} else {
			s += ", no network"
		}
		s += ")"
	}
	return st.muted.Render("sandbox: ") + s
}

// keys lists the card's choices; "always" only where a policy may answer
// (never for critical requests, which always ask).
func (a *approvals) keys(m *Model, p event.ApprovalRequested) string {
	st := m.rnd.st
	k := func(key, what string) string { return st.key.Render(key) + " " + what }
	parts := []string{k("y", "approve"), k("n", "deny")}
	if p.Kind == event.ApprovalCommand {
		parts = append(parts, k("e", "edit"))
	}
	if p.Severity != "critical" && (p.Kind == event.ApprovalCommand || p.Kind == event.ApprovalFileEdit) {
		parts = append(parts, k("a", "always (this session)"))
	}
	if offersOutside(p) {
		parts = append(parts, k("o", "run outside the sandbox…"))
	}
	return strings.Join(parts, st.muted.Render(" · "))
}

// offersOutside reports whether the card offers running the command
// outside the sandbox: a command that would otherwise run confined (one
// the model asked to run outside is already that, and says so).
func offersOutside(p event.ApprovalRequested) bool {
	return p.Kind == event.ApprovalCommand && p.Sandbox != nil && p.Sandbox.Active && p.Sandbox.Policy != event.SandboxUnsandboxed
}

// diffLines colours a unified diff of path, at most max lines (0: all):
// the code syntax-highlighted by the file's language (chroma), added and
// removed lines marked and tinted.
func diffLines(st styles, path, diff string, max int) []string {
	lines := strings.Split(strings.TrimRight(sanitize(diff), "\n"), "\n")
	more := 0
	if max > 0 && len(lines) > max {
		more = len(lines) - max
		lines = lines[:max]
	}
	rows := make([]diffRow, len(lines))
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@"):
			rows[i] = diffRow{kind: 'h', text: l}
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			rows[i] = diffRow{kind: 'f', text: l}
		case l != "" && strings.ContainsRune("+- ", rune(l[0])):
			rows[i] = diffRow{kind: l[0], text: l[1:]}
		default:
			rows[i] = diffRow{kind: ' ', text: l}
		}
	}
	out := renderDiff(st, path, rows)
	if more > 0 {
		out = append(out, st.muted.Render(fmt.Sprintf("… %d more line(s)", more)))
	}
	return out
}

// diffRow is one line of a diff: kind '+', '-', ' ' (context), 'h' (a
// hunk header) or 'f' (a file header), and its text without the marker.
type diffRow struct {
	kind byte
	text string
}

// renderDiff colours diff rows: the code of +, - and context rows
// highlighted together by the file's lexer (plain colours when none).
func renderDiff(st styles, path string, rows []diffRow) []string {
	var code []string
	var bgs []lipgloss.Style
	at := make([]int, len(rows))
	for i, r := range rows {
		at[i] = -1
		if r.kind == '+' || r.kind == '-' || r.kind == ' ' {
			at[i] = len(code)
			code = append(code, r.text)
			bgs = append(bgs, st.lineBg(r.kind))
		}
	}
	hl := st.highlight(path, code, bgs)
	out := make([]string, 0, len(rows))
	for i, r := range rows {
		switch {
		case r.kind == 'h':
			out = append(out, st.hunk.Render(r.text))
		case r.kind == 'f':
			out = append(out, st.muted.Render(r.text))
		case hl != nil:
			out = append(out, st.marker(r.kind)+hl[at[i]])
		case r.kind == '+':
			out = append(out, st.add.Render("+"+r.text))
		case r.kind == '-':
			out = append(out, st.del.Render("-"+r.text))
		default:
			out = append(out, " "+r.text)
		}
	}
	return out
}

// marker is a diff line's first column, coloured.
func (s styles) marker(c byte) string {
	switch c {
	case '+':
		return s.add.Bold(true).Render("+")
	case '-':
		return s.del.Bold(true).Render("-")
	}
	return " "
}

// lineBg tints added and removed lines.
func (s styles) lineBg(c byte) lipgloss.Style {
	switch c {
	case '+':
		return s.addBg
	case '-':
		return s.delBg
	}
	return lipgloss.NewStyle()
}

// key handles a key while a request waits; it reports whether it used it.
func (a *approvals) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if len(a.queue) == 0 {
		return nil, false
	}
	p := a.queue[0]
	if a.state == askOutside {
		switch msg.String() {
		case "o", "O":
			return a.answer(m, p, approval.Answer{Approve: true, OutsideSandbox: true}, false), true
		case "ctrl+c":
			return nil, false
		}
		a.state = askChoose // any other key goes back
		return nil, true
	}
	if a.state != askChoose {
		switch msg.String() {
		case "esc":
			a.state = askChoose
			return nil, true
		case "enter":
			val := strings.TrimSpace(a.field.Value())
			if a.state == askReason {
				return a.answer(m, p, approval.Answer{Approve: false, Reason: val}, false), true
			}
			if val == "" {
				return nil, true
			}
			return a.answer(m, p, approval.Answer{Approve: true, Command: val}, false), true
		}
		var cmd tea.Cmd
		a.field, cmd = a.field.Update(msg)
		return cmd, true
	}
	switch msg.String() {
	case "y", "Y":
		return a.answer(m, p, approval.Answer{Approve: true}, false), true
	case "n", "N":
		a.state = askReason
		a.field = newField(m.width-8, "")
		return a.field.Focus(), true
	case "e", "E":
		if p.Kind != event.ApprovalCommand {
			return nil, true
		}
		a.state = askEdit
		a.field = newField(m.width-8, p.Command)
		return a.field.Focus(), true
	case "o", "O":
		if offersOutside(p) {
			a.state = askOutside
		}
		return nil, true
	case "a", "A":
		if p.Severity == "critical" || (p.Kind != event.ApprovalCommand && p.Kind != event.ApprovalFileEdit) {
			return nil, true
		}
		return a.answer(m, p, approval.Answer{Approve: true}, true), true
	case "ctrl+c", "esc", "?", "ctrl+o", "pgup", "pgdown":
		return nil, false // quit, cancel the turn, help and scrolling still work
	}
	return nil, true // other keys do not reach the editor under the card
}

// answer sends the answer; the card leaves when approval_resolved arrives.
func (a *approvals) answer(m *Model, p event.ApprovalRequested, ans approval.Answer, always bool) tea.Cmd {
	a.state = askChoose
	// Leave the card at once: the resolved event confirms it.
	a.remove(p.ApprovalID)
	deps, ctx, id := m.deps, m.ctx, m.info.ID
	return func() tea.Msg {
		if always && deps.AlwaysApprove != nil {
			if err := deps.AlwaysApprove(ctx, id); err != nil {
				return errMsg{fmt.Errorf("auto-approve for this session: %w", err)}
			}
		}
		if deps.Answer == nil {
			return errMsg{fmt.Errorf("approvals cannot be answered here")}
		}
		if err := deps.Answer(id, p.ApprovalID, ans); err != nil {
			return errMsg{fmt.Errorf("answer the approval: %w", err)}
		}
		return nil
	}
}

func newField(width int, value string) textinput.Model {
	f := textinput.New()
	f.Prompt = "› "
	st := f.Styles()
	st.Cursor.Blink = false
	f.SetStyles(st)
	f.SetWidth(max(10, width))
	f.SetValue(value)
	f.CursorEnd()
	return f
}

// approvalInline is the approval's line under its action in the
// conversation (pending, or how it was answered).
func (r *renderer) approvalInline(ap *timeline.Approval, indent string) []string {
	st := r.st
	switch ap.Decision {
	case "":
		return []string{indent + st.warn.Render("⚠ waiting for your approval ("+firstNonEmpty(ap.Severity, "none")+")")}
	case event.DecisionApproved:
		s := "approved"
		if ap.AutoApproved {
			s = "auto-approved"
		}
		if ap.OutsideSandbox {
			s += " to run outside the sandbox"
		}
		if ap.ApprovedCommand != "" {
			s += " as: " + oneLine(ap.ApprovedCommand)
		}
		return []string{r.clipLine(indent + st.ok.Render("✓ "+s))}
	case event.DecisionDenied:
		s := "denied"
		if ap.DenyReason != "" {
			s += ": " + oneLine(ap.DenyReason)
		}
		return []string{r.clipLine(indent + st.bad.Render("✗ "+s))}
	}
	return []string{indent + st.muted.Render("approval "+ap.Decision)}
}
