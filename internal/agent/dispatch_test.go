package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/tools"
)

func TestParseDispatch(t *testing.T) {
	cases := []struct {
		name string
		text string
		want event.Dispatch
		bad  bool
	}{
		{"plain", `{"intent":"modify","needsWrite":true,"reasoning":"fix a bug"}`,
			event.Dispatch{Intent: "modify", NeedsWrite: true, Confidence: dispatchConfidence, Reasoning: "fix a bug"}, false},
		{"fenced with prose", "Sure:\n```json\n{\"intent\": \"Analyze\", \"needs_write\": false, \"reason\": \"a question\"}\n```",
			event.Dispatch{Intent: "analyze", Confidence: dispatchConfidence, Reasoning: "a question"}, false},
		{"needsWrite defaults by intent", `{"intent":"analyze"}`, event.Dispatch{Intent: "analyze", Confidence: dispatchConfidence}, false},
		{"needsWrite defaults to true", `{"intent":"create"}`, event.Dispatch{Intent: "create", NeedsWrite: true, Confidence: dispatchConfidence}, false},
		{"needsWrite as a string", `{"intent":"mixed","needsWrite":"false"}`, event.Dispatch{Intent: "mixed", Confidence: dispatchConfidence}, false},
		{"braces inside strings", `{"intent":"create","needsWrite":true,"reasoning":"add {x} and \"}\""}`,
			event.Dispatch{Intent: "create", NeedsWrite: true, Confidence: dispatchConfidence, Reasoning: `add {x} and "}"`}, false},
		{"reasoning on one line", `{"intent":"modify","reasoning":"a\n  b"}`,
			event.Dispatch{Intent: "modify", NeedsWrite: true, Confidence: dispatchConfidence, Reasoning: "a b"}, false},
		{"unknown intent", `{"intent":"refactor"}`, event.Dispatch{}, true},
		{"no intent", `{"needsWrite":true}`, event.Dispatch{}, true},
		{"not JSON", "I think the user wants analysis.", event.Dispatch{}, true},
		{"cut off", `{"intent": "analyze", "needsWrite":`, event.Dispatch{}, true},
		{"invalid JSON", `{intent: analyze}`, event.Dispatch{}, true},
		{"empty", "", event.Dispatch{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseDispatch(tc.text)
			if (err != nil) != tc.bad {
				t.Fatalf("error %v, want failure %v", err, tc.bad)
			}
			if diff := cmp.Diff(tc.want, got); !tc.bad && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseDispatch(f *testing.F) {
	for _, s := range []string{`{"intent":"analyze","needsWrite":false}`, "```json\n{\"intent\":\"modify\"}\n```", `{"a":"}"}`, `{{{`, `x{"intent":"create"}y`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := parseDispatch(text)
		if err != nil {
			return
		}
		switch d.Intent {
		case event.IntentAnalyze, event.IntentModify, event.IntentCreate, event.IntentMixed:
		default:
			t.Fatalf("intent %q from %q", d.Intent, text)
		}
		if d.Confidence != dispatchConfidence || len([]rune(d.Reasoning)) > reasoningMax {
			t.Fatalf("dispatch %+v", d)
		}
	})
}

func classification(intent string, needsWrite bool) llmtest.Response {
	b, _ := json.Marshal(map[string]any{"intent": intent, "needsWrite": needsWrite, "reasoning": "because"})
	return llmtest.Reply(llmtest.Text(string(b)))
}

// The dispatcher routes: analysis read-only (deep-explore), analysis that
// must write to deep-explore-write, everything else to the orchestrator
// with task rules for the intent.
func TestDispatchRoutes(t *testing.T) {
	cases := []struct {
		name       string
		intent     string
		needsWrite bool
		mode       event.Mode
		has, lacks []string
		prompt     string
	}{
		{"analysis runs read-only", "analyze", false, event.ModeDeepExplore,
			[]string{"read_file", tools.SubagentTool}, []string{"write_file", "run_terminal_command"}, "DEPTH OVER BREADTH"},
		{"analysis with a document to write", "analyze", true, event.ModeDeepExploreWrite,
			[]string{"read_file", "write_file", tools.SubagentTool}, []string{"run_terminal_command"}, "WRITE ONLY THE DOCUMENT"},
		{"modify", "modify", true, event.ModeAgent, orchestratorTools(), []string{"read_file"}, "This task changes existing code"},
		{"create", "create", true, event.ModeAgent, orchestratorTools(), []string{"read_file"}, "Follow the project's existing patterns"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newModeHarness(t, modeOpt{cfg: Config{Classify: true, Tools: orchestratorTools()}})
			h.srv.Enqueue(classification(tc.intent, tc.needsWrite), llmtest.Reply(llmtest.Text("Answer. [TASK_COMPLETE]")))
			if tc.needsWrite {
				// The write check refuses the first completion once.
				h.srv.Enqueue(llmtest.Reply(llmtest.Text("Nothing to write after all. [TASK_COMPLETE]")))
			}
			res := h.prompt("the request")
			ts := h.turnStarted(res.Turn)
			want := &event.Dispatch{Intent: tc.intent, NeedsWrite: tc.needsWrite, Confidence: dispatchConfidence, Reasoning: "because"}
			if ts.Mode != tc.mode || !cmp.Equal(ts.Dispatch, want) {
				t.Errorf("turn_started = %+v %+v, want mode %s and %+v", ts, ts.Dispatch, tc.mode, want)
			}
			mains := h.mainChats()
			names := toolNames(mains[0])
			for _, n := range tc.has {
				if !slices.Contains(names, n) {
					t.Errorf("tools %v lack %s", names, n)
				}
			}
			for _, n := range tc.lacks {
				if slices.Contains(names, n) {
					t.Errorf("tools %v include %s", names, n)
				}
			}
			mustContain(t, "system prompt", mains[0].Messages[0].Content, tc.prompt)
			wantReqs := 1
			if tc.needsWrite {
				wantReqs = 2
			}
			if len(mains) != wantReqs {
				t.Fatalf("%d turn requests, want %d", len(mains), wantReqs)
			}
			if tc.needsWrite {
				mustContain(t, "write check", mains[1].LastMessage().Content, "no file has been written yet")
			}
		})
	}
}

// The classification replaces the keyword heuristic: "create …" that the
// model says needs no write is not refused a completion.
func TestDispatchDecidesNeedsWrite(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Classify: true}})
	h.srv.Enqueue(classification("create", false), llmtest.Reply(llmtest.Text("Here is the snippet you asked for. [TASK_COMPLETE]")))
	res := h.prompt("create a regex for dates and show it to me")
	if res.Status != event.FinishDone || res.Iterations != 1 {
		t.Fatalf("result = %+v: the classification said no writes are needed", res)
	}
}

