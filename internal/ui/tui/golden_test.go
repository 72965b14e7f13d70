package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/workspace"
)

// newModel is a model at a fixed size, palette and clock.
func newModel(w, h int, deps Deps) *Model {
	now := func() time.Time { return t0.Add(42 * time.Second) }
	return New(context.Background(), Options{Deps: deps, Width: w, Height: h, Dark: true, Now: now, Tick: -1,
		Info: SessionInfo{ID: "S1", Title: "greeting", Workspace: "/work/project", Mode: "agent", Model: "qwen3:8b"}})
}

// screen drives m through teatest with msgs and returns the final screen
// without colours.
func screen(t *testing.T, m *Model, msgs ...tea.Msg) string {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(m.width, m.height))
	for _, msg := range msgs {
		tm.Send(msg)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	return ansi.Strip(fm.Render())
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+f":
		return tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+g":
		return tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl}
	case "alt+y":
		return tea.KeyPressMsg{Code: 'y', Mod: tea.ModAlt}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

func typed(s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

func history(s *script) historyMsg { return historyMsg{evs: s.evs} }

func TestGoldenScreens(t *testing.T) {
	cases := []struct {
		name string
		w, h int
		deps func() Deps
		msgs func() []tea.Msg
	}{
		{"welcome", 80, 16, nil, func() []tea.Msg { return []tea.Msg{historyMsg{}} }},
		{"finished_wide", 140, 40, nil, func() []tea.Msg { return []tea.Msg{history(finishedTurn())} }},
		{"finished_narrow", 50, 40, nil, func() []tea.Msg { return []tea.Msg{history(finishedTurn())} }},
		{"expanded", 100, 50, nil, func() []tea.Msg { return []tea.Msg{history(finishedTurn()), press("ctrl+o")} }},
		{"long_output_artifact", 100, 40, nil, func() []tea.Msg { return []tea.Msg{history(longTurn())} }},
		{"select_output", 100, 40, nil, func() []tea.Msg { return []tea.Msg{history(longTurn()), press("ctrl+g")} }},
		{"select_output_expanded", 100, 40, nil, func() []tea.Msg {
			return []tea.Msg{history(longTurn()), press("ctrl+g"), press("enter")}
		}},
		{"select_subagent_expanded", 100, 40, nil, func() []tea.Msg {
			return []tea.Msg{history(longTurn()), press("ctrl+g"), press("up"), press("enter")}
		}},
		{"copy_picker", 100, 24, nil, func() []tea.Msg { return []tea.Msg{history(longTurn()), press("alt+y")} }},
		{"streaming", 90, 30, nil, func() []tea.Msg {
			s := streamingTurn(finishedTurn())
			out := []tea.Msg{historyMsg{}}
			for _, ev := range s.evs {
				out = append(out, eventMsg{ev})
			}
			return out
		}},
		{"approval_command", 90, 30, nil, func() []tea.Msg {
			s := streamingTurn(finishedTurn())
			s.add(2, event.ToolAction{GroupID: "g3", ActionID: "xA1", Tool: "run_terminal_command", Status: event.ActionPending, Text: "rm -rf build && make"})
			return []tea.Msg{history(s), eventMsg{s.evs[len(s.evs)-1]},
				eventMsg{event.Event{Session: "S1", Seq: 90, Turn: 2, Data: commandApproval("A1", "high")}},
				eventMsg{event.Event{Session: "S1", Seq: 91, Turn: 2, Data: editApproval("A2")}}}
		}},
		{"approval_diff", 90, 30, nil, func() []tea.Msg {
			return []tea.Msg{history(finishedTurn()), eventMsg{event.Event{Session: "S1", Seq: 90, Turn: 1, Data: editApproval("A2")}}}
		}},
		{"approval_critical_deny_reason", 90, 24, nil, func() []tea.Msg {
			return append([]tea.Msg{historyMsg{}, eventMsg{event.Event{Session: "S1", Seq: 90, Turn: 1, Data: commandApproval("A1", "critical")}},
				press("n")}, typed("use make clean")...)
		}},
		{"approval_outside_confirm", 90, 24, nil, func() []tea.Msg {
			return []tea.Msg{historyMsg{}, eventMsg{event.Event{Session: "S1", Seq: 90, Turn: 1, Data: commandApproval("A1", "medium")}}, press("o")}
		}},
		{"approval_escalation", 90, 24, nil, func() []tea.Msg {
			p := commandApproval("A1", "high")
			p.Sandbox = &event.CommandSandbox{Policy: event.SandboxUnsandboxed, Active: true, Mechanism: "landlock", Escalation: "needs the network to fetch modules"}
			return []tea.Msg{historyMsg{}, eventMsg{event.Event{Session: "S1", Seq: 90, Turn: 1, Data: p}}}
		}},
		{"help", 100, 50, nil, func() []tea.Msg { return []tea.Msg{historyMsg{}, press("?")} }},
		{"commands", 90, 24, nil, func() []tea.Msg { return append([]tea.Msg{historyMsg{}}, typed("/m")...) }},
		{"files", 90, 24, func() Deps {
			return Deps{Files: func(context.Context) (*workspace.FileList, error) {
				return workspace.NewFileList([]string{"README.md", "cmd/olly/main.go", "internal/ui/tui/model.go", "go.mod"}), nil
			}}
		}, func() []tea.Msg {
			return append([]tea.Msg{historyMsg{}, filesMsg{files: workspace.NewFileList([]string{"README.md", "cmd/olly/main.go", "internal/ui/tui/model.go", "go.mod"})}}, typed("look at @mod")...)
		}},
		{"picker_mode", 90, 20, nil, func() []tea.Msg { return append([]tea.Msg{historyMsg{}}, append(typed("/mode"), press("enter"))...) }},
		{"picker_model", 90, 20, func() Deps {
			return Deps{Models: func(context.Context) ([]models.Model, error) {
				return []models.Model{
					{ModelDetails: llm.ModelDetails{ModelInfo: llm.ModelInfo{Name: "qwen3:8b", ParameterSize: "8.2B"}, ContextLength: 40960, Capabilities: llm.Capabilities{Tools: true, Thinking: true}}},
					{ModelDetails: llm.ModelDetails{ModelInfo: llm.ModelInfo{Name: "llama3.2:3b", ParameterSize: "3.2B"}, ContextLength: 131072, Capabilities: llm.Capabilities{Tools: true}}},
					{ModelDetails: llm.ModelDetails{ModelInfo: llm.ModelInfo{Name: "nomic-embed-text"}, Capabilities: llm.Capabilities{Embedding: true}}},
				}, nil
			}}
		}, nil},
		{"picker_sessions", 90, 20, func() Deps {
			return Deps{Sessions: &fakeSessions{recent: []store.Session{
				{ID: "01JD5ZQ8AAAA", Title: "greeting", UpdatedAt: t0},
				{ID: "01JD5ZQ9BBBB", Title: "fix the flaky test", UpdatedAt: t0.Add(-time.Hour)},
			}}, PendingStats: func(context.Context) (map[string]store.DiffStats, error) {
				return map[string]store.DiffStats{"01JD5ZQ9BBBB": {Additions: 12, Deletions: 3, Files: 2}}, nil
			}}
		}, nil},
		{"picker_sessions_search", 90, 20, func() Deps {
			return Deps{Sessions: &fakeSessions{}, SearchSessions: func(_ context.Context, q string) ([]store.SessionMatch, string, error) {
				return []store.SessionMatch{{Session: store.Session{ID: "01JD5ZQ9BBBB", Title: "fix the flaky test", UpdatedAt: t0},
					Hits: []store.EventMatch{{Snippet: "the «retry» loop hid the race"}}}}, "searched by words only: no embedding model is configured", nil
			}}
		}, nil},
		{"picker_branch", 90, 20, func() Deps {
			return Deps{Sessions: &fakeSessions{}, BranchPrompts: func(context.Context, string) ([]session.PromptRef, error) {
				return []session.PromptRef{{Seq: 2, Turn: 1, Text: "add a greeting"}, {Seq: 30, Turn: 2, Text: "now explain the change"}}, nil
			}}
		}, nil},
		{"review_panel", 90, 30, nil, func() []tea.Msg { return []tea.Msg{historyMsg{}, reviewFixture()} }},
		{"review_conflict", 90, 30, nil, func() []tea.Msg {
			r := reviewFixture()
			r.files[0].Hunks[1].Stale, r.files[0].Hunks[1].Reason = true, "its lines were edited after the agent wrote them"
			r.pos.Hunk, r.pos.Current = 2, 2
			r.message = []string{"Not undone: hunk 2 of main.go"}
			return []tea.Msg{historyMsg{}, r}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			deps := Deps{}
			if tc.deps != nil {
				deps = tc.deps()
			}
			m := newModel(tc.w, tc.h, deps)
			var msgs []tea.Msg
			switch tc.name {
			case "review_panel", "review_conflict":
				m.review = &reviewPanel{loading: true}
			case "picker_model":
				// The list is read before the program runs, so the screen
				// never depends on when the read ends.
				msgs = []tea.Msg{historyMsg{}, m.openPicker(pickModel)()}
			case "picker_sessions":
				msgs = append([]tea.Msg{historyMsg{}, m.openPicker(pickSessions)()}, typed("flaky")...)
			case "picker_sessions_search":
				m.openPicker(pickSessions)
				m.picker.load(pickerMsg{kind: pickSessions})
				m.picker.query = "retry race"
				msgs = []tea.Msg{historyMsg{}, m.searchSessions(m.picker)()}
			case "picker_branch":
				msgs = []tea.Msg{historyMsg{}, m.branchPicker("S1")()}
			}
			if tc.msgs != nil {
				msgs = tc.msgs()
			}
			golden.RequireEqual(t, screen(t, m, msgs...))
		})
	}
}

// reviewFixture is a review of two files, on the first hunk.
func reviewFixture() reviewMsg {
	files := []checkpoint.FileReview{
		{CheckpointID: "cp1", Path: "main.go", Action: "modified", Additions: 3, Deletions: 1, Hunks: []checkpoint.Hunk{
			{Number: 1, OldStart: 5, OldLines: 1, NewStart: 5, NewLines: 2, OldText: "\tfmt.Println(\"hi\")\n", NewText: "\tfmt.Println(\"hello\")\n\tfmt.Println(\"world\")\n",
				ContextBefore: "func main() {\n", ContextAfter: "}\n"},
			{Number: 2, OldStart: 12, OldLines: 0, NewStart: 13, NewLines: 1, NewText: "// greeting added\n"},
		}},
		{CheckpointID: "cp1", Path: "greet_test.go", Action: "created", Additions: 9, Hunks: []checkpoint.Hunk{{Number: 1, NewText: "package main\n"}}},
	}
	return reviewMsg{files: files, pos: checkpoint.ChangePosition{Current: 1, Total: 3, FilePath: "main.go", CheckpointID: "cp1", Hunk: 1}}
}
