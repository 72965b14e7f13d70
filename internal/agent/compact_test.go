package agent

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
)

// compactCtx is the window of the compaction scenarios: 70% of it is the
// threshold.
const compactCtx = 8192

// summaryText is what the fake model writes when asked for a summary.
const summaryText = "<think>what happened</think><analysis>\n1. CURRENT STATE\nReading four files.\n2. WORK COMPLETED\nRead a.txt and b.txt.\n3. FILES INVOLVED\na.txt\n4. APPROACHES THAT FAILED\nNone.\n5. PROMISES MADE\nNone.\n6. REMAINING WORK\nAnswer.\n7. KEY CONTEXT\nNone.\n</analysis>"

// fileOf2K is a file of about 2.4 KB of prose: about 700 tokens.
func fileOf2K(name string) string {
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "Line %d of %s says something worth reading.\n", i, name)
	}
	return b.String()
}

// readScenario queues four iterations that each read a file; the fourth
// reports a full window, so the next request is compacted first (the
// small counts before keep the calibrated estimate low until then).
func readScenario(h *harness, lastUsage int) {
	for i, name := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
		h.write(name, fileOf2K(name))
		usage := 100
		if i == 3 {
			usage = lastUsage
		}
		h.srv.Enqueue(llmtest.Reply(llmtest.Text("Reading "+name+"."), h.call("read_file", `{"path": "`+name+`"}`), llmtest.Usage(usage, 5)))
	}
}

const readPrompt = "What do a.txt, b.txt, c.txt and d.txt say?"

// isSummaryRequest tells the summary call from the agent's requests.
func isSummaryRequest(r *llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "APPROACHES THAT FAILED")
}

// agentRequests are the agent's own chat requests, without summary calls.
func (h *harness) agentRequests() []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range h.chats() {
		if !isSummaryRequest(r) && !isTitleRequest(r) {
			out = append(out, r)
		}
	}
	return out
}

// checkCompactedHistory checks that every agent request equals the
// conversation rebuilt from the store up to its response (compaction
// events included). skip lists the requests the server refused.
func (h *harness) checkCompactedHistory(skip ...int) {
	h.t.Helper()
	evs := h.stored()
	var cuts []int64
	for _, ev := range evs {
		if _, ok := ev.Data.(event.AssistantMessage); ok {
			cuts = append(cuts, ev.Seq)
		}
	}
	var reqs []*llmtest.Request
	for k, req := range h.agentRequests() {
		if !slices.Contains(skip, k) { // refused requests got no response
			reqs = append(reqs, req)
		}
	}
	for k, req := range reqs {
		cut := int64(1 << 62)
		if k < len(cuts) {
			cut = cuts[k]
		}
		var before []event.Event
		for _, ev := range evs {
			if ev.Seq < cut {
				before = append(before, ev)
			}
		}
		want := comparable(session.BuildConversation(before).Messages(h.format()))
		if diff := cmp.Diff(want, comparable(req.Messages[1:])); diff != "" {
			h.t.Errorf("request %d differs from the conversation rebuilt from the store (-rebuilt +sent):\n%s", k, diff)
		}
	}
}

func (h *harness) format() session.Format {
	if h.native {
		return session.FormatNative
	}
	return session.FormatText
}

// reopen is a second process on the same database: a new store handle, a
// new agent and a new session service (same fake model server).
func (h *harness) reopen(log *slog.Logger) (*session.Service, *store.Store) {
	h.t.Helper()
	st, err := store.Open(context.Background(), h.store.File(), store.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { st.Close() })
	prov, err := ollama.New(h.srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		h.t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.ReadFile{}, tools.WriteFile{}, searchTool{}, shellTool{})
	if err != nil {
		h.t.Fatal(err)
	}
	ag, err := New(Deps{Provider: prov, Tools: reg, Config: Config{Model: testModel}, Clock: &noTicks{*newManualClock()}, Log: log})
	if err != nil {
		h.t.Fatal(err)
	}
	svc, err := session.New(session.Deps{Store: st, Runner: ag})
	if err != nil {
		h.t.Fatal(err)
	}
	return svc, st
}

