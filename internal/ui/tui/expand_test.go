package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// clip runs a command and returns what it puts on the clipboard.
func clip(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command: nothing was copied")
	}
	return fmt.Sprint(cmd())
}

func TestSelectExpandsOneElement(t *testing.T) {
	m := newModel(100, 60, Deps{})
	m.Update(history(longTurn()))
	scr := func() string { return ansi.Strip(m.Render()) }
	if strings.Contains(scr(), "pkg01") || strings.Contains(scr(), "Read greet.go") {
		t.Fatalf("collapsed screen shows hidden lines:\n%s", scr())
	}
	m.Update(press("ctrl+g")) // the newest: the command's output
	m.Update(press("enter"))
	if s := scr(); !strings.Contains(s, "pkg01") || strings.Contains(s, "Read greet.go") {
		t.Fatalf("enter on the command should expand its output and nothing else:\n%s", s)
	}
	if got := clip(t, m.key(press("y"))); !strings.HasPrefix(got, "ok  \tgithub.com/x/pkg01") {
		t.Errorf("y copied %q, want the command's output", got)
	}
	m.Update(press("up")) // the sub-agent group
	m.Update(press("enter"))
	if s := scr(); !strings.Contains(s, "Read greet.go") || !strings.Contains(s, "pkg01") {
		t.Fatalf("enter on the sub-agent group should expand it too:\n%s", s)
	}
	m.Update(press("enter")) // collapse it again
	m.Update(press("esc"))
	s := scr()
	if strings.Contains(s, "Read greet.go") || !strings.Contains(s, "pkg01") || strings.Contains(s, selMark) {
		t.Fatalf("after collapsing the group and leaving select mode:\n%s", s)
	}
	if !strings.Contains(s, "Ask olly") {
		t.Errorf("the editor is back after esc:\n%s", s)
	}
}

func TestSelectScrollsToTheElement(t *testing.T) {
	s := longTurn()
	for turn := 2; turn < 8; turn++ {
		s.add(turn, eventUser(fmt.Sprintf("question %d", turn)))
		s.add(turn, eventAnswer(strings.Repeat("line\n\n", 10)))
	}
	m := newModel(100, 20, Deps{})
	m.Update(history(s))
	if strings.Contains(ansi.Strip(m.Render()), "go test ./...") {
		t.Fatal("the fixture should put the command off screen")
	}
	m.Update(press("ctrl+g"))
	if scr := ansi.Strip(m.Render()); !strings.Contains(scr, selMark+"   ✓ Ran go test ./...") {
		t.Fatalf("ctrl+g should scroll to the selected command:\n%s", scr)
	}
}

func TestCopyPickerCopiesACodeBlock(t *testing.T) {
	m := newModel(100, 24, Deps{})
	m.Update(history(longTurn()))
	m.Update(press("alt+y"))
	if m.picker == nil || m.picker.kind != pickCopy {
		t.Fatal("alt+y should open the copy picker")
	}
	m.Update(press("down"))
	m.Update(press("down"))
	if got := clip(t, m.key(press("enter"))); got != "go test -count=1 ./..." {
		t.Errorf("copied %q, want the second code block", got)
	}
	if got := clip(t, m.key(tea.KeyPressMsg{Code: 'y', Mod: tea.ModCtrl})); !strings.HasPrefix(got, "All 14 packages pass.") {
		t.Errorf("ctrl+y copied %q, want the whole last answer", got)
	}
}

func TestCodeBlocks(t *testing.T) {
	md := "text\n```go\nfunc a() {}\n\nfunc b() {}\n```\n~~~\nplain\n~~~\n  ````sh title\necho ```\n````\n```unclosed\nx"
	got := codeBlocks(md)
	want := []codeBlock{{"go", "func a() {}\n\nfunc b() {}"}, {"", "plain"}, {"sh", "echo ```"}, {"unclosed", "x"}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(codeBlock{})); d != "" {
		t.Errorf("codeBlocks (-want +got):\n%s", d)
	}
}

func eventUser(text string) event.Payload { return event.UserMessage{Text: text} }

func eventAnswer(text string) event.Payload {
	return event.AssistantMessage{Iteration: 1, Text: text}
}

func TestImageAttachmentShown(t *testing.T) {
	s := &script{}
	s.add(1, event.TurnStarted{Mode: "agent"}).
		add(1, event.UserMessage{Text: "what is in @shot.png?", Attachments: []event.Attachment{
			{Path: "shot.png", Image: &event.ImageRef{MimeType: "image/png", SHA256: strings.Repeat("a", 64), Size: 48213}}}})
	m := newModel(90, 20, Deps{})
	m.Update(history(s))
	if scr := ansi.Strip(m.Render()); !strings.Contains(scr, "@ shot.png · image/png image, 47 KB") {
		t.Errorf("the image attachment is not shown:\n%s", scr)
	}
}

// A failed turn puts its prompt back into an empty editor; a done one
// does not.
func TestFailedTurnGivesThePromptBack(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   string
	}{{event.FinishFailed, "what is in @shot.png"}, {event.FinishDone, ""}} {
		m := newModel(90, 20, Deps{Sessions: &fakeSessions{}})
		m.Update(historyMsg{})
		for _, msg := range typed("what is in @shot.png") {
			m.Update(msg)
		}
		m.submit(session.WhenBusyRefuse) // the command that runs the turn is not run here
		if m.input.value() != "" {
			t.Fatal("the editor was not cleared on send")
		}
		m.Update(turnDoneMsg{res: &session.TurnResult{Status: tc.status, Error: "model qwen3:8b cannot read images"}})
		if got := m.input.value(); got != tc.want {
			t.Errorf("%s turn: editor holds %q, want %q", tc.status, got, tc.want)
		}
	}
}
