package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/timeline"
)

// The parity test is the seed's most important one (parity.test.ts): what a
// person watched live must be exactly what an opened session shows (seed
// critical rule #1). Each row runs one scripted turn through the real app —
// session service, agent, tools, approvals, checkpoints — against the fake
// model server, subscribes live, and compares timeline.Build of the live
// events with timeline.Build of the stored branch, as JSON.
//
// To add a scenario (sub-agent groups, checkpoint keep/undo, …), add a row:
// the files it starts with, the prompt, the model's replies, how approvals
// are answered, and a check that the scenario really happened.

const parityModel = "coder"

type parityCase struct {
	name   string
	native bool // the model calls tools natively; false: text tool calls
	files  map[string]string
	prompt string
	// replies are the model's answers, in order; call writes a tool call in
	// the row's format.
	replies func(call func(name, args string) llmtest.Part) []llmtest.Response
	// answer answers approval requests; nil: none may be asked.
	answer func(event.ApprovalRequested) approval.Answer
	// check asserts the scenario happened (the timeline is the stored one).
	check func(t *testing.T, ws string, tl *timeline.Timeline)
}

func parityCases() []parityCase {
	approve := func(event.ApprovalRequested) approval.Answer { return approval.Answer{Approve: true} }
	return []parityCase{
		{
			name: "thinking and an answer", native: true,
			prompt: "what does notes.txt say?",
			files:  map[string]string{"notes.txt": "hello\n"},
			replies: func(call func(string, string) llmtest.Part) []llmtest.Response {
				return []llmtest.Response{
					llmtest.Reply(llmtest.Thinking("The person asks about notes.txt.\nRead it."), llmtest.Text("Let me read it."), call("run_terminal_command", `{"command":"cat notes.txt"}`)),
					llmtest.Reply(llmtest.Thinking("It says hello."), llmtest.Text("notes.txt says hello. [TASK_COMPLETE]")),
				}
			},
			check: func(t *testing.T, _ string, tl *timeline.Timeline) {
				if n := countBlocks(tl, timeline.BlockThinking); n != 2 {
					t.Errorf("%d thinking blocks, want 2", n)
				}
				if !hasFinal(tl, "notes.txt says hello.") {
					t.Error("no final answer")
				}
				if n := countActions(tl, event.ActionSuccess); n != 1 {
					t.Errorf("%d successful actions, want 1", n)
				}
			},
		},
		{
			name: "tool group: several calls in one response", native: true,
			prompt: "append a line to notes.txt and add todo.txt",
			files:  map[string]string{"notes.txt": "one\n"},
			replies: func(call func(string, string) llmtest.Part) []llmtest.Response {
				return []llmtest.Response{
					llmtest.Reply(llmtest.Text("Writing both."), call("write_file", `{"path":"notes.txt","content":"one\ntwo\n"}`),
						call("write_file", `{"path":"todo.txt","content":"- test\n"}`)),
					llmtest.Reply(call("run_terminal_command", `{"command":"cat notes.txt todo.txt"}`)),
					llmtest.Reply(llmtest.Text("Added a line and todo.txt. [TASK_COMPLETE]")),
				}
			},
			check: func(t *testing.T, ws string, tl *timeline.Timeline) {
				if n := countActions(tl, event.ActionSuccess); n != 3 {
					t.Errorf("%d successful actions, want 3", n)
				}
				if countBlocks(tl, timeline.BlockFiles) != 1 {
					t.Error("no changed-files block")
				}
				if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "one\ntwo\n" {
					t.Errorf("notes.txt = %q", b)
				}
			},
		},
		{
			name: "approval approved", native: true,
			prompt: "delete the build directory",
			files:  map[string]string{"build/out.bin": "x"},
			replies: func(call func(string, string) llmtest.Part) []llmtest.Response {
				return []llmtest.Response{
					llmtest.Reply(call("run_terminal_command", `{"command":"rm -rf build"}`)),
					llmtest.Reply(llmtest.Text("Deleted build. [TASK_COMPLETE]")),
				}
			},
			answer: approve,
			check: func(t *testing.T, ws string, tl *timeline.Timeline) {
				if ap := onlyApproval(t, tl); ap != nil && ap.Decision != event.DecisionApproved {
					t.Errorf("decision %q", ap.Decision)
				}
				if _, err := os.Stat(filepath.Join(ws, "build")); !os.IsNotExist(err) {
					t.Errorf("build is still there: %v", err)
				}
			},
		},
		{
			name: "approval denied", native: true,
			prompt: "delete the build directory",
			files:  map[string]string{"build/out.bin": "x"},
			replies: func(call func(string, string) llmtest.Part) []llmtest.Response {
				return []llmtest.Response{
					llmtest.Reply(call("run_terminal_command", `{"command":"rm -rf build"}`)),
					llmtest.Reply(llmtest.Text("I left build alone. [TASK_COMPLETE]")),
				}
			},
			answer: func(event.ApprovalRequested) approval.Answer {
				return approval.Answer{Approve: false, Reason: "keep the build"}
			},
			check: func(t *testing.T, ws string, tl *timeline.Timeline) {
				if ap := onlyApproval(t, tl); ap != nil && (ap.Decision != event.DecisionDenied || ap.DenyReason != "keep the build") {
					t.Errorf("approval %+v", ap)
				}
				if _, err := os.Stat(filepath.Join(ws, "build", "out.bin")); err != nil {
					t.Errorf("a denied command ran: %v", err)
				}
			},
		},
		{
			name: "approval edited", native: true,
			prompt: "clean the build directory",
			files:  map[string]string{"build/tmp/x": "x", "build/keep": "k"},
			replies: func(call func(string, string) llmtest.Part) []llmtest.Response {
				return []llmtest.Response{
					llmtest.Reply(call("run_terminal_command", `{"command":"rm -rf build"}`)),
					llmtest.Reply(llmtest.Text("Cleaned. [TASK_COMPLETE]")),
				}
			},
			answer: func(event.ApprovalRequested) approval.Answer {
				return approval.Answer{Approve: true, Command: "rm -rf build/tmp"}
			},
			check: func(t *testing.T, ws string, tl *timeline.Timeline) {
				if ap := onlyApproval(t, tl); ap != nil && ap.ApprovedCommand != "rm -rf build/tmp" {
					t.Errorf("approval %+v", ap)
				}
				_, tmpErr := os.Stat(filepath.Join(ws, "build", "tmp"))
				_, keepErr := os.Stat(filepath.Join(ws, "build", "keep"))
				if !os.IsNotExist(tmpErr) || keepErr != nil {
					t.Errorf("the edited command did not run as edited: tmp %v, keep %v", tmpErr, keepErr)
				}
			},
		},
		{
			name: "sub-agent group", native: true,
			prompt: "where is the greeting defined?",
			files:  map[string]string{"greet.go": "package greet\n\nfunc Greet() string { return \"hi\" }\n"},
			replies: func(call func(string, string) llmtest.Part) []llmtest.Response {
				return []llmtest.Response{
					// The orchestrator delegates; the sub-agent (same model)
					// answers the next two requests; then the orchestrator ends.
					llmtest.Reply(llmtest.Text("I'll have a sub-agent look."), call("run_subagent",
						`{"task":"Find where Greet is defined","title":"Find the greeting","description":"Looks for Greet"}`)),
					llmtest.Reply(llmtest.Thinking("Start from greet.go."), call("read_file", `{"path":"greet.go"}`)),
					llmtest.Reply(llmtest.Text("greet.go:3 defines Greet. [TASK_COMPLETE]")),
					llmtest.Reply(llmtest.Text("Greet is defined in greet.go. [TASK_COMPLETE]")),
				}
			},
			check: func(t *testing.T, _ string, tl *timeline.Timeline) {
				var sub *timeline.Group
				walk(tl, func(b *timeline.Block) {
					if b.Group != nil && b.Group.Subagent {
						sub = b.Group
					}
				})
				if sub == nil || sub.Title != "Sub-agent: Find the greeting" {
					t.Fatalf("no sub-agent group: %+v", sub)
				}
				if len(sub.Children) != 1 || len(sub.Children[0].Actions) != 1 || sub.Children[0].Actions[0].Tool != "read_file" {
					t.Errorf("the sub-agent's read is not nested in its group: %+v", sub.Children)
				}
				if len(sub.Thinking) == 0 {
					t.Error("the sub-agent's thinking is not on its group")
				}
				if hasFinal(tl, "greet.go:3 defines Greet") {
					t.Error("the sub-agent's answer reached the person's timeline")
				}
				if !hasFinal(tl, "Greet is defined in greet.go.") {
					t.Error("no final answer")
				}
			},
		},
		{
			name: "multi-iteration turn with text tool calls", native: false,
			prompt: "rename the greeting in greet.txt to hi",
			files:  map[string]string{"greet.txt": "hello\n", "other.txt": "x\n"},
			replies: func(call func(string, string) llmtest.Part) []llmtest.Response {
				return []llmtest.Response{
					llmtest.Reply(llmtest.Thinking("Find the file."), llmtest.Text("Looking around. "), call("run_terminal_command", `{"command":"ls"}`)),
					llmtest.Reply(llmtest.Text("Reading it. "), call("run_terminal_command", `{"command":"cat greet.txt"}`)),
					llmtest.Reply(call("write_file", `{"path":"greet.txt","content":"hi\n"}`)),
					llmtest.Reply(llmtest.Text("greet.txt now says hi. [TASK_COMPLETE]")),
				}
			},
			check: func(t *testing.T, ws string, tl *timeline.Timeline) {
				if n := countBlocks(tl, timeline.BlockGroup); n != 3 {
					t.Errorf("%d tool groups, want one per iteration with calls (3)", n)
				}
				if n := countActions(tl, event.ActionSuccess); n != 3 {
					t.Errorf("%d successful actions, want 3", n)
				}
				if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hi\n" {
					t.Errorf("greet.txt = %q", b)
				}
			},
		},
	}
}