func TestCompactionAtThreshold(t *testing.T) {
	paths(t, func(t *testing.T, native bool) {
		h := newHarness(t, native, harnessOpt{ctxLen: compactCtx})
		readScenario(h, compactCtx)
		h.srv.Enqueue(llmtest.Reply(llmtest.Text(summaryText)), llmtest.Reply(llmtest.Text("They all say something. [TASK_COMPLETE]")))
		// The conversation the compaction starts from: everything up to the
		// fourth iteration's continuation.
		res := h.prompt(readPrompt)
		if res.Status != event.FinishDone {
			t.Fatalf("result = %+v", res)
		}
		reqs := h.chats()
		if len(reqs) != 6 || !isSummaryRequest(reqs[4]) {
			t.Fatalf("%d requests; the fifth must be the summary call", len(reqs))
		}

		// The summary call: no tools, the same num_ctx, the transcript of
		// the replaced part.
		sum := reqs[4]
		if len(sum.Tools) != 0 || sum.Options.NumCtx == nil || *sum.Options.NumCtx != compactCtx {
			t.Errorf("summary request: %d tools, num_ctx %v", len(sum.Tools), sum.Options.NumCtx)
		}
		mustContain(t, "summary system prompt", sum.Messages[0].Content, "<analysis>", "CURRENT STATE", "WORK COMPLETED",
			"FILES INVOLVED", "APPROACHES THAT FAILED", "PROMISES MADE", "REMAINING WORK", "KEY CONTEXT")
		mustContain(t, "transcript", sum.Messages[1].Content, "[user]\n"+readPrompt, "→ called read_file", "Line 1 of a.txt")

		// The compaction event.
		var comp []event.Compaction
		var compSeq int64
		evs := h.stored()
		for _, ev := range evs {
			if c, ok := ev.Data.(event.Compaction); ok {
				comp, compSeq = append(comp, c), ev.Seq
			}
		}
		if len(comp) != 1 {
			t.Fatalf("%d compaction events, want 1", len(comp))
		}
		c := comp[0]
		if c.TokensBefore < compactCtx*7/10 || c.TokensAfter >= c.TokensBefore || !strings.HasPrefix(c.Summary, "<analysis>\n1. CURRENT STATE") ||
			strings.Contains(c.Summary, "<think>") {
			t.Errorf("compaction = %+v", c)
		}
		mustContain(t, "summary", c.Summary, "word for word:\n"+readPrompt)

		// The next request: system prompt, summary, the last six messages.
		before := session.BuildConversation(eventsBefore(evs, compSeq)).Messages(h.format())
		last6 := before[len(before)-6:]
		next := reqs[5].Messages
		if next[0].Role != llm.RoleSystem || !session.IsSummary(next[1].Content) || !strings.Contains(next[1].Content, c.Summary) {
			t.Fatalf("request after compaction starts with %+v", next[:2])
		}
		if diff := cmp.Diff(comparable(last6), comparable(next[2:])); diff != "" {
			t.Errorf("after the summary, the request holds (-last six messages +sent):\n%s", diff)
		}
		// The memory block, refreshed at the compaction, has the notes.
		mustContain(t, "system prompt after compaction", next[0].Content, "<session_memory>", "## Task Reference\n"+readPrompt,
			"Files read: a.txt, b.txt, c.txt, d.txt", "Summary: 4 files read")
		if strings.Contains(reqs[0].Messages[0].Content, "Files read") {
			t.Error("the first request's memory block already lists files")
		}
		h.checkCompactedHistory()
		checkParity(t, h)

		// A resumed session (a new process on the same database) rebuilds
		// the compacted history and remembers the notes.
		svc2, _ := h.reopen(nil)
		h.srv.Enqueue(llmtest.Reply(llmtest.Text("Nothing more. [TASK_COMPLETE]")))
		if _, err := svc2.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "anything else?"}); err != nil {
			t.Fatal(err)
		}
		resumed := h.chats()[6].Messages
		conv, err := svc2.Conversation(context.Background(), h.sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		all := conv.Messages(h.format())
		if diff := cmp.Diff(comparable(all[:len(all)-1]), comparable(resumed[1:])); diff != "" {
			t.Errorf("resumed request (-rebuilt +sent):\n%s", diff)
		}
		if !session.IsSummary(resumed[1].Content) || len(resumed) != 1+1+6+1+1 {
			t.Errorf("resumed request: %d messages, second %q", len(resumed), preview(resumed[1].Content, 60))
		}
		mustContain(t, "resumed system prompt", resumed[0].Content, "## Task Reference\nanything else?", "Files read: a.txt, b.txt, c.txt, d.txt")
	})
}

