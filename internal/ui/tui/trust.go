package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/trust"
)

// trustMsg carries the trust requests waiting in the session's workspace.
type trustMsg struct {
	reqs []trust.Request
	err  error
}

// trustDialog asks the person about the project programs (MCP servers of
// .mcp.json, project hook files) that wait for trust, one at a time,
// showing exactly what each would run. Only a key press answers: nothing
// here trusts on its own.
type trustDialog struct {
	queue []trust.Request
	// asked: the requests were listed once (the session's start).
	asked bool
}

// fetchTrust lists the waiting requests (Deps.TrustRequests).
func (m *Model) fetchTrust() tea.Cmd {
	if m.deps.TrustRequests == nil || m.info.ID == "" {
		return nil
	}
	ctx, id, list := m.ctx, m.info.ID, m.deps.TrustRequests
	return func() tea.Msg {
		reqs, err := list(ctx, id)
		return trustMsg{reqs: reqs, err: err}
	}
}

// setTrust shows the requests listed; once none waits, a task given on
// the command line (held back so the person could answer first) is sent.
func (m *Model) setTrust(msg trustMsg) tea.Cmd {
	m.trust.asked = true
	if msg.err != nil {
		m.notice = "trust prompts: " + msg.err.Error()
		msg.reqs = nil
	}
	m.trust.queue = msg.reqs
	if len(m.trust.queue) > 0 {
		m.scroll = 0
		return nil
	}
	if t := m.input.pending; t != "" && m.live {
		m.input.pending = ""
		return m.send(t, session.WhenBusyRefuse)
	}
	return nil
}

// trustWarning reports whether ev says a project program did not start
// for want of trust: the dialog asks again.
func trustWarning(ev event.Event) bool {
	w, ok := ev.Data.(event.Warning)
	return ok && (w.Code == "mcp_untrusted" || w.Code == "hooks_untrusted")
}

// key answers the first request: t trusts, n (or esc) is not now, x is
// never ask again.
func (d *trustDialog) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if len(d.queue) == 0 {
		return nil, false
	}
	var decision string
	switch msg.String() {
	case "t":
		decision = trust.DecisionTrust
	case "n", "esc":
		decision = trust.DecisionNotNow
	case "x":
		decision = trust.DecisionNever
	default:
		return nil, true // the dialog holds the keys until it is answered
	}
	r := d.queue[0]
	d.queue = d.queue[1:]
	if m.deps.AnswerTrust == nil {
		return nil, true
	}
	ctx, id, answer, refetch := m.ctx, m.info.ID, m.deps.AnswerTrust, m.fetchTrust()
	return func() tea.Msg {
		if err := answer(ctx, id, r.ID, decision); err != nil {
			return errMsg{fmt.Errorf("trust %s: %w", r.Name, err)}
		}
		if refetch == nil {
			return nil
		}
		return refetch()
	}, true
}

// card renders the first waiting request.
func (d *trustDialog) card(m *Model) []string {
	if len(d.queue) == 0 {
		return nil
	}
	r := d.queue[0]
	st := m.rnd.st
	title := "Trust the hooks of " + r.Source + "?"
	if r.Kind == trust.KindMCP {
		title = fmt.Sprintf("Trust the MCP server %q of %s?", r.Name, r.Source)
	}
	if n := len(d.queue); n > 1 {
		title += st.muted.Render(fmt.Sprintf("  (1 of %d waiting)", n))
	}
	body := []string{st.warn.Bold(true).Render(title),
		st.muted.Render("The project asks olly to run this in " + oneLine(r.Workspace) + ":")}
	for _, run := range r.Runs {
		body = append(body, runLine(st, run))
	}
	if len(r.Files) > 0 {
		body = append(body, st.muted.Render("project files it runs, fingerprinted (editing one asks again): ")+oneLine(strings.Join(r.Files, ", ")))
	}
	body = append(body, st.muted.Render("fingerprint "+r.Fingerprint[:min(16, len(r.Fingerprint))]))
	k := func(key, what string) string { return st.key.Render(key) + " " + what }
	body = append(body, strings.Join([]string{k("t", "trust"), k("n", "not now"), k("x", "never ask again (until it changes)")}, st.muted.Render(" · ")))
	w := m.width - 4
	for i := range body {
		body[i] = pad(body[i], w)
	}
	return splitLines([]string{st.card.Width(m.width).Render(strings.Join(body, "\n"))})
}

// runLine is one thing the program runs.
func runLine(st styles, run trust.Run) string {
	switch {
	case run.Event != "":
		when := run.Event
		if run.Matcher != "" {
			when += " (" + run.Matcher + ")"
		}
		return st.accent.Render(oneLine(when)+": ") + oneLine(run.Command)
	case run.URL != "":
		s := st.accent.Render(firstNonEmpty(run.Transport, "http")+" ") + oneLine(run.URL)
		if len(run.Headers) > 0 {
			s += st.muted.Render(" headers: " + oneLine(strings.Join(run.Headers, ", ")))
		}
		return s
	}
	s := st.accent.Render("$ ") + oneLine(shellWords(append([]string{run.Command}, run.Args...)))
	if len(run.Env) > 0 {
		s += st.muted.Render(" env: ") + oneLine(strings.Join(run.Env, " "))
	}
	return s
}

// shellWords joins a command line, quoting the words that need it.
func shellWords(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
