package tui

import (
	"context"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// answers records approval answers.
type answers struct {
	mu     sync.Mutex
	got    []approval.Answer
	always int
}

func (a *answers) deps(s Sessions) Deps {
	return Deps{
		Sessions: s,
		Answer: func(_, _ string, ans approval.Answer) error {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.got = append(a.got, ans)
			return nil
		},
		AlwaysApprove: func(context.Context, string) error {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.always++
			return nil
		},
	}
}

// run feeds msgs to the model directly, running the commands they return
// (not tea's batches of ticks) so the answers are recorded.
func run(m *Model, msgs ...tea.Msg) {
	for _, msg := range msgs {
		_, cmd := m.Update(msg)
		drain(m, cmd, 0)
	}
}

func drain(m *Model, cmd tea.Cmd, depth int) {
	if cmd == nil || depth > 3 {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			drain(m, c, depth+1)
		}
	case tickMsg, nil, tea.QuitMsg:
	default:
		if _, ok := msg.(turnDoneMsg); ok {
			return // the fake's turn runs nothing
		}
		_, next := m.Update(msg)
		drain(m, next, depth+1)
	}
}

func approvalEvent(p event.ApprovalRequested) eventMsg {
	return eventMsg{event.Event{Session: "S1", Seq: 100, Turn: 1, Data: p}}
}

func TestApprovalKeys(t *testing.T) {
	cases := []struct {
		name   string
		req    event.ApprovalRequested
		keys   []tea.Msg
		want   *approval.Answer
		always int
	}{
		{"approve", commandApproval("A", "high"), []tea.Msg{press("y")}, &approval.Answer{Approve: true}, 0},
		{"deny with reason", commandApproval("A", "high"), append([]tea.Msg{press("n")}, append(typed("not now"), press("enter"))...),
			&approval.Answer{Reason: "not now"}, 0},
		{"edit", commandApproval("A", "medium"), append([]tea.Msg{press("e")}, append(typed(" -j4"), press("enter"))...),
			&approval.Answer{Approve: true, Command: "rm -rf build && make -j4"}, 0},
		{"always", commandApproval("A", "high"), []tea.Msg{press("a")}, &approval.Answer{Approve: true}, 1},
		{"no always for critical", commandApproval("A", "critical"), []tea.Msg{press("a")}, nil, 0},
		{"no edit for a file edit", editApproval("A"), []tea.Msg{press("e")}, nil, 0},
		{"outside the sandbox, confirmed", commandApproval("A", "high"), []tea.Msg{press("o"), press("o")},
			&approval.Answer{Approve: true, OutsideSandbox: true}, 0},
		{"outside the sandbox, backed out", commandApproval("A", "high"), []tea.Msg{press("o"), press("esc"), press("o"), press("x")}, nil, 0},
		{"no outside for an edit", editApproval("A"), []tea.Msg{press("o"), press("o")}, nil, 0},
		{"typing does not answer", commandApproval("A", "high"), typed("hello"), nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var a answers
			m := newModel(80, 24, a.deps(&fakeSessions{}))
			run(m, historyMsg{}, approvalEvent(tc.req))
			run(m, tc.keys...)
			if tc.want == nil {
				if len(a.got) != 0 || m.approvals.len() != 1 {
					t.Fatalf("answered %+v (queue %d), want no answer", a.got, m.approvals.len())
				}
				return
			}
			if len(a.got) != 1 || a.got[0] != *tc.want {
				t.Fatalf("answers %+v, want %+v", a.got, *tc.want)
			}
			if a.always != tc.always {
				t.Errorf("always-approve calls %d, want %d", a.always, tc.always)
			}
			if m.approvals.len() != 0 {
				t.Errorf("the card stays after the answer")
			}
		})
	}
}

func TestApprovalQueueAnswersInOrder(t *testing.T) {
	var a answers
	m := newModel(80, 24, a.deps(&fakeSessions{}))
	run(m, historyMsg{}, approvalEvent(commandApproval("A1", "high")), approvalEvent(editApproval("A2")))
	if m.approvals.len() != 2 || m.approvals.queue[0].ApprovalID != "A1" {
		t.Fatalf("queue %+v", m.approvals.queue)
	}
	run(m, press("y"))
	if m.approvals.len() != 1 || m.approvals.queue[0].ApprovalID != "A2" {
		t.Fatalf("after the first answer the queue is %+v", m.approvals.queue)
	}
	// The resolved event of the second (answered elsewhere) removes it.
	run(m, eventMsg{event.Event{Session: "S1", Seq: 101, Turn: 1, Data: event.ApprovalResolved{ApprovalID: "A2", Decision: event.DecisionApproved}}})
	if m.approvals.len() != 0 {
		t.Fatalf("queue %+v after approval_resolved", m.approvals.queue)
	}
}

func TestStoredApprovalsDoNotAsk(t *testing.T) {
	// An approval in the stored history was answered (or abandoned) by a
	// process that is gone: opening the session must not ask it again.
	s := finishedTurn()
	s.add(1, commandApproval("OLD", "high"))
	m := newModel(80, 24, Deps{})
	run(m, history(s))
	if m.approvals.len() != 0 {
		t.Fatalf("a stored approval is asked again: %+v", m.approvals.queue)
	}
}