// With automatic compaction off (RPC's set_auto_compaction), the same
// conversation goes to the model whole, and nothing is summarised; turned
// back on, the next turn compacts again.
func TestAutoCompactionOff(t *testing.T) {
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx})
	if !h.agent.AutoCompaction(h.sess.ID) {
		t.Fatal("automatic compaction is off before anyone turned it off")
	}
	if err := h.agent.SetAutoCompaction(h.sess.ID, false); err != nil {
		t.Fatal(err)
	}
	if h.agent.AutoCompaction(h.sess.ID) || !h.agent.AutoCompaction("another session") {
		t.Fatal("the switch is not per session")
	}
	readScenario(h, compactCtx)
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("They all say something. [TASK_COMPLETE]")))
	if res := h.prompt(readPrompt); res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	for i, r := range h.chats() {
		if isSummaryRequest(r) {
			t.Fatalf("request %d is a summary call, with automatic compaction off", i)
		}
	}
	for _, ev := range h.stored() {
		if _, ok := ev.Data.(event.Compaction); ok {
			t.Fatal("a compaction was recorded with automatic compaction off")
		}
	}
	if err := h.agent.SetAutoCompaction(h.sess.ID, true); err != nil || !h.agent.AutoCompaction(h.sess.ID) {
		t.Fatalf("turning it back on: %v", err)
	}
	if err := h.agent.SetAutoCompaction("", true); err == nil {
		t.Error("an empty session id was accepted")
	}
}

func eventsBefore(evs []event.Event, seq int64) []event.Event {
	var out []event.Event
	for _, ev := range evs {
		if ev.Seq < seq {
			out = append(out, ev)
		}
	}
	return out
}

// A response with two calls puts the boundary of the last six messages on
// a tool result: the cut moves back to the call, so seven stay.
func TestCompactionKeepsResultsWithCalls(t *testing.T) {
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx})
	for _, n := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt"} {
		h.write(n, fileOf2K(n))
	}
	h.srv.Enqueue(
		llmtest.Reply(llmtest.ToolCall("read_file", `{"path": "a.txt"}`), llmtest.ToolCall("read_file", `{"path": "b.txt"}`), llmtest.Usage(100, 5)),
		llmtest.Reply(llmtest.ToolCall("read_file", `{"path": "c.txt"}`), llmtest.ToolCall("read_file", `{"path": "d.txt"}`), llmtest.Usage(100, 5)),
		llmtest.Reply(llmtest.ToolCall("read_file", `{"path": "e.txt"}`), llmtest.Usage(compactCtx, 5)),
		llmtest.Reply(llmtest.Text(summaryText)),
		llmtest.Reply(llmtest.Text("Read them all. [TASK_COMPLETE]")),
	)
	h.prompt("What do the five files say?")
	reqs := h.chats()
	if len(reqs) != 5 || !isSummaryRequest(reqs[3]) {
		t.Fatalf("%d requests, want the summary call fourth", len(reqs))
	}
	// user, A(2), T, T, C, A(2), T, T, C, A(1), T, C: the last six start at
	// the second response's second result.
	m := reqs[4].Messages
	if len(m) != 2+7 {
		t.Fatalf("request after compaction has %d messages, want system, summary and 7", len(m))
	}
	if m[2].Role != llm.RoleAssistant || len(m[2].ToolCalls) != 2 || m[3].ToolCallID != m[2].ToolCalls[0].ID || m[4].ToolCallID != m[2].ToolCalls[1].ID {
		t.Errorf("the kept part does not start with the call of its results: %+v", m[2:5])
	}
	calls := map[string]bool{}
	for i, msg := range m {
		for _, c := range msg.ToolCalls {
			calls[c.ID] = true
		}
		if msg.Role == llm.RoleTool && !calls[msg.ToolCallID] {
			t.Errorf("message %d answers a call that is not in the request", i)
		}
	}
	h.checkCompactedHistory()
}

// A failed summary call does not fail the turn: the summary is built from
// the records instead, and the person is told.
func TestCompactionFallbackSummary(t *testing.T) {
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx})
	readScenario(h, compactCtx)
	h.srv.Enqueue(llmtest.Status(400, "model refuses"), llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")))
	res := h.prompt(readPrompt)
	if res.Status != event.FinishDone {
		t.Fatalf("result = %+v", res)
	}
	comps := payloads[event.Compaction](h.live)
	if len(comps) != 1 {
		t.Fatalf("%d compactions", len(comps))
	}
	mustContain(t, "fallback summary", comps[0].Summary, "<analysis>", "1. CURRENT STATE", "built by olly from the records",
		"model refuses", "read a.txt", "read b.txt", "- a.txt", "7. KEY CONTEXT", "</analysis>", "word for word:\n"+readPrompt)
	warn := payloads[event.Warning](h.live)
	if len(warn) != 1 || warn[0].Code != "compaction" || !strings.Contains(warn[0].Message, "model refuses") {
		t.Errorf("warnings = %+v", warn)
	}
	last := h.chats()[len(h.chats())-1].Messages
	if !session.IsSummary(last[1].Content) || !strings.Contains(last[1].Content, "built by olly") {
		t.Errorf("the next request does not carry the fallback summary: %q", preview(last[1].Content, 80))
	}
	h.checkCompactedHistory()
}

