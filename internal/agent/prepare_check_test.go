package agent

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/session"
)

// preparedChecks counts what checkPrepared saw.
type preparedChecks struct {
	requests, kept, trimmed, noImages, switches int
	format                                      session.Format
}

// checkPrepared compares every request prepare built, and the estimate it
// recorded (contextState.last), with a full rendering of the conversation
// estimated afresh (no kept messages, no counted positions), trimmed as
// fit.go trims when that does not fit: the incremental rendering and
// estimate (session.Render, countedMessages) must give the same.
func checkPrepared(t *testing.T, seen *preparedChecks) func(b *requestBuilder, req *llm.ChatRequest) {
	return func(b *requestBuilder, req *llm.ChatRequest) {
		if seen.requests > 0 && b.format != seen.format {
			seen.switches++
		}
		seen.requests++
		seen.format = b.format
		seen.kept += req.Kept
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "left out: this model cannot read images") {
				seen.noImages++
			}
		}
		msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: b.system()}}, b.t.History.AppendMessages(nil, b.format)...)
		if !b.vision {
			dropImages(msgs[1:])
		}
		want := &llm.ChatRequest{Messages: msgs, Tools: req.Tools}
		fresh := &contextState{numCtx: b.cs.numCtx, maxTokens: b.cs.maxTokens, ratio: b.cs.ratio,
			textTools: b.cs.textTools, instructions: b.cs.instructions}
		est := fresh.estimate(want, 0)
		if limit := fresh.promptLimit(); fresh.fitSize(est.total) > limit {
			seen.trimmed++
			want, est = fresh.trimResults(want, est, limit)
		}
		if !reflect.DeepEqual(want.Messages, req.Messages) {
			t.Errorf("request %d differs from a full rendering (-full +prepared):\n%s", seen.requests, cmp.Diff(want.Messages, req.Messages))
		}
		if !reflect.DeepEqual(est, b.cs.last) {
			t.Errorf("request %d: estimate %+v, counted afresh %+v", seen.requests, b.cs.last, est)
		}
	}
}

// TestPreparedAsFullRendering: in small windows, where the conversation is
// compacted and too large results are shortened, every request and its
// estimate are those of a full rendering counted afresh, in both tool-call
// formats. The 8,192-token window compacts at almost every iteration; the
// 16,384-token one keeps more messages between compactions.
func TestPreparedAsFullRendering(t *testing.T) {
	for _, tc := range []struct{ window, big int }{{8192, 10}, {16384, 40}} {
		for _, native := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d/%s", tc.window, formatName(native)), func(t *testing.T) {
				preparedRun(t, native, tc.window, tc.big, false)
			})
		}
		// Tools guessed: the first request, native, is refused, and the
		// run switches to text tool calls (toolsRefused).
		t.Run(fmt.Sprintf("%d/switch", tc.window), func(t *testing.T) {
			preparedRun(t, false, tc.window, tc.big, true)
		})
	}
}

// watchedRuns is the agent as the session service's runner, with each
// turn's run kept (RunTurn's steps: startRun, then the loop) so that
// checkingProvider can look at its request builder.
type watchedRuns struct {
	*Agent
	current atomic.Pointer[run]
}

func (w *watchedRuns) RunTurn(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
	ctx, r, end, err := w.startRun(ctx, t)
	if err != nil {
		return nil, err
	}
	defer end()
	w.current.Store(r)
	defer w.current.Store(nil)
	return r.loop(ctx)
}

// checkingProvider hands each request the running turn's request builder
// made to check, with the builder, before it sends it: Chat is called
// right after prepare returned the request (streamer.send). The builder's
// requests are told apart from others (a compaction's summary) by their
// encode cache, which is the run's.
type checkingProvider struct {
	llm.Provider
	runs  *watchedRuns
	check func(b *requestBuilder, req *llm.ChatRequest)
}

func (p checkingProvider) Chat(ctx context.Context, req *llm.ChatRequest) (llm.Stream[llm.ChatChunk], error) {
	if r := p.runs.current.Load(); r != nil && req.Cache != nil && req.Cache == r.req.encoded {
		p.check(&r.req, req)
	}
	return p.Provider.Chat(ctx, req)
}

// preparedRun runs a 20-iteration turn in a window of numCtx tokens whose
// tenth step reads a file big times sourceFile's size, and checks every
// request (checkPrepared).
func preparedRun(t *testing.T, native bool, numCtx, big int, guessed bool) {
	var seen preparedChecks
	runs := &watchedRuns{}
	o := harnessOpt{ctxLen: numCtx, cfg: Config{MaxIterations: 20},
		runner: func(a *Agent) session.Runner { runs.Agent = a; return runs }}
	o.wrap = func(p llm.Provider) llm.Provider {
		if guessed {
			p = guessedTools{p}
		}
		return checkingProvider{Provider: p, runs: runs, check: checkPrepared(t, &seen)}
	}
	h := newHarness(t, native, o)
	for i := range 20 {
		h.write(fmt.Sprintf("f%02d.go", i), sourceFile(i))
	}
	h.write("big.go", strings.Repeat(sourceFile(99), big))
	// A prompt with an image, refused (no vision): the turn after has it
	// in its history, its image dropped with a note (dropImages). Not with
	// guessed capabilities, where vision is assumed.
	if !guessed {
		h.write("shot.png", string(testPNG(t)))
		if res := h.prompt("what is in @shot.png?"); res.Status != event.FinishFailed {
			t.Fatalf("image prompt without vision: %s", res.Status)
		}
	}
	step := 0
	h.srv.Handle(func(r *llmtest.Request) llmtest.Response {
		if strings.Contains(r.Messages[0].Content, "You are summarising the earlier part of a coding session") {
			return llmtest.Reply(llmtest.Text("<analysis>CURRENT STATE: reading the files one by one.\nREMAINING WORK: read the rest.</analysis>"))
		}
		step++
		switch {
		case step >= 20:
			return llmtest.Reply(llmtest.Text("All files read. [TASK_COMPLETE]"))
		case step == 10:
			return llmtest.Reply(llmtest.Text("Reading the big one."), h.call("run_terminal_command", `{"command": "cat big.go"}`))
		}
		return llmtest.Reply(llmtest.Text(fmt.Sprintf("Reading file %d.", step)),
			h.call("run_terminal_command", fmt.Sprintf(`{"command": "cat f%02d.go"}`, step)))
	})
	res := h.prompt("read every file f01.go to f19.go and big.go with cat, one per step, then say you are done")
	if res.Status != event.FinishDone || step != 20 {
		t.Fatalf("result %+v after %d steps", res, step)
	}
	compactions := len(payloads[event.Compaction](h.live))
	t.Logf("%d requests checked, %d messages kept, %d trimmed, %d compactions, %d images dropped, %d format switches", seen.requests, seen.kept, seen.trimmed, compactions, seen.noImages, seen.switches)
	if guessed != (seen.switches == 1) {
		t.Fatalf("%d format switches, tools guessed %v", seen.switches, guessed)
	}
	if seen.requests < 20 || seen.kept == 0 || seen.trimmed == 0 || compactions == 0 || (seen.noImages == 0 && !guessed) {
		t.Fatalf("%d requests checked, %d messages kept, %d trimmed, %d compactions, %d images dropped: the run did not exercise what it checks", seen.requests, seen.kept, seen.trimmed, compactions, seen.noImages)
	}
}
