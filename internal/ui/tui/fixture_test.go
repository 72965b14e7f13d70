package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// t0 is the fixtures' fixed clock.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// script builds a session's events with increasing seqs and times.
type script struct {
	seq int64
	evs []event.Event
}

func (s *script) add(turn int, p event.Payload) *script {
	s.seq++
	s.evs = append(s.evs, event.Event{Session: "S1", Seq: s.seq, Turn: turn, At: t0.Add(time.Duration(s.seq) * time.Second), Data: p})
	return s
}

// delta adds an ephemeral event.
func (s *script) delta(turn int, p event.Payload) *script {
	s.evs = append(s.evs, event.Event{Session: "S1", Turn: turn, At: t0.Add(time.Duration(s.seq) * time.Second), Data: p})
	return s
}

// finishedTurn is one turn that read, ran and edited, then answered.
func finishedTurn() *script {
	s := &script{}
	s.add(1, event.TurnStarted{Mode: "agent", Model: "qwen3:8b"}).
		add(1, event.UserMessage{Text: "add a greeting to main.go and run the tests"}).
		add(1, event.ThinkingBlock{Iteration: 1, Content: "Read main.go first, then edit.", DurationMs: 3200}).
		add(1, event.AssistantMessage{Iteration: 1, Text: "Let me look at the code."}).
		add(1, event.ProgressGroupStart{GroupID: "g1", Title: "Reading files"}).
		add(1, event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "read_file", Status: event.ActionRunning, Text: "Read main.go", Detail: "lines 1–40"}).
		add(1, event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "read_file", Status: event.ActionSuccess, Text: "Read main.go", Detail: "lines 1–40"}).
		add(1, event.ProgressGroupFinish{GroupID: "g1"}).
		add(1, event.ProgressGroupStart{GroupID: "g2", Title: "Editing"}).
		add(1, event.ToolAction{GroupID: "g2", ActionID: "a2", Tool: "write_file", Status: event.ActionSuccess, Text: "Edited main.go", CheckpointID: "cp1", Additions: 3, Deletions: 1}).
		add(1, event.ToolAction{GroupID: "g2", ActionID: "a3", Tool: "run_terminal_command", Status: event.ActionRunning, Text: "go test ./..."}).
		add(1, event.ToolAction{GroupID: "g2", ActionID: "a3", Tool: "run_terminal_command", Status: event.ActionError, Text: "go test ./...", Output: "--- FAIL: TestGreeting\n    main_test.go:9: got \"hi\", want \"hello\"\nFAIL\nexit status 1"}).
		add(1, event.ProgressGroupFinish{GroupID: "g2"}).
		add(1, event.FilesChanged{CheckpointID: "cp1", Status: "pending", Files: []event.ChangedFile{{Path: "main.go", Action: "modified", Additions: 3, Deletions: 1}}}).
		add(1, event.AssistantMessage{Iteration: 2, Text: "## Done\n\nThe greeting is in `main.go`:\n\n```go\nfmt.Println(\"hello\")\n```\n\nOne test still fails."}).
		add(1, event.TokenUsage{PromptTokens: 9100, CompletionTokens: 400, ContextWindow: 32768,
			Categories: event.TokenCategories{System: 1200, ToolDefinitions: 2500, Messages: 3000, ToolResults: 2000, Files: 400}}).
		add(1, event.TurnFinished{Status: event.FinishDone, Iterations: 2})
	return s
}

// streamingTurn is a second turn caught mid-answer.
func streamingTurn(s *script) *script {
	s.add(2, event.TurnStarted{Mode: "agent", Model: "qwen3:8b"}).
		add(2, event.UserMessage{Text: "now explain the change"}).
		delta(2, event.ThinkingDelta{Iteration: 1, Text: "The person wants an explanation.\nKeep it short."}).
		add(2, event.ThinkingBlock{Iteration: 1, Content: "The person wants an explanation.\nKeep it short.", DurationMs: 1500}).
		delta(2, event.TextDelta{Iteration: 1, Text: "The change adds a **greeting**.\n\nIt prints `hello` when the program st"}).
		delta(2, event.Status{Text: "Writing the answer"})
	return s
}

func commandApproval(id, sev string) event.ApprovalRequested {
	return event.ApprovalRequested{ApprovalID: id, ActionID: "x" + id, Kind: event.ApprovalCommand, Command: "rm -rf build && make",
		Cwd: "/work/project", Severity: sev, Reason: "deletes files recursively", Rule: "recursive-delete", Words: []string{"rm", "-rf"},
		Sandbox: &event.CommandSandbox{Policy: event.SandboxWorkspaceWrite, Active: true, Mechanism: "landlock"}}
}

