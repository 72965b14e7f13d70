package agent

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

func TestTruncatedOutput(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("The first half of the answer"), llmtest.DoneReason("length")),
			llmtest.Reply(llmtest.Text(" and the second half. [TASK_COMPLETE]")),
		)
		res := h.prompt("explain the build")
		if res.Status != event.FinishDone || res.Iterations != 2 || res.FinalText != "and the second half." {
			t.Fatalf("result = %+v", res)
		}
		last := h.lastMessage(1)
		if last.Role != llm.RoleUser || last.Content != truncatedNote {
			t.Errorf("after a cut-off response the model got %+v, want %q", last, truncatedNote)
		}
		h.checkHistory()
		checkParity(t, h)
	})
}

// A text call cut off by the output limit is not run: its arguments are
// incomplete, and writing half a file would be worse than nothing.
func TestTruncatedTextCallNotRun(t *testing.T) {
	h := newHarness(t, false, harnessOpt{})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text(`Writing it. <tool_call>{"name": "write_file", "arguments": {"path": "big.txt", "content": "line 1\nline`), llmtest.DoneReason("length")),
		llmtest.Reply(h.call("write_file", `{"path": "big.txt", "content": "line 1\n"}`)),
		llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
	)
	res := h.prompt("write big.txt")
	if got, _ := h.read("big.txt"); got != "line 1\n" {
		t.Errorf("big.txt = %q: the cut-off call must not have run, the complete one must", got)
	}
	results := payloads[event.ToolResult](h.live)
	if len(results) != 2 || !results[0].IsError || !strings.Contains(results[0].Content, "cut off") {
		t.Errorf("results = %+v", results)
	}
	mustContain(t, "continuation", h.lastMessage(1).Content, "[write_file result]\nYour write_file call was cut off", truncatedNote)
	if res.Status != event.FinishDone {
		t.Errorf("status %s", res.Status)
	}
	h.checkHistory()
}

// A text call that lacks only its closing braces and tag says everything it
// meant to: it is repaired and run (issue 21's repair rule).
func TestClosersOnlyTextCallRuns(t *testing.T) {
	h := newHarness(t, false, harnessOpt{})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text(`<tool_call>{"name": "write_file", "arguments": {"path": "small.txt", "content": "whole\n"`), llmtest.DoneReason("length")),
		llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")),
	)
	h.prompt("write small.txt")
	if got, _ := h.read("small.txt"); got != "whole\n" {
		t.Errorf("small.txt = %q: a call missing only its closers must run", got)
	}
	results := payloads[event.ToolResult](h.live)
	if len(results) != 1 || results[0].IsError {
		t.Errorf("results = %+v", results)
	}
}

func TestTaskCompleteOnlyInThinking(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{caps: []string{"completion", "thinking"}, cfg: Config{EnableThinking: true}})
		h.srv.Enqueue(llmtest.Reply(llmtest.Thinking("Simple question. [TASK_COMPLETE]"), llmtest.Text("The answer is 42.")))
		res := h.prompt("what is six times seven?")
		if res.Status != event.FinishDone || res.Iterations != 1 || res.FinalText != "The answer is 42." {
			t.Fatalf("result = %+v", res)
		}
		for _, b := range payloads[event.ThinkingBlock](h.live) {
			if strings.Contains(b.Content, "TASK_COMPLETE") {
				t.Errorf("thinking block shows the signal: %q", b.Content)
			}
		}
		for _, d := range payloads[event.ThinkingDelta](h.live) {
			if strings.Contains(d.Text, "TASK") {
				t.Errorf("thinking delta shows the signal: %q", d.Text)
			}
		}
		checkParity(t, h)
	})
}