// The bar: a classification that fails — server error, garbage, a cut-off
// object, no answer in time — falls back to mixed and needs-write, and the
// turn runs.
func TestDispatchFallback(t *testing.T) {
	cases := []struct {
		name   string
		reply  llmtest.Response
		reason string
	}{
		{"server error", llmtest.Status(500, "model crashed"), "model crashed"},
		{"garbage", llmtest.Reply(llmtest.Text("The user wants to analyze the code.")), "not a JSON object"},
		{"cut off", llmtest.Reply(llmtest.Text(`{"intent": "analyze", "needsWrite":`)), "not a JSON object"},
		{"unknown intent", llmtest.Reply(llmtest.Text(`{"intent": "vibes"}`)), "unknown intent"},
		{"timeout", llmtest.Hang(), "no answer within 200ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The classification (the only request with a format) gets
			// tc.reply however late it arrives: on a loaded machine a
			// request the client gave up on may never reach the server, and
			// a queued hang would then stall the turn's own request. Only
			// the hang case needs the short timeout.
			timeout := 30 * time.Second
			if tc.name == "timeout" {
				timeout = 200 * time.Millisecond
			}
			h := newModeHarness(t, modeOpt{cfg: Config{Classify: true, DispatchTimeout: timeout}})
			h.srv.AnswerStructured(tc.reply)
			h.srv.Enqueue(
				llmtest.Reply(llmtest.ToolCall("write_file", `{"path": "a.txt", "content": "x"}`)),
				llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")))
			start := time.Now()
			res := h.prompt("explain the build")
			if res.Status != event.FinishDone {
				t.Fatalf("result = %+v", res)
			}
			ts := h.turnStarted(res.Turn)
			d := ts.Dispatch
			if ts.Mode != event.ModeAgent || d == nil || d.Intent != event.IntentMixed || !d.NeedsWrite || d.Confidence != 0 ||
				!strings.Contains(d.Reasoning, tc.reason) {
				t.Fatalf("turn_started = %+v, dispatch %+v", ts, d)
			}
			if elapsed := time.Since(start); elapsed > 8*time.Second {
				t.Errorf("the turn took %s", elapsed) // generous: the bound is DispatchTimeout
			}
		})
	}
}

// The classification call is short: JSON format, few tokens, the turn's
// context size (no reload), the model kept loaded, no thinking.
func TestClassificationRequest(t *testing.T) {
	h := newModeHarness(t, modeOpt{cfg: Config{Classify: true, EnableThinking: true}, caps: []string{"thinking"}})
	h.srv.Enqueue(classification("analyze", false), llmtest.Reply(llmtest.Text("It builds with make. [TASK_COMPLETE]")))
	h.prompt("how does this build?")
	reqs := h.chats()
	if len(reqs) != 2 || !isClassification(reqs[0]) {
		t.Fatalf("%d requests; the first must be the classification", len(reqs))
	}
	c, turn := reqs[0], reqs[1]
	if string(c.Format) != `"json"` || c.Options.NumPredict == nil || *c.Options.NumPredict != dispatchNumPredict ||
		c.KeepAlive != dispatchKeepAlive || len(c.Tools) != 0 || c.Think == nil || c.Think.Enabled {
		t.Errorf("classification request: format %s, options %+v, keep_alive %q, %d tools, think %+v", c.Format, c.Options, c.KeepAlive, len(c.Tools), c.Think)
	}
	if c.Options.NumCtx == nil || turn.Options.NumCtx == nil || *c.Options.NumCtx != *turn.Options.NumCtx {
		t.Errorf("num_ctx %v vs the turn's %v: a different size reloads the model", c.Options.NumCtx, turn.Options.NumCtx)
	}
	if len(c.Messages) != 2 || c.Messages[1].Content != "how does this build?" {
		t.Errorf("classification messages = %+v", c.Messages)
	}
	// The spinner while classifying, then turn_started with the result.
	var sawStatus bool
	for _, ev := range h.live {
		if st, ok := ev.Data.(event.Status); ok && strings.Contains(st.Text, "Understanding") {
			sawStatus = true
		}
		if _, ok := ev.Data.(event.TurnStarted); ok && !sawStatus {
			t.Error("turn_started came before the classification's status")
		}
	}
}