func editApproval(id string) event.ApprovalRequested {
	return event.ApprovalRequested{ApprovalID: id, ActionID: "x" + id, Kind: event.ApprovalFileEdit, FilePath: ".env", Severity: "high",
		Reason: "edits a sensitive file", Rule: ".env*",
		Diff: "--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n PORT=8080\n-DEBUG=false\n+DEBUG=true\n"}
}

// fakeSessions records what the UI asks of the session service.
type fakeSessions struct {
	submitted []string
	whenBusy  []session.WhenBusy
	aborted   int
	settings  []event.SessionSettings
	recent    []store.Session
	prompts   []store.Prompt
	busy      bool
	branched  []int64
}

func (f *fakeSessions) Submit(_ context.Context, _ string, in session.PromptInput, whenBusy session.WhenBusy) (*session.Submission, error) {
	f.submitted = append(f.submitted, in.Text)
	f.whenBusy = append(f.whenBusy, whenBusy)
	if f.busy {
		if whenBusy == session.WhenBusyRefuse {
			return nil, session.ErrBusy
		}
		return &session.Submission{Queued: whenBusy}, nil
	}
	return &session.Submission{}, nil
}
func (f *fakeSessions) Abort(string) bool { f.aborted++; return true }
func (f *fakeSessions) Prompts(context.Context, string, string, int) ([]store.Prompt, error) {
	return f.prompts, nil
}
func (f *fakeSessions) Recent(context.Context, string, int) ([]store.Session, error) {
	return f.recent, nil
}
func (f *fakeSessions) ChangeSettings(_ context.Context, _ string, ch event.SessionSettings) (*store.Session, error) {
	f.settings = append(f.settings, ch)
	return &store.Session{}, nil
}
func (f *fakeSessions) History(context.Context, string) ([]event.Event, error) { return nil, nil }
func (f *fakeSessions) Open(context.Context, string) (*store.Session, error) {
	return &store.Session{ID: "S1"}, nil
}
func (f *fakeSessions) Fork(context.Context, string, int64) (*store.Session, *session.BranchPoint, error) {
	return nil, nil, errors.New("not in this test")
}
func (f *fakeSessions) Branch(_ context.Context, _ string, seq int64) (*session.BranchPoint, error) {
	f.branched = append(f.branched, seq)
	return &session.BranchPoint{}, nil
}

// longTurn is a turn with a sub-agent that read two files and a command
// whose long output was cut, its full output in an artifact.
func longTurn() *script {
	var out []string
	for i := 1; i <= 14; i++ {
		out = append(out, fmt.Sprintf("ok  \tgithub.com/x/pkg%02d\t0.%02ds", i, i))
	}
	s := &script{}
	s.add(1, event.TurnStarted{Mode: "agent", Model: "qwen3:8b"}).
		add(1, event.UserMessage{Text: "find where greetings are made and run the tests"}).
		add(1, event.ThinkingBlock{Iteration: 1, Content: "Ask an explorer, then test.", DurationMs: 2100}).
		add(1, event.ProgressGroupStart{GroupID: "sa", Title: "Explorer", Detail: "where are greetings made?", Subagent: true}).
		add(1, event.ProgressGroupStart{GroupID: "sa1", Title: "Reading files", ParentGroupID: "sa"}).
		add(1, event.ToolAction{GroupID: "sa1", ActionID: "s1", Tool: "read_file", Status: event.ActionSuccess, Text: "Read greet.go"}).
		add(1, event.ToolAction{GroupID: "sa1", ActionID: "s2", Tool: "read_file", Status: event.ActionSuccess, Text: "Read main.go"}).
		add(1, event.ProgressGroupFinish{GroupID: "sa1"}).
		add(1, event.ProgressGroupFinish{GroupID: "sa"}).
		add(1, event.ProgressGroupStart{GroupID: "g2", Title: "Testing"}).
		add(1, event.ToolAction{GroupID: "g2", ActionID: "t1", Tool: "run_terminal_command", Status: event.ActionSuccess, Text: "Ran go test ./...",
			Output: strings.Join(out, "\n"), Artifact: "/home/me/.local/share/olly/artifacts/out-1234.txt"}).
		add(1, event.ProgressGroupFinish{GroupID: "g2"}).
		add(1, event.AssistantMessage{Iteration: 2, Text: "All 14 packages pass.\n\n```sh\ngo test ./...\n```\n\nRun it again with:\n\n```sh\ngo test -count=1 ./...\n```"}).
		add(1, event.TurnFinished{Status: event.FinishDone, Iterations: 2})
	return s
}