// The signal in reasoning while the model still calls tools is a plan, not
// a completion.
func TestThinkingSignalWithCallsIsNotCompletion(t *testing.T) {
	h := newHarness(t, true, harnessOpt{caps: []string{"completion", "thinking"}, cfg: Config{EnableThinking: true}})
	h.write("a.txt", "A\n")
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Thinking("Read it, then say [TASK_COMPLETE]."), h.call("read_file", `{"path": "a.txt"}`)),
		llmtest.Reply(llmtest.Text("a.txt says A. [TASK_COMPLETE]")),
	)
	if res := h.prompt("what is in a.txt?"); res.Iterations != 2 || res.FinalText != "a.txt says A." {
		t.Fatalf("result = %+v", res)
	}
}

func TestDuplicateCallsDropped(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.write("a.txt", "AAA\n")
		h.write("b.txt", "BBB\n")
		h.srv.Enqueue(
			llmtest.Reply(h.call("read_file", `{"path": "a.txt"}`), h.call("read_file", `{ "path" : "a.txt" }`), h.call("read_file", `{"path": "b.txt"}`)),
			llmtest.Reply(h.call("read_file", `{"path": "a.txt"}`)), // repeats iteration 1: nothing runs
			llmtest.Reply(h.call("write_file", `{"path": "a.txt", "content": "CCC\n"}`)),
			llmtest.Reply(h.call("read_file", `{"path": "a.txt"}`)), // after a write, a re-read is legitimate
			llmtest.Reply(llmtest.Text("a.txt now has CCC. [TASK_COMPLETE]")),
		)
		res := h.prompt("replace a.txt's content with CCC and check it")
		if res.Status != event.FinishDone {
			t.Fatalf("result = %+v", res)
		}
		var ran []string
		for _, a := range payloads[event.ToolAction](h.live) {
			if a.Status == event.ActionSuccess {
				ran = append(ran, a.Tool+" "+a.FilePath)
			}
		}
		want := []string{"read_file a.txt", "read_file b.txt", "write_file a.txt", "read_file a.txt"}
		if strings.Join(ran, ",") != strings.Join(want, ",") {
			t.Errorf("calls that ran = %q, want %q", ran, want)
		}
		results := payloads[event.ToolResult](h.live)
		if len(results) != 6 || !strings.Contains(results[1].Content, "Not run: this call repeats") || !strings.Contains(results[3].Content, "Not run") {
			t.Errorf("results = %+v", results)
		}
		// The all-duplicate batch gets a note for the next request only.
		mustContain(t, "request 3", h.lastMessage(2).Content, "[SYSTEM NOTE] Every tool call in your last response repeated")
		if strings.Contains(h.lastMessage(3).Content, "[SYSTEM NOTE] Every tool call") {
			t.Errorf("stale note kept in request 4: %q", h.lastMessage(3).Content)
		}
		// Every call in history has its result, including the dropped one.
		if native {
			msgs := h.chats()[1].Messages
			if len(msgs) < 6 || msgs[2].Role != llm.RoleAssistant || len(msgs[2].ToolCalls) != 3 ||
				msgs[3].Role != llm.RoleTool || msgs[4].Role != llm.RoleTool || msgs[5].Role != llm.RoleTool {
				t.Errorf("native history after a batch with a duplicate: %+v", msgs)
			}
		}
		h.checkHistory()
		checkParity(t, h)
	})
}

func TestHallucinatedCompletionRefusedOnce(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.srv.Enqueue(
			llmtest.Reply(llmtest.Text("I created notes.txt. [TASK_COMPLETE]")),
			llmtest.Reply(h.call("write_file", `{"path": "notes.txt", "content": "notes\n"}`)),
			llmtest.Reply(llmtest.Text("Now it exists. [TASK_COMPLETE]")),
		)
		res := h.prompt("create notes.txt with our notes")
		if got, _ := h.read("notes.txt"); got != "notes\n" {
			t.Errorf("notes.txt = %q", got)
		}
		if res.Status != event.FinishDone || res.Iterations != 3 {
			t.Fatalf("result = %+v", res)
		}
		mustContain(t, "request 2", h.lastMessage(1).Content, "no file has been written yet")
		// The refused claim stays a normal assistant message: only the
		// accepted answer is the final message.
		finals := payloads[event.FinalMessage](h.live)
		if len(finals) != 1 || finals[0].Text != "Now it exists." {
			t.Errorf("finals = %+v", finals)
		}
		h.checkHistory()
		checkParity(t, h)
	})
}

