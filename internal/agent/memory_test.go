package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

func tc(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// The notes come from calls and their results, by tool.
func TestMemoryObserver(t *testing.T) {
	m := &sessionMemory{}
	o := memoryObserver{mem: m}
	o.observe(event.AssistantMessage{ToolCalls: []llm.ToolCall{
		tc("1", "read_file", `{"path":"src/a.go"}`),
		tc("2", "write_file", `{"filePath":"src/b.go","content":"x"}`),
		tc("3", "run_terminal_command", `{"command":"go test ./..."}`),
		tc("4", "find_definition", `{"path":"src/a.go","symbolName":"Parse"}`),
		tc("5", "read_file", `{"path":"missing.go"}`),
		tc("6", "read_file", `{"path":"src/c.go"}`),
		tc("7", "run_terminal_command", `{"command":"ls"}`),
		tc("8", "get_call_hierarchy", `{"symbol":"Lex"}`),
	}})
	for _, r := range []event.ToolResult{
		{ToolCallID: "1", ToolName: "read_file", Content: "1\tpackage a"},
		{ToolCallID: "2", ToolName: "write_file", Content: "Created src/b.go"},
		{ToolCallID: "3", ToolName: "run_terminal_command", Content: "--- FAIL: TestX\nFAIL\n\n[exit code 1, 1.2s]"},
		{ToolCallID: "4", ToolName: "find_definition", Content: "src/a.go:10"},
		{ToolCallID: "5", ToolName: "read_file", Content: "missing.go does not exist.\nCheck the path.", IsError: true},
		{ToolCallID: "6", ToolName: "read_file", Content: "[SYSTEM NOTE] Not run: this call repeats an earlier one"},
		{ToolCallID: "7", ToolName: "run_terminal_command", Content: "a\nb\n\n[exit code 0, 3ms]"},
		{ToolCallID: "8", ToolName: "get_call_hierarchy", Content: "callers: …"},
		{ToolCallID: "99", ToolName: "read_file", Content: "a result without a call"},
	} {
		o.observe(r)
	}
	want := &sessionMemory{
		FilesRead:    []string{"src/a.go"},
		FilesWritten: []string{"src/b.go"},
		Errors:       []string{"`go test ./...` exited with code 1", "read_file missing.go: missing.go does not exist."},
		Functions:    []string{"Parse", "Lex"},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

func TestMemoryBlock(t *testing.T) {
	m := &sessionMemory{}
	m.setTask(strings.Repeat("Refactor the session store so that every write goes through one transaction. ", 5))
	m.addEntry(memFileRead, "a.go")
	m.addEntry(memFileRead, "b.go")
	m.addEntry(memFileRead, "a.go") // again: moves to the end
	m.addEntry(memFileWrite, "c.go")
	m.addEntry(memError, "go test: exit 1\nwith more lines")
	m.addEntry(memPreference, "Always run gofmt.")
	m.addEntry(memFunction, "Parse")
	m.addEntry("custom", "the person is on a deadline")
	got := m.block()
	want := "<session_memory>\n## Task Reference\n" +
		"Refactor the session store so that every write goes through one transaction. Refactor the session store so that every w…\n" +
		"(The full request is in the conversation.)\n## Notes\nFiles read: b.go, a.go\nFiles written: c.go\n" +
		"Errors encountered:\n- go test: exit 1 with more lines\nUser preferences:\n- Always run gofmt.\n" +
		"Functions explored: Parse\nNotes:\n- the person is on a deadline\n" +
		"Summary: 2 files read, 1 file written, 1 error encountered, 1 preference noted, 1 function explored, 1 note\n</session_memory>"
	if got != want {
		t.Errorf("block:\n%s\nwant:\n%s", got, want)
	}
	if n := len([]rune(strings.Split(got, "\n")[2])); n != taskPreview {
		t.Errorf("task preview is %d characters, want %d", n, taskPreview)
	}
	if (&sessionMemory{}).block() != "" {
		t.Error("an empty memory renders a block")
	}
}

func TestMemoryLimits(t *testing.T) {
	m := &sessionMemory{}
	for i := 0; i < 100; i++ {
		m.addEntry(memFileRead, fmt.Sprintf("f%d.go", i))
		m.addEntry(memError, strings.Repeat("x", 1000))
		m.addEntry(memError, fmt.Sprintf("error %d", i))
	}
	if len(m.FilesRead) != maxFiles || m.FilesRead[0] != "f60.go" || m.FilesRead[maxFiles-1] != "f99.go" {
		t.Errorf("files read: %d, first %s", len(m.FilesRead), m.FilesRead[0])
	}
	if len(m.Errors) != maxErrors {
		t.Errorf("%d errors kept", len(m.Errors))
	}
	for _, e := range m.Errors {
		if n := len([]rune(e)); n > maxEntry {
			t.Errorf("entry of %d runes", n)
		}
	}
}

func TestMemoryJSON(t *testing.T) {
	m := &sessionMemory{}
	m.setTask("fix it")
	m.addEntry(memFileRead, "a.go")
	m.addEntry(memPreference, "Never touch vendor/.")
	back, err := memoryFromJSON(m.toJSON())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	tests := []struct {
		name string
		raw  string
		err  bool
		want *sessionMemory
	}{
		{"empty", "", false, &sessionMemory{Version: 1}},
		{"null", "null", false, &sessionMemory{Version: 1}},
		{"not JSON", "{oops", true, &sessionMemory{Version: 1}},
		{"wrong types", `{"filesRead":"a.go"}`, true, &sessionMemory{Version: 1}},
		{"newer olly", `{"version":9,"filesRead":["a.go"]}`, true, &sessionMemory{Version: 1}},
		{"entries cleaned", `{"filesRead":["a.go","  ","a.go","b\ngo"]}`, false, &sessionMemory{Version: 1, FilesRead: []string{"a.go", "b go"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := memoryFromJSON(json.RawMessage(tt.raw))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPreferences(t *testing.T) {
	got := preferences("Fix the flaky test in store_test.go. Always run gofmt before you finish!\n- don't touch the vendor directory\n" +
		"Use tabs instead of spaces; keep the public API stable. The function never returns nil.\n" + strings.Repeat("always ", 60))
	want := []string{"Always run gofmt before you finish!", "don't touch the vendor directory", "Use tabs instead of spaces;", "keep the public API stable."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Notes a sub-agent's run returned join the parent's (the orchestrator
// reads through sub-agents), except its task and "preferences": the
// orchestrating model wrote the sub-agent's prompt, not the person.
func TestAbsorbMemory(t *testing.T) {
	r := &run{}
	r.cs.memory = &sessionMemory{Task: "parent task", FilesRead: []string{"a.go"}}
	sub := &sessionMemory{Task: "sub task", FilesRead: []string{"b.go", "a.go"}, Functions: []string{"Parse"},
		Preferences: []string{"Do not modify any files."}}
	r.absorbMemory(sub)
	r.absorbMemory(nil)
	want := &sessionMemory{Task: "parent task", FilesRead: []string{"b.go", "a.go"}, Functions: []string{"Parse"}}
	if diff := cmp.Diff(want, r.cs.memory); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// syncBuffer is a log destination for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The notes survive a resume: a second process (new store handle, agent
// and service on the same database) puts them in the system prompt, with
// the new task's preview; stored notes that are not valid are ignored with
// a log line.
func TestMemorySurvivesResume(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.write("a.txt", "A\n")
	h.srv.Enqueue(
		llmtest.Reply(h.call("read_file", `{"path": "a.txt"}`), h.call("read_file", `{"path": "nope.txt"}`)),
		llmtest.Reply(llmtest.Text("a.txt says A. [TASK_COMPLETE]")),
	)
	h.prompt("What does a.txt say? Always answer in one sentence.")
	stored, _ := h.svc.Open(context.Background(), h.sess.ID)
	mem, err := memoryFromJSON(stored.SessionMemory)
	if err != nil || len(mem.FilesRead) != 1 || len(mem.Errors) != 1 || len(mem.Preferences) != 1 {
		t.Fatalf("stored memory %s (%v)", stored.SessionMemory, err)
	}

	var logs syncBuffer
	svc2, st2 := h.reopen(slog.New(slog.NewTextHandler(&logs, nil)))
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("Nothing else. [TASK_COMPLETE]")))
	long := "And is there anything else in the workspace that I should know about before I start the refactoring of the parser package?"
	if _, err := svc2.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: long}); err != nil {
		t.Fatal(err)
	}
	sys := h.chats()[2].Messages[0].Content
	mustContain(t, "resumed system prompt", sys, "<session_memory>", "## Task Reference\n"+oneLine(long, taskPreview)+"\n",
		"Files read: a.txt", "read_file nope.txt", "- Always answer in one sentence.", "Summary: 1 file read, 1 error encountered, 1 preference noted")
	if strings.Contains(sys, long) {
		t.Error("the memory block quotes the whole task, not its 120-character preview")
	}

	// Stored notes that do not parse: ignored, logged, the turn runs.
	if _, err := st2.UpdateSession(context.Background(), h.sess.ID, func(x *store.Session) error {
		x.SessionMemory = json.RawMessage(`{"filesRead":"not a list"}`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("Fine. [TASK_COMPLETE]")))
	res, err := svc2.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "ok"})
	if err != nil || res.Status != event.FinishDone {
		t.Fatalf("turn with invalid stored memory: %+v, %v", res, err)
	}
	mustContain(t, "log", logs.String(), "session memory ignored", "not valid JSON")
	if strings.Contains(h.chats()[3].Messages[0].Content, "a.txt") {
		t.Error("invalid stored notes reached the prompt")
	}
	after, _ := svc2.Open(context.Background(), h.sess.ID)
	if !json.Valid(after.SessionMemory) || !strings.Contains(string(after.SessionMemory), `"task":"ok"`) {
		t.Errorf("memory after the turn: %s", after.SessionMemory)
	}
}
