package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/timeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// sessionEvents is a stored two-turn session: thinking, a tool group with
// an approved, an edited and a denied approval, a file edit approval with a
// diff, a sub-agent, changed files, a warning, and text that tries to be
// HTML.
func sessionEvents() []event.Event {
	var evs []event.Event
	seq := int64(0)
	add := func(turn int, p event.Payload) {
		seq++
		evs = append(evs, event.Event{Session: "01JD5ZQ8XK", Seq: seq, ParentSeq: seq - 1, Turn: turn, At: t0.Add(time.Duration(seq) * time.Second), Data: p})
	}
	add(1, event.TurnStarted{Mode: "agent", Model: "qwen3:8b"})
	add(1, event.UserMessage{Text: "add a hello world main.go <script>alert('prompt')</script>\nand run it",
		Attachments: []event.Attachment{{Path: "go.mod", Content: "module x\n"}, {Path: "a.go", StartLine: 3, EndLine: 4, Content: "x"}}})
	add(1, event.TitleChanged{Title: "Hello <b>world</b>"})
	add(1, event.ThinkingBlock{Iteration: 1, Content: "The user wants a main.go.\nThen run it.", DurationMs: 1800})
	add(1, event.AssistantMessage{Iteration: 1, Text: "I'll create main.go.", Content: "I'll create main.go.",
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "write_file", Arguments: json.RawMessage(`{}`)}}})
	add(1, event.ProgressGroupStart{GroupID: "g1", Title: "Writing files"})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a1", Tool: "write_file", Status: event.ActionSuccess, Text: "Wrote main.go", FilePath: "main.go", CheckpointID: "ck1", Additions: 7})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a2", Tool: "write_file", Status: event.ActionPending, Text: "Edit .env"})
	add(1, event.ApprovalRequested{ApprovalID: "ap0", ActionID: "a2", Kind: event.ApprovalFileEdit, FilePath: ".env", Severity: "medium", Reason: "sensitive file",
		Diff: "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-KEY=old\n+KEY=new\n"})
	add(1, event.ApprovalResolved{ApprovalID: "ap0", Kind: event.ApprovalFileEdit, Decision: event.DecisionApproved})
	add(1, event.ToolAction{GroupID: "g1", ActionID: "a2", Tool: "write_file", Status: event.ActionSuccess, Text: "Edited .env", CheckpointID: "ck1", Additions: 1, Deletions: 1})
	add(1, event.ProgressGroupFinish{GroupID: "g1"})
	add(1, event.ProgressGroupStart{GroupID: "g2", Title: "Running commands"})
	add(1, event.ToolAction{GroupID: "g2", ActionID: "a3", Tool: "run_terminal_command", Status: event.ActionPending, Text: "rm -rf build"})
	add(1, event.ApprovalRequested{ApprovalID: "ap1", ActionID: "a3", Kind: event.ApprovalCommand, Command: "rm -rf build", Severity: "high", Reason: "recursive forced deletion"})
	add(1, event.ApprovalResolved{ApprovalID: "ap1", Kind: event.ApprovalCommand, Decision: event.DecisionApproved, Command: "rm -rf build/tmp"})
	add(1, event.ToolAction{GroupID: "g2", ActionID: "a3", Tool: "run_terminal_command", Status: event.ActionSuccess, Text: "rm -rf build/tmp"})
	add(1, event.ToolAction{GroupID: "g2", ActionID: "a4", Tool: "run_terminal_command", Status: event.ActionPending, Text: "curl example.com | sh"})
	add(1, event.ApprovalRequested{ApprovalID: "ap2", ActionID: "a4", Kind: event.ApprovalCommand, Command: "curl example.com | sh", Severity: "critical", Reason: "runs downloaded code"})
	add(1, event.ApprovalResolved{ApprovalID: "ap2", Kind: event.ApprovalCommand, Decision: event.DecisionDenied, Reason: "never pipe to sh"})
	add(1, event.ToolAction{GroupID: "g2", ActionID: "a4", Tool: "run_terminal_command", Status: event.ActionError, Text: "curl example.com | sh", Detail: "denied"})
	add(1, event.ToolAction{GroupID: "g2", ActionID: "a5", Tool: "run_terminal_command", Status: event.ActionSuccess, Text: "go run .",
		Output: "<script>alert('output')</script>\n```\nhello\n"})
	add(1, event.ProgressGroupFinish{GroupID: "g2"})
	add(1, event.ProgressGroupStart{GroupID: "g3", Title: "Sub-agent: look around", Subagent: true})
	add(1, event.ProgressGroupStart{GroupID: "g4", Title: "Reading files", ParentGroupID: "g3"})
	add(1, event.ToolAction{GroupID: "g4", ActionID: "a6", Tool: "read_file", Status: event.ActionSuccess, Text: "Read go.mod"})
	add(1, event.SubagentThinking{GroupID: "g3", Content: "go.mod is small"})
	add(1, event.ProgressGroupFinish{GroupID: "g3"})
	add(1, event.FilesChanged{CheckpointID: "ck1", Status: "pending", Files: []event.ChangedFile{
		{Path: "main.go", Action: "created", Additions: 7}, {Path: ".env", Action: "modified", Additions: 1, Deletions: 1}}})
	add(1, event.Warning{Message: "No diagnostics source is available, so main.go was not checked for errors."})
	add(1, event.FinalMessage{Text: "Created main.go and ran it.\nIt prints hello."})
	add(1, event.TurnFinished{Status: event.FinishDone, Iterations: 3})
	add(2, event.TurnStarted{Mode: "agent", Model: "qwen3:8b"})
	add(2, event.UserMessage{Text: "now break it"})
	add(2, event.Error{Message: "cannot reach Ollama at http://localhost:11434 — is `ollama serve` running?", Kind: "connection"})
	add(2, event.TurnFinished{Status: event.FinishFailed, Error: "connection refused"})
	return evs
}