func TestInsistentCompletionAccepted(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.Enqueue(
		llmtest.Reply(llmtest.Text("The file already has what you want. [TASK_COMPLETE]")),
		llmtest.Reply(llmtest.Text("No change is needed: it is already correct. [TASK_COMPLETE]")),
	)
	res := h.prompt("fix the typo in README")
	if res.Status != event.FinishDone || res.Iterations != 2 || res.FinalText != "No change is needed: it is already correct." {
		t.Fatalf("result = %+v", res)
	}
}

func TestMaxIterations(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{cfg: Config{MaxIterations: 3}})
		n := 0
		h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
			n++
			return llmtest.Reply(h.call("run_terminal_command", `{"command": "echo step `+string(rune('0'+n))+`"}`))
		})
		res := h.prompt("keep going")
		if res.Status != event.FinishMaxIterations || res.Iterations != 3 || len(h.chats()) != 3 {
			t.Fatalf("result = %+v after %d requests", res, len(h.chats()))
		}
		mustContain(t, "final message", res.FinalText, "Stopped after 3 iterations", "ran `echo step 3`")
		fin := payloads[event.TurnFinished](h.live)
		if len(fin) != 1 || fin[0].Status != event.FinishMaxIterations || fin[0].Iterations != 3 {
			t.Errorf("turn_finished = %+v", fin)
		}
		// The last request warns that it is the last iteration; no
		// continuation follows the last one.
		mustContain(t, "request 3", h.lastMessage(2).Content, `"remainingIterations":1`, "This is your last iteration")
		var conts int
		for _, c := range payloads[event.ControlMessage](h.live) {
			if c.Kind == event.ControlContinuation {
				conts++
			}
		}
		if conts != 2 {
			t.Errorf("%d continuations, want 2", conts)
		}
		h.checkHistory()
	})
}

func TestServerFailsMidTurn(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{})
		h.write("a.txt", "A\n")
		h.srv.Enqueue(
			llmtest.Reply(h.call("read_file", `{"path": "a.txt"}`)),
			llmtest.Reply(llmtest.Text("Let me think about this"), llmtest.StreamError("model runner has unexpectedly stopped")),
		)
		res := h.prompt("look at a.txt")
		if res.Status != event.FinishFailed || !strings.Contains(res.Error, "model runner has unexpectedly stopped") {
			t.Fatalf("result = %+v", res)
		}
		errs := payloads[event.Error](h.live)
		if len(errs) != 1 || errs[0].Kind != "server" || !strings.Contains(errs[0].Message, "Ollama") {
			t.Errorf("error events = %+v", errs)
		}
		// The text shown before the failure is recorded for the iteration.
		msgs := payloads[event.AssistantMessage](h.live)
		if len(msgs) != 2 || msgs[1].Text != "Let me think about this" || msgs[1].Iteration != 2 {
			t.Errorf("assistant messages = %+v", msgs)
		}
		sess, err := h.svc.Open(t.Context(), h.sess.ID)
		if err != nil || sess.Status != "error" {
			t.Errorf("session status = %v (%v), want error", sess.Status, err)
		}
		checkParity(t, h)
	})
}

func TestModelNotInstalled(t *testing.T) {
	h := newHarness(t, true, harnessOpt{cfg: Config{Model: "missing:7b"}})
	res := h.prompt("hello")
	if res.Status != event.FinishFailed || !strings.Contains(res.Error, "ollama pull missing:7b") {
		t.Fatalf("result = %+v", res)
	}
	if len(h.chats()) != 0 {
		t.Errorf("a chat was sent for a missing model")
	}
}
