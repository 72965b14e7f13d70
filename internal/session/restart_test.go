package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

const restartModel = "coder"

// olly is one olly process: a store on the database file, a session
// service and the agent, talking to the model server.
type olly struct {
	st  *store.Store
	svc *session.Service
}

func start(t *testing.T, db, url string) *olly {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prov, err := ollama.New(url, ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.ReadFile{}, tools.WriteFile{})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agent.New(agent.Deps{Provider: prov, Tools: reg, Config: agent.Config{Model: restartModel}})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := session.New(session.Deps{Store: st, Runner: ag})
	if err != nil {
		t.Fatal(err)
	}
	return &olly{st: st, svc: svc}
}

func (o *olly) stop(t *testing.T) {
	t.Helper()
	if err := o.svc.Close(); err != nil {
		t.Error(err)
	}
	if err := o.st.Close(); err != nil {
		t.Error(err)
	}
}

func (o *olly) prompt(t *testing.T, id, text string) {
	t.Helper()
	res, err := o.svc.Prompt(context.Background(), id, session.PromptInput{Text: text})
	if err != nil || res.Status != event.FinishDone {
		t.Fatalf("prompt %q: %+v, %v", text, res, err)
	}
}

// restartScript is three turns: a read and a write, a read, an answer.
func restartScript(native bool) [3][]llmtest.Response {
	call := func(name, args string) llmtest.Part {
		if native {
			return llmtest.ToolCall(name, args)
		}
		return llmtest.Text(`<tool_call>{"name": "` + name + `", "arguments": ` + args + `}</tool_call>`)
	}
	return [3][]llmtest.Response{
		{
			llmtest.Reply(llmtest.Thinking("Read a.go first."), llmtest.Text("I'll read a.go."), call("read_file", `{"path":"a.go"}`)),
			llmtest.Reply(call("write_file", `{"path":"b.go","content":"package a\n\nfunc B() {}\n"}`)),
			llmtest.Reply(llmtest.Text("Copied a.go's package into b.go. [TASK_COMPLETE]")),
		},
		{
			llmtest.Reply(call("read_file", `{"path":"b.go"}`)),
			llmtest.Reply(llmtest.Text("b.go declares func B. [TASK_COMPLETE]")),
		},
		{
			llmtest.Reply(llmtest.Text("Both files are in package a. [TASK_COMPLETE]")),
		},
	}
}

var prompts = [3]string{"create b.go in the package of a.go with a func B", "what does b.go declare?", "which package are they in?"}

// runSession plays the script in a fresh workspace and database, closing
// olly and starting it again after turn restartAfter (0: never), and
// returns the chat requests the model server received, and the workspace.
func runSession(t *testing.T, native bool, restartAfter int) ([]*llmtest.Request, string) {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "proj") // same base name in every run
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	caps := []string{"completion", "thinking"}
	if native {
		caps = append(caps, "tools")
	}
	srv.AddModel(restartModel, llmtest.Caps(caps...), llmtest.ContextLength(32768))
	db := filepath.Join(t.TempDir(), "olly.db")
	o := start(t, db, srv.URL())
	sess, err := o.svc.Create(context.Background(), session.CreateOptions{Workspace: ws, Model: restartModel})
	if err != nil {
		t.Fatal(err)
	}
	script := restartScript(native)
	for turn := 1; turn <= 3; turn++ {
		srv.Enqueue(script[turn-1]...)
		o.prompt(t, sess.ID, prompts[turn-1])
		if turn == restartAfter {
			o.stop(t)
			o = start(t, db, srv.URL())
		}
	}
	defer o.stop(t)
	if srv.Pending() != 0 {
		t.Fatalf("%d scripted responses were not asked for", srv.Pending())
	}
	// The requests olly sent are the conversation the store holds.
	evs, err := o.svc.History(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	format := session.FormatText
	if native {
		format = session.FormatNative
	}
	chats := chatRequests(srv)
	last := chats[len(chats)-1]
	if diff := cmp.Diff(session.BuildConversation(before(evs, event.TypeAssistantMessage, 3)).Messages(format), last.Messages[1:]); diff != "" {
		t.Errorf("the last request differs from the conversation rebuilt from the store (-store +sent):\n%s", diff)
	}
	return chats, ws
}

// before returns the events before the last event of type typ in turn.
func before(evs []event.Event, typ event.Type, turn int) []event.Event {
	cut := len(evs)
	for i, ev := range evs {
		if ev.Turn == turn && ev.Type() == typ {
			cut = i
		}
	}
	return evs[:cut]
}

func chatRequests(srv *llmtest.Server) []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" {
			out = append(out, r)
		}
	}
	return out
}

// TestConversationSurvivesRestart: after two turns olly is closed and
// started again on the same database; the third turn's request is exactly
// what one process running all three turns sent, with every tool call
// answered by its result.
func TestConversationSurvivesRestart(t *testing.T) {
	for _, native := range []bool{true, false} {
		name := "text tool calls"
		if native {
			name = "native tool calls"
		}
		t.Run(name, func(t *testing.T) {
			live, liveWS := runSession(t, native, 0)
			restarted, restartWS := runSession(t, native, 2)
			// Turn 1 made 3 requests, turn 2 made 2: the sixth is turn 3's.
			if len(live) != 6 || len(restarted) != 6 {
				t.Fatalf("%d and %d chat requests, want 6", len(live), len(restarted))
			}
			want, got := live[5], restarted[5]
			sys := func(r *llmtest.Request, ws string) string {
				s := r.Messages[0].Content
				// The date changes at midnight; the workspace path differs.
				s = strings.ReplaceAll(s, ws, "<workspace>")
				return strings.ReplaceAll(s, time.Now().Format("2006-01-02"), "<date>")
			}
			if want.Messages[0].Role != llm.RoleSystem || sys(want, liveWS) != sys(got, restartWS) {
				t.Errorf("system prompts differ after the restart")
			}
			if diff := cmp.Diff(want.Messages[1:], got.Messages[1:]); diff != "" {
				t.Errorf("turn 3's request after a restart (-live +restarted):\n%s", diff)
			}
			checkPairing(t, native, got.Messages)
		})
	}
}

// checkPairing checks that every native tool call is answered by a tool
// message with its id before the next assistant message, that text-format
// results travel inside the packet, and that no message carries thinking.
func checkPairing(t *testing.T, native bool, msgs []llm.Message) {
	t.Helper()
	calls, results := 0, 0
	for i, m := range msgs {
		if m.Thinking != "" {
			t.Errorf("message %d carries thinking", i)
		}
		if !native {
			if len(m.ToolCalls) > 0 || m.Role == llm.RoleTool {
				t.Errorf("message %d has native tool parts in the text format", i)
			}
			results += strings.Count(m.Content, " result]\n")
			continue
		}
		for _, c := range m.ToolCalls {
			calls++
			answered := false
			for _, r := range msgs[i+1:] {
				if r.Role == llm.RoleAssistant {
					break
				}
				if r.Role == llm.RoleTool && r.ToolCallID == c.ID && r.ToolName == c.Name {
					answered = true
				}
			}
			if !answered {
				t.Errorf("tool call %s (%s) has no result before the next assistant message", c.ID, c.Name)
			}
		}
		if m.Role == llm.RoleTool {
			results++
		}
	}
	if native && (calls != 3 || results != 3) {
		t.Errorf("%d calls and %d results, want 3 of each", calls, results)
	}
	if !native && results != 3 {
		t.Errorf("%d text results, want 3", results)
	}
}