// /compact: the session service's command, through the agent's Compact.
func TestCompactCommand(t *testing.T) {
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx})
	readScenario(h, 100)
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("They say things. [TASK_COMPLETE]")))
	h.prompt(readPrompt)
	h.srv.Enqueue(llmtest.Reply(llmtest.Text(summaryText)))
	res, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "/compact keep the file names"})
	if err != nil || res.Command != "compact" {
		t.Fatalf("/compact: %+v, %v", res, err)
	}
	sum := h.chats()[len(h.chats())-1]
	if !isSummaryRequest(sum) {
		t.Fatal("no summary call")
	}
	mustContain(t, "summary request", sum.Messages[1].Content, "said what to keep in it: keep the file names")
	var comp *event.Compaction
	for _, ev := range h.stored() {
		if c, ok := ev.Data.(event.Compaction); ok {
			comp = &c
			if ev.Turn != 2 {
				t.Errorf("compaction in turn %d, want 2", ev.Turn)
			}
		}
	}
	if comp == nil || comp.Instructions != "keep the file names" {
		t.Fatalf("compaction = %+v", comp)
	}
	conv, _ := h.svc.Conversation(context.Background(), h.sess.ID)
	// 14 messages; the last six start at a read's result, so its call
	// stays too: the summary and seven.
	if msgs := conv.Messages(session.FormatNative); len(msgs) != 8 || !session.IsSummary(msgs[0].Content) || len(msgs[1].ToolCalls) != 1 {
		t.Errorf("conversation after /compact: %d messages", len(msgs))
	}
	// Too short to compact again: nothing but the kept messages remain.
	if _, err := h.svc.Prompt(context.Background(), h.sess.ID, session.PromptInput{Text: "/compact"}); err == nil || !strings.Contains(err.Error(), "nothing to compact") {
		t.Errorf("second /compact: %v", err)
	}
}

// A turn whose model writes nothing to compact keeps working even over
// the threshold: the last six messages are all it has.
func TestNothingToCompact(t *testing.T) {
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx})
	h.srv.Enqueue(llmtest.Reply(llmtest.Text("Reading."), llmtest.ToolCall("read_file", `{"path": "x.txt"}`), llmtest.Usage(compactCtx, 5)),
		llmtest.Reply(llmtest.Text("No such file. [TASK_COMPLETE]")))
	res := h.prompt("what is in x.txt?")
	if res.Status != event.FinishDone || len(h.chats()) != 2 || len(payloads[event.Compaction](h.live)) != 0 {
		t.Errorf("result %+v, %d requests", res, len(h.chats()))
	}
}

// A fork keeps the events' seqs, which FirstKeptSeq refers to: the forked
// session's conversation is the compacted one.
func TestCompactionSurvivesFork(t *testing.T) {
	h := newHarness(t, true, harnessOpt{ctxLen: compactCtx})
	readScenario(h, compactCtx)
	h.srv.Enqueue(llmtest.Reply(llmtest.Text(summaryText)), llmtest.Reply(llmtest.Text("Done. [TASK_COMPLETE]")))
	h.prompt(readPrompt)
	fork, err := h.store.Fork(context.Background(), h.sess.ID, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := h.svc.Conversation(context.Background(), h.sess.ID)
	forked, err := h.svc.Conversation(context.Background(), fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !session.IsSummary(forked.Messages(session.FormatNative)[0].Content) {
		t.Error("the fork's conversation does not start with the summary")
	}
	if diff := cmp.Diff(comparable(orig.Messages(session.FormatNative)), comparable(forked.Messages(session.FormatNative))); diff != "" {
		t.Errorf("fork's conversation (-original +fork):\n%s", diff)
	}
}

// isTitleRequest tells a title call from the agent's requests.
func isTitleRequest(r *llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "Write a title for a coding session")
}