func TestSendSteerFollowUpCancelQuit(t *testing.T) {
	fs := &fakeSessions{}
	m := newModel(80, 24, Deps{Sessions: fs})
	run(m, historyMsg{})
	run(m, typed("add a test")...)
	run(m, press("enter"))
	if len(fs.submitted) != 1 || fs.submitted[0] != "add a test" || fs.whenBusy[0] != session.WhenBusyRefuse {
		t.Fatalf("submitted %q (%q)", fs.submitted, fs.whenBusy)
	}
	if !m.busy || m.input.value() != "" {
		t.Fatalf("busy %v, input %q after sending", m.busy, m.input.value())
	}
	fs.busy = true
	run(m, typed("use table tests")...)
	run(m, press("enter"))
	run(m, typed("then run them")...)
	run(m, press("tab"))
	if len(fs.submitted) != 3 || fs.whenBusy[1] != session.WhenBusySteer || fs.whenBusy[2] != session.WhenBusyFollowUp {
		t.Fatalf("while busy: submitted %q as %q", fs.submitted, fs.whenBusy)
	}
	run(m, press("esc"))
	if fs.aborted != 1 {
		t.Fatalf("esc aborted %d turn(s), want 1", fs.aborted)
	}
	// One ctrl+c only warns; the second quits.
	_, cmd := m.Update(press("ctrl+c"))
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("the first ctrl+c quit")
		}
	}
	_, cmd = m.Update(press("ctrl+c"))
	if cmd == nil {
		t.Fatal("the second ctrl+c did nothing")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("the second ctrl+c did not quit")
	}
}

func TestLocalCommandsAndBang(t *testing.T) {
	var ran []string
	fs := &fakeSessions{}
	m := newModel(80, 24, Deps{Sessions: fs, RunCommand: func(_ context.Context, _, c string) error { ran = append(ran, c); return nil }})
	run(m, historyMsg{})
	run(m, append(typed("!go test ./..."), press("enter"))...)
	if len(ran) != 1 || ran[0] != "go test ./..." || len(fs.submitted) != 0 {
		t.Fatalf("ran %q, submitted %q", ran, fs.submitted)
	}
	m.busy = false
	run(m, append(typed("/mode"), press("enter"))...)
	if m.picker == nil || m.picker.kind != pickMode {
		t.Fatal("/mode opened no mode picker")
	}
	run(m, append(typed("plan"), press("enter"))...)
	if len(fs.settings) != 1 || fs.settings[0].Mode == nil || *fs.settings[0].Mode != "plan" {
		t.Fatalf("settings %+v", fs.settings)
	}
	// A slash command of the session service goes to it.
	run(m, append(typed("/compact keep the plan"), press("enter"))...)
	if len(fs.submitted) != 1 || fs.submitted[0] != "/compact keep the plan" {
		t.Fatalf("submitted %q", fs.submitted)
	}
}

func TestHistoryRecall(t *testing.T) {
	fs := &fakeSessions{}
	m := newModel(80, 24, Deps{Sessions: fs})
	run(m, historyMsg{})
	run(m, historyRecallMsg{prompts: nil})
	m.input.history = []string{"newest", "older"}
	m.input.loaded = true
	run(m, tea.KeyPressMsg{Code: tea.KeyUp})
	if got := m.input.value(); got != "newest" {
		t.Fatalf("↑ shows %q, want newest", got)
	}
	run(m, tea.KeyPressMsg{Code: tea.KeyUp})
	if got := m.input.value(); got != "older" {
		t.Fatalf("↑↑ shows %q, want older", got)
	}
	run(m, tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyDown})
	if got := m.input.value(); got != "" {
		t.Fatalf("↓↓ shows %q, want the draft", got)
	}
}

func TestBranchFromAPrompt(t *testing.T) {
	fs := &fakeSessions{recent: []store.Session{{ID: "S1", Title: "greeting"}}}
	m := newModel(80, 24, Deps{Sessions: fs, BranchPrompts: func(context.Context, string) ([]session.PromptRef, error) {
		return []session.PromptRef{{Seq: 2, Turn: 1, Text: "first"}, {Seq: 30, Turn: 2, Text: "second"}}, nil
	}})
	run(m, historyMsg{})
	run(m, append(typed("/sessions"), press("enter"))...)
	run(m, tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl})
	if m.picker == nil || m.picker.kind != pickBranch || len(m.picker.entries) != 2 {
		t.Fatalf("ctrl+b opened %+v", m.picker)
	}
	// Newest first: ↓ picks the first prompt.
	run(m, tea.KeyPressMsg{Code: tea.KeyDown}, press("enter"))
	if len(fs.branched) != 1 || fs.branched[0] != 2 {
		t.Fatalf("branched at %v, want [2]", fs.branched)
	}
	if m.SwitchTo != "S1" {
		t.Fatalf("after branching the TUI reopens %q, want S1", m.SwitchTo)
	}
}
