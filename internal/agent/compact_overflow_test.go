package agent

import (
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

// The server refuses a prompt that does not fit: the agent compacts and
// sends the request again, once.
func TestOverflowCompactsAndRetries(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{ctxLen: compactCtx})
		readScenario(h, 100) // small counts: no compaction before the overflow
		h.srv.Enqueue(llmtest.ContextOverflow(), llmtest.Reply(llmtest.Text(summaryText)), llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")))
		res := h.prompt(readPrompt)
		if res.Status != event.FinishDone {
			t.Fatalf("result = %+v", res)
		}
		reqs := h.chats()
		if len(reqs) != 7 || !isSummaryRequest(reqs[5]) {
			t.Fatalf("%d requests, want the summary call after the refused one", len(reqs))
		}
		if session.IsSummary(reqs[4].Messages[1].Content) || !session.IsSummary(reqs[6].Messages[1].Content) {
			t.Error("the retry is not the compacted request")
		}
		if errs := payloads[event.Error](h.live); len(errs) != 0 {
			t.Errorf("errors shown: %+v", errs)
		}
		h.checkCompactedHistory(4)
		checkParity(t, h)
	})
}

func TestOverflowTwiceFails(t *testing.T) {
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx})
	readScenario(h, 100)
	h.srv.Enqueue(llmtest.ContextOverflow(), llmtest.Reply(llmtest.Text(summaryText)), llmtest.ContextOverflow())
	res := h.prompt(readPrompt)
	if res.Status != event.FinishFailed || !strings.Contains(res.Error, "even after compacting") || !strings.Contains(res.Error, "agent.maxContextWindow") {
		t.Fatalf("result = %+v", res)
	}
	errs := payloads[event.Error](h.live)
	if len(errs) != 1 || errs[0].Kind != "context_overflow" {
		t.Errorf("errors = %+v", errs)
	}
}

// An overflow with nothing to compact fails the turn with advice.
func TestOverflowNothingToCompact(t *testing.T) {
	h := newHarness(t, true, harnessOpt{})
	h.srv.Enqueue(llmtest.ContextOverflow())
	res := h.prompt("one huge prompt")
	if res.Status != event.FinishFailed || !strings.Contains(res.Error, "too short to compact") || len(h.chats()) != 1 {
		t.Errorf("result = %+v, %d requests", res, len(h.chats()))
	}
}