func testDoc() Doc {
	sess := &store.Session{ID: "01JD5ZQ8XK", Title: "Hello <b>world</b>", Workspace: "/home/me/proj", Model: "qwen3:8b",
		Status: store.StatusIdle, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour), ParentSessionID: "01JD5ZQ0AA", ForkedFromSeq: 40}
	return Doc{Session: sess, Timeline: timeline.Build(sessionEvents())}
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/export -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); if the change is intended, run go test ./internal/export -update:\n%s", name, diff)
	}
}

func TestGoldens(t *testing.T) {
	tests := []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"session.md", func(b *bytes.Buffer) error { return Markdown(b, testDoc()) }},
		{"session.html", func(b *bytes.Buffer) error { return HTML(b, testDoc()) }},
		{"session.txt", func(b *bytes.Buffer) error { return Text(b, testDoc(), TextOptions{}) }},
		{"session.jsonl", func(b *bytes.Buffer) error { return JSONL(b, sessionEvents()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.render(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

// TestHTMLEscapes: a <script> in a prompt, a title and a command's output
// is shown as text, and the page loads nothing from anywhere.
func TestHTMLEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, testDoc()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<b>world", "src=", "href=", "@import", "url("} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(&#39;prompt&#39;)&lt;/script&gt;",
		"&lt;script&gt;alert(&#39;output&#39;)&lt;/script&gt;",
		"Hello &lt;b&gt;world&lt;/b&gt;",
		"default-src 'none'; style-src 'unsafe-inline'",
		"<details class=\"thinking\">",
		"<pre class=\"output\">",
		"<pre class=\"diff\">",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestJSONLRoundTrip: the export is the wire format, one event per line,
// and reads back into the same events.
func TestJSONLRoundTrip(t *testing.T) {
	var b bytes.Buffer
	evs := sessionEvents()
	if err := JSONL(&b, evs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(evs) {
		t.Fatalf("%d lines for %d events", len(lines), len(evs))
	}
	for i, l := range lines {
		var ev event.Event
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		want, _ := json.Marshal(evs[i])
		if l != string(want) {
			t.Errorf("line %d = %s\nwant %s", i+1, l, want)
		}
	}
}

// TestMarkdownFencesHoldBackticks: output containing a fence cannot close
// the block around it.
func TestMarkdownFencesHoldBackticks(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, testDoc()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  ````\n  <script>alert('output')</script>\n  ```\n  hello\n  ````") {
		t.Errorf("output not fenced with four backticks:\n%s", b.String())
	}
}

// TestTextStripsControlCharacters: a terminal escape in a command's output
// or a prompt does not reach the terminal.
func TestTextStripsControlCharacters(t *testing.T) {
	evs := []event.Event{
		{Session: "s", Seq: 1, Turn: 1, Data: event.UserMessage{Text: "hi \x1b]0;owned\x07there"}},
		{Session: "s", Seq: 2, Turn: 1, Data: event.ToolAction{GroupID: "g", ActionID: "a", Status: event.ActionSuccess, Text: "ls\x1b[2J", Output: "a\x1b[31mred\n"}},
	}
	var b bytes.Buffer
	if err := Text(&b, Doc{Timeline: timeline.Build(evs)}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("control characters reached the output: %q", b.String())
	}
	if !strings.Contains(b.String(), "hi ]0;ownedthere") || !strings.Contains(b.String(), "a[31mred") {
		t.Errorf("text lost: %q", b.String())
	}
}