func TestLiveEqualsHistory(t *testing.T) {
	for _, tc := range parityCases() {
		t.Run(tc.name, func(t *testing.T) {
			p := newParity(t, tc)
			live := p.run(t, tc)
			stored, err := p.app.Sessions.History(context.Background(), p.sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			want, got := asJSON(t, timeline.Build(stored)), asJSON(t, timeline.Build(live))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the live timeline differs from the stored one (-stored +live):\n%s", diff)
			}
			tl := timeline.Build(stored)
			if n := len(tl.Items); n != 2 || tl.Items[0].Kind != timeline.KindUser || tl.Items[1].Status != event.FinishDone {
				t.Fatalf("timeline has %d items (want the prompt and one finished answer):\n%s", n, want)
			}
			tc.check(t, p.ws, tl)
		})
	}
}

// parity is one app, as print mode builds it, over a fresh database and
// workspace, talking to the fake model server.
type parity struct {
	app  *App
	sess *store.Session
	srv  *llmtest.Server
	ws   string
}

func newParity(t *testing.T, tc parityCase) *parity {
	t.Helper()
	ctx := context.Background()
	p := &parity{ws: t.TempDir(), srv: llmtest.New(t)}
	for name, content := range tc.files {
		path := filepath.Join(p.ws, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	caps := []string{"completion", "thinking"}
	if tc.native {
		caps = append(caps, "tools")
	}
	p.srv.AddModel(parityModel, llmtest.Caps(caps...), llmtest.ContextLength(32768))
	// The prompt's classification (a request for JSON) gets a general
	// task; every other request takes the row's next reply.
	p.srv.AnswerStructured(llmtest.Reply(llmtest.Text(`{"intent":"mixed","needsWrite":false,"reasoning":"scripted"}`)))
	home := t.TempDir()
	cfg, err := config.Load(config.LoadOptions{Workspace: p.ws, Home: home,
		Environ: []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
			"XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache")},
		Flags: []config.FlagValue{{Flag: "--model", Key: "agentMode.model", Value: parityModel}, {Flag: "--base-url", Key: "baseUrl", Value: p.srv.URL()}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "olly.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prov, err := ollama.New(p.srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	// A person is there to answer (the row's answer function).
	p.app, err = New(ctx, Options{Config: cfg, Store: st, Provider: prov, Approvals: approval.Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.app.Close(); err != nil {
			t.Error(err)
		}
		st.Close()
	})
	if p.sess, err = p.app.Sessions.Create(ctx, session.CreateOptions{Workspace: p.ws, Mode: "agent", Model: parityModel}); err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) llmtest.Part {
		if tc.native {
			return llmtest.ToolCall(name, args)
		}
		return llmtest.Text(`<tool_call>{"name": "` + name + `", "arguments": ` + args + `}</tool_call>`)
	}
	p.srv.Enqueue(tc.replies(call)...)
	return p
}

// run prompts once, collecting the live events (answering approvals as
// they come) until the turn finishes.
func (p *parity) run(t *testing.T, tc parityCase) []event.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub, err := p.app.Sessions.Subscribe(ctx, p.sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var live []event.Event
	done := make(chan error, 1)
	go func() {
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				done <- err
				return
			}
			live = append(live, ev)
			if req, ok := ev.Data.(event.ApprovalRequested); ok {
				if tc.answer == nil {
					done <- errUnexpectedApproval(req)
					return
				}
				if err := p.app.Approvals.Answer(p.sess.ID, req.ApprovalID, tc.answer(req)); err != nil {
					done <- err
					return
				}
			}
			if _, ok := ev.Data.(event.TurnFinished); ok {
				done <- nil
				return
			}
		}
	}()
	res, err := p.app.Sessions.Prompt(ctx, p.sess.ID, session.PromptInput{Text: tc.prompt})
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("live events: %v", err)
	}
	if res.Status != event.FinishDone {
		t.Fatalf("turn ended %s: %s", res.Status, res.Error)
	}
	if left := p.srv.Pending(); left != 0 {
		t.Errorf("%d scripted replies were not asked for", left)
	}
	return live
}

