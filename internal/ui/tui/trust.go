package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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
// showing exactly what each would run. Only deliberate key presses answer:
// nothing here trusts on its own, and the dialog can appear while the
// person types, so keys that come within trustGrace of it appearing (or
// of the previous key) go on to the editor, and trusting (or never asking
// again) takes a second, confirming key.
type trustDialog struct {
	queue []trust.Request
	// asked: the requests were listed once (the session's start).
	asked bool
	// head is the request shown since shown; quiet is when the last key
	// came (keys answer only after trustGrace of neither).
	head         string
	shown, quiet time.Time
	// confirm is the decision t or x chose, waiting for y.
	confirm string
}

// trustGrace is how long the dialog lets keys through after it appears,
// and after each key of a burst of typing: a word being typed when it
// appears must not answer it.
const trustGrace = time.Second

// confirmGrace: the confirming y must come at least this long after the t
// or x (a person reads the question; typing "pretty" is faster).
const confirmGrace = 400 * time.Millisecond

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
	m.trust.showHead(m.now())
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
	return ok && (w.Code == event.WarningMCPUntrusted || w.Code == event.WarningHooksUntrusted)
}

// key answers the first request: t then y trusts, x then y is never ask
// again, n (or esc) is not now. It reports whether it used the key.
func (d *trustDialog) key(m *Model, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if len(d.queue) == 0 {
		return nil, false
	}
	now := m.now()
	d.showHead(now)
	gap := trustGrace
	if d.confirm != "" {
		gap = confirmGrace
	}
	settling := now.Sub(d.shown) < trustGrace || now.Sub(d.quiet) < gap
	d.quiet = now
	if settling {
		// Typed before the person could read the card (or its
		// question): the editor's, and a t or x typed with it is void.
		d.confirm = ""
		return nil, false
	}
	k := msg.String()
	if d.confirm != "" {
		decision := d.confirm
		d.confirm = ""
		if k != "y" {
			return nil, true // any other key goes back
		}
		return d.answer(m, decision), true
	}
	switch k {
	case "t":
		d.confirm = trust.DecisionTrust
	case "x":
		d.confirm = trust.DecisionNever
	case "n", "esc":
		return d.answer(m, trust.DecisionNotNow), true
	case "ctrl+c", "?", "ctrl+o", "pgup", "pgdown":
		return nil, false // quit, help and scrolling still work
	}
	return nil, true // the dialog holds the keys until it is answered
}

// showHead notes when a new first request appears: its grace starts.
func (d *trustDialog) showHead(now time.Time) {
	if len(d.queue) > 0 && d.head != d.queue[0].ID {
		d.head, d.shown, d.confirm = d.queue[0].ID, now, ""
	}
}

// answer sends decision for the first request and lists them again.
func (d *trustDialog) answer(m *Model, decision string) tea.Cmd {
	r := d.queue[0]
	d.queue = d.queue[1:]
	d.showHead(m.now())
	if m.deps.AnswerTrust == nil {
		return nil
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
	}
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
	body = append(body, d.keys(st))
	// Wrapped, never cut: the person sees all that would run.
	w := m.width - 4
	var lines []string
	for _, b := range body {
		for _, l := range strings.Split(ansi.Wrap(b, w, " "), "\n") {
			lines = append(lines, pad(l, w))
		}
	}
	return splitLines([]string{st.card.Width(m.width).Render(strings.Join(lines, "\n"))})
}

// keys is the card's last line: the answers, or the confirmation asked.
func (d *trustDialog) keys(st styles) string {
	k := func(key, what string) string { return st.key.Render(key) + " " + what }
	switch d.confirm {
	case trust.DecisionTrust:
		return st.bad.Bold(true).Render("Trust it: olly runs the above whenever it applies?") + " " + k("y", "yes, trust") + st.muted.Render(" · any other key: back")
	case trust.DecisionNever:
		return st.warn.Bold(true).Render("Never ask again (until it changes)?") + " " + k("y", "yes, never") + st.muted.Render(" · any other key: back")
	}
	return strings.Join([]string{k("t", "trust (then y)"), k("n", "not now"), k("x", "never ask again (then y)")}, st.muted.Render(" · "))
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
	s := st.accent.Render("$ ") + oneLine(trust.CommandLine(append([]string{run.Command}, run.Args...)))
	if len(run.Env) > 0 {
		s += st.muted.Render(" env: ") + oneLine(strings.Join(run.Env, " "))
	}
	return s
}
