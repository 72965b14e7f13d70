package agent

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

// promptAsync starts a turn and returns a channel with its outcome.
func (h *harness) promptAsync(text string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: text})
		done <- err
	}()
	return done
}

// waitFor reads live events until one satisfies ok.
func (h *harness) waitFor(ok func(event.Event) bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		ev, err := h.sub.Next(ctx)
		if err != nil {
			h.t.Fatalf("waiting for an event: %v", err)
		}
		h.live = append(h.live, ev)
		if ok(ev) {
			return
		}
	}
}

func TestCancelWhileStreaming(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		// The real clock: the text shows within 32 ms although the server
		// then stalls.
		h := newHarness(t, native, harnessOpt{clock: realClock{}})
		h.srv.Enqueue(llmtest.Reply(llmtest.Text("Working on the first step"), llmtest.Stall()))
		done := h.promptAsync("do the thing")
		h.waitFor(func(ev event.Event) bool { _, ok := ev.Data.(event.TextDelta); return ok })
		if !h.svc.Abort(h.sess.ID) {
			t.Fatal("Abort found no running turn")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.srv.WaitCanceled(ctx, 1); err != nil {
			t.Fatalf("the stalled request was not canceled: %v", err)
		}
		if err := <-done; err != nil {
			t.Fatalf("prompt: %v", err)
		}
		h.drain(1)
		fin := payloads[event.TurnFinished](h.live)
		if len(fin) != 1 || fin[0].Status != event.FinishCanceled {
			t.Fatalf("turn_finished = %+v", fin)
		}
		msgs := payloads[event.AssistantMessage](h.live)
		if len(msgs) != 1 || msgs[0].Text != "Working on the first step" {
			t.Errorf("the partial iteration was not closed with its text: %+v", msgs)
		}
		sess, _ := h.svc.Open(ctx, h.sess.ID)
		if sess.Status != "idle" || h.svc.Busy(h.sess.ID) {
			t.Errorf("status %s busy %v after cancel", sess.Status, h.svc.Busy(h.sess.ID))
		}
		checkParity(t, h)
	})
}

func TestCancelWhileCommandRuns(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.Enqueue(llmtest.Reply(
		h.call("run_terminal_command", `{"command": "sleep 30"}`),
		h.call("read_file", `{"path": "never-read.txt"}`),
	))
	done := h.promptAsync("wait a bit")
	h.waitFor(func(ev event.Event) bool {
		a, ok := ev.Data.(event.ToolAction)
		return ok && a.Status == event.ActionRunning
	})
	start := time.Now()
	h.svc.Abort(h.sess.ID)
	if err := <-done; err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the command was not killed: the turn took %v to end", d)
	}
	h.drain(1)
	results := payloads[event.ToolResult](h.live)
	if len(results) != 2 || !results[0].IsError || results[1].Content != "Not run: the person stopped the turn." {
		t.Errorf("results = %+v", results)
	}
	fin := payloads[event.TurnFinished](h.live)
	if len(fin) != 1 || fin[0].Status != event.FinishCanceled {
		t.Errorf("turn_finished = %+v", fin)
	}
	checkParity(t, h)
}

func TestBusySession(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("x"), llmtest.Stall()))
	done := h.promptAsync("first")
	h.waitFor(func(ev event.Event) bool { _, ok := ev.Data.(event.UserMessage); return ok })
	_, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "second"})
	if !errors.Is(err, session.ErrBusy) {
		t.Errorf("second prompt: %v, want ErrBusy", err)
	}
	h.svc.Abort(h.sess.ID)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	h.drain(1)
}
