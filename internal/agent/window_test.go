package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// sourceFile is about 1.5 KB of Go: a command's output that fills a
// 4,096-token window in a few iterations.
func sourceFile(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package p%d\n\n", n)
	for i := range 12 {
		fmt.Fprintf(&b, "// Handler%d_%d answers request %d.\nfunc Handler%d_%d(w http.ResponseWriter, r *http.Request) {\n\tif err := check(r, %d); err != nil {\n\t\thttp.Error(w, err.Error(), 400)\n\t}\n}\n", n, i, i, n, i, i*n)
	}
	return b.String()
}

// The bar of issue 14: a 30-iteration run with a 4,096-token model never
// sends a request over its context. The fake counts every prompt with its
// own tokenizer and fits or refuses it as Ollama does, so a request over
// the window shows as Truncated (Ollama cut it silently) or Refused (the
// 400 of "truncate": false); neither may happen. Compaction summaries are
// requests too and must fit as well.
func TestThirtyIterationsInAFourThousandTokenWindow(t *testing.T) {
	for _, native := range []bool{true, false} {
		t.Run(formatName(native), func(t *testing.T) {
			h := newHarness(t, native, harnessOpt{ctxLen: 4096, cfg: Config{MaxIterations: 30}})
			for i := range 30 {
				h.write(fmt.Sprintf("f%02d.go", i), sourceFile(i))
			}
			step := 0
			h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
				if strings.Contains(r.Messages[0].Content, "You are summarising the earlier part of a coding session") {
					return llmtest.Reply(llmtest.Text("<analysis>CURRENT STATE: reading the files one by one.\nREMAINING WORK: read the rest.</analysis>"))
				}
				step++
				if step >= 30 {
					return llmtest.Reply(llmtest.Text("All files read. [TASK_COMPLETE]"))
				}
				return llmtest.Reply(llmtest.Text(fmt.Sprintf("Reading file %d.", step)),
					h.call("run_terminal_command", fmt.Sprintf(`{"command": "cat f%02d.go"}`, step)))
			})
			res := h.prompt("read every file f00.go to f29.go with cat, one per step, then say you are done")
			if res.Status != event.FinishDone || step != 30 {
				t.Fatalf("result %+v after %d steps", res, step)
			}
			compactions := len(payloads[event.Compaction](h.live))
			for i, r := range h.chats() {
				if r.Truncated || r.Refused || r.PromptTokens >= r.NumCtx || r.NumCtx != 4096 {
					t.Errorf("request %d: %d tokens by the server's count in a window of %d (truncated %v, refused %v)", i+1, r.PromptTokens, r.NumCtx, r.Truncated, r.Refused)
				}
				if r.Dialect == "ollama" && string(r.Fields["truncate"]) != "false" {
					t.Errorf("request %d: truncate %s; olly must not let the server cut the prompt silently", i+1, r.Fields["truncate"])
				}
			}
			if compactions == 0 {
				t.Error("30 iterations of 1.5 KB results fit a 4,096-token window without compacting?")
			}
			// The person is never shown less than what was sent.
			for i, u := range payloads[event.TokenUsage](h.live) {
				if u.ContextWindow != 4096 || u.PromptTokens <= 0 {
					t.Errorf("token usage %d: %+v", i, u)
				}
			}
			t.Logf("%d requests, %d compactions", len(h.chats()), compactions)
		})
	}
}

// A server count that cannot be of the prompt sent — well below the
// estimate, or what a server keeps when it cuts a prompt — does not
// calibrate the estimates, and the person is shown what was sent.
func TestTruncatedCountsAreNotTrusted(t *testing.T) {
	for _, tc := range []struct {
		real, est, numCtx int
		want              bool
	}{
		{1300, 1000, 4096, true},
		{900, 1000, 4096, true},
		{500, 1000, 4096, true},   // well below, but the prompt fitted: a cache, not a cut
		{2000, 5000, 4096, false}, // well below a prompt that could not fit: truncated
		{2050, 1900, 4096, false}, // Ollama's context-shift cut of a 4,096 window
		{4095, 3000, 4096, false}, // the whole window: cut to it
		{0, 1000, 4096, false},    // no count
	} {
		var cs contextState
		if got := cs.trusted(tc.real, tc.est, tc.numCtx); got != tc.want {
			t.Errorf("trusted(%d, %d, %d) = %v", tc.real, tc.est, tc.numCtx, got)
		}
	}
}

// Ollama's /v1 cannot be told not to cut: a prompt over the window it
// runs the model with is fitted silently, and its count is of what it
// kept. olly notices, shows what was sent, and fits the next request
// itself (compacting when there is anything to compact, else shortening
// the results), so the server has nothing to cut.
func TestSilentTruncationIsDetected(t *testing.T) {
	h := newHarness(t, true, harnessOpt{dialect: "openai", ctxLen: 4096})
	big := strings.Repeat(sourceFile(1), 4)
	h.write("big.go", big)
	h.srv.Enqueue(
		// The first answer's count claims a prompt cut to 2,050 tokens.
		llmtest.Reply(h.call("run_terminal_command", `{"command": "cat big.go"}`), llmtest.Usage(2050, 10)),
		llmtest.Reply(llmtest.Text("Read it. [TASK_COMPLETE]")),
	)
	h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
		return llmtest.Reply(llmtest.Text("<analysis>CURRENT STATE: read big.go.</analysis>"))
	})
	res := h.prompt("cat big.go and tell me about it")
	if res.Status != event.FinishDone {
		t.Fatalf("result %+v", res)
	}
	u := payloads[event.TokenUsage](h.live)
	if len(u) == 0 || !u[0].Estimated {
		t.Errorf("usage %+v: a truncated count was shown as real", u)
	}
	reqs := h.chats()
	if len(reqs) < 2 || reqs[len(reqs)-1].Truncated || reqs[len(reqs)-1].PromptTokens >= reqs[len(reqs)-1].NumCtx {
		t.Errorf("the request after the cut was cut again by the server (%d tokens of %d)", reqs[len(reqs)-1].PromptTokens, reqs[len(reqs)-1].NumCtx)
	}
}