type errUnexpectedApproval event.ApprovalRequested

func (e errUnexpectedApproval) Error() string {
	return "an approval was asked in a row that expects none: " + e.Reason
}

func asJSON(t *testing.T, tl *timeline.Timeline) string {
	t.Helper()
	b, err := json.MarshalIndent(tl, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// walk calls fn for every block of every assistant message.
func walk(tl *timeline.Timeline, fn func(*timeline.Block)) {
	for _, it := range tl.Items {
		for _, b := range it.Blocks {
			fn(b)
		}
	}
}

func countBlocks(tl *timeline.Timeline, kind string) int {
	n := 0
	walk(tl, func(b *timeline.Block) {
		if b.Kind == kind {
			n++
		}
	})
	return n
}

func countActions(tl *timeline.Timeline, status string) int {
	n := 0
	walk(tl, func(b *timeline.Block) {
		if b.Group != nil {
			for _, a := range b.Group.Actions {
				if a.Status == status {
					n++
				}
			}
		}
	})
	return n
}

func hasFinal(tl *timeline.Timeline, text string) bool {
	found := false
	walk(tl, func(b *timeline.Block) {
		if (b.Kind == timeline.BlockFinal || b.Kind == timeline.BlockText) && strings.Contains(b.Text, text) {
			found = true
		}
	})
	return found
}

func onlyApproval(t *testing.T, tl *timeline.Timeline) *timeline.Approval {
	t.Helper()
	var aps []*timeline.Approval
	walk(tl, func(b *timeline.Block) {
		if b.Group != nil {
			for _, a := range b.Group.Actions {
				if a.Approval != nil {
					aps = append(aps, a.Approval)
				}
			}
		}
	})
	if len(aps) != 1 {
		t.Errorf("%d approvals, want 1", len(aps))
		return nil
	}
	return aps[0]
}
