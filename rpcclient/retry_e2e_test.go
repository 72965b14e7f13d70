package rpcclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// piFrame is the part of a pi event the retry test reads.
type piFrame struct {
	Type         string `json:"type"`
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
	Success      bool   `json:"success"`
	FinalError   string `json:"finalError"`
}

// piRun reads pi events until agent_end and returns the auto-retry
// frames; onStart runs at each auto_retry_start.
func piRun(t *testing.T, c *Client, onStart func()) []piFrame {
	t.Helper()
	var got []piFrame
	timeout := time.After(30 * time.Second)
	for {
		select {
		case raw, open := <-c.PiEvents():
			if !open {
				t.Fatalf("olly's output ended; stderr: %s", c.Stderr())
			}
			var f piFrame
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			switch f.Type {
			case "auto_retry_start":
				got = append(got, f)
				if onStart != nil {
					onStart()
				}
			case "auto_retry_end":
				got = append(got, f)
			case "agent_end":
				return got
			}
		case <-timeout:
			t.Fatalf("no agent_end; retry frames so far %+v", got)
		}
	}
}

// A 503 is retried and reported as pi's auto_retry_start and
// auto_retry_end; set_auto_retry false surfaces it at once; abort_retry
// during the wait ends the retries.
func TestAutoRetry(t *testing.T) {
	e := newEnv(t)
	e.reply(llmtest.Status(503, "server overloaded"), llmtest.Reply(llmtest.Text("Answer. [TASK_COMPLETE]")))
	c := e.start("both")
	w := watch(t, c)
	ctx := ctxT(t)

	// Retried: start (attempt 1 of 3 after 1s), end (success), the answer.
	if _, err := c.Prompt(ctx, PromptRequest{Message: "first"}); err != nil {
		t.Fatal(err)
	}
	frames := piRun(t, c, nil)
	if len(frames) != 2 || frames[0].Type != "auto_retry_start" || frames[0].Attempt != 1 || frames[0].MaxAttempts != 3 ||
		frames[0].DelayMs != 1000 || !strings.Contains(frames[0].ErrorMessage, "server overloaded") ||
		frames[1].Type != "auto_retry_end" || !frames[1].Success || frames[1].Attempt != 1 || frames[1].FinalError != "" {
		t.Errorf("retried 503: frames %+v", frames)
	}
	if fin := w.finished(); fin.Status != event.FinishDone {
		t.Errorf("retried turn %+v", fin)
	}
	if text, err := c.GetLastAssistantText(ctx); err != nil || text == nil || *text != "Answer." {
		t.Errorf("answer %v, %v", text, err)
	}
	if n := len(e.turnRequests()); n != 2 {
		t.Errorf("%d turn requests, want 2 (the 503 and its retry)", n)
	}

	// Off: the 503 fails the turn, one request, no retry frames.
	if err := c.SetAutoRetry(ctx, false); err != nil {
		t.Fatal(err)
	}
	e.reply(llmtest.Status(503, "server overloaded"))
	if _, err := c.Prompt(ctx, PromptRequest{Message: "second"}); err != nil {
		t.Fatal(err)
	}
	if frames := piRun(t, c, nil); len(frames) != 0 {
		t.Errorf("auto-retry off: frames %+v", frames)
	}
	if fin := w.finished(); fin.Status != event.FinishFailed {
		t.Errorf("auto-retry off: turn %+v", fin)
	}
	if n := len(e.turnRequests()); n != 3 {
		t.Errorf("auto-retry off: %d turn requests, want 3", n)
	}

	// abort_retry during the wait: the end reports failure, no retry is sent.
	if err := c.SetAutoRetry(ctx, true); err != nil {
		t.Fatal(err)
	}
	e.reply(llmtest.Status(503, "server overloaded"))
	if _, err := c.Prompt(ctx, PromptRequest{Message: "third"}); err != nil {
		t.Fatal(err)
	}
	frames = piRun(t, c, func() {
		if err := c.AbortRetry(context.WithoutCancel(ctx)); err != nil {
			t.Errorf("abort_retry: %v", err)
		}
	})
	if len(frames) != 2 || frames[0].Type != "auto_retry_start" || frames[1].Type != "auto_retry_end" ||
		frames[1].Success || !strings.Contains(frames[1].FinalError, "server overloaded") {
		t.Errorf("aborted retry: frames %+v", frames)
	}
	if fin := w.finished(); fin.Status != event.FinishFailed {
		t.Errorf("aborted retry: turn %+v", fin)
	}
	if n := len(e.turnRequests()); n != 4 {
		t.Errorf("aborted retry: %d turn requests, want 4", n)
	}
}
