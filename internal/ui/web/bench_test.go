package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/olly-agent/olly/internal/event"
)

// benchTurns × about 100 events each: the 5,000-event session of the
// first-paint target.
const benchTurns = 50

// fillSession stores a long session: each turn a prompt, thinking, an
// answer in markdown with code, a group of 45 commands with output, a
// final answer and its token use.
func fillSession(tb testing.TB, s *stack) int {
	tb.Helper()
	ctx := context.Background()
	n := 0
	emit := func(turn int, p event.Payload) {
		if _, err := s.app.Sessions.Emit(ctx, s.sess.ID, turn, p); err != nil {
			tb.Fatal(err)
		}
		n++
	}
	answer := "Here is the plan:\n\n1. read `main.go`\n2. fix **Parse**\n\n```go\nfunc Parse(s string) (int, error) {\n\treturn strconv.Atoi(s)\n}\n```\n"
	for turn := 1; turn <= benchTurns; turn++ {
		emit(turn, event.TurnStarted{Mode: "agent", Model: testModel})
		emit(turn, event.UserMessage{Text: fmt.Sprintf("prompt %d: fix the parser and run the tests", turn)})
		emit(turn, event.ThinkingBlock{Iteration: 1, Content: "The person wants the parser fixed. Read it first.", DurationMs: 1200})
		emit(turn, event.AssistantMessage{Iteration: 1, Text: answer, Content: answer})
		g := fmt.Sprintf("g%d", turn)
		emit(turn, event.ProgressGroupStart{GroupID: g, Title: "Running commands"})
		for a := range 45 {
			id := fmt.Sprintf("a%d-%d", turn, a)
			act := event.ToolAction{GroupID: g, ActionID: id, Tool: "run_terminal_command", Status: event.ActionRunning, Text: fmt.Sprintf("Ran `go test ./pkg%d`", a)}
			emit(turn, act)
			act.Status, act.Output = event.ActionSuccess, strings.Repeat("ok  \tpkg 0.01s\n", 5)
			emit(turn, act)
		}
		emit(turn, event.ProgressGroupFinish{GroupID: g})
		emit(turn, event.FinalMessage{Text: "Fixed **Parse**; the tests pass."})
		emit(turn, event.TokenUsage{PromptTokens: 12000, CompletionTokens: 300, ContextWindow: 32768,
			Categories: event.TokenCategories{System: 1000, ToolDefinitions: 600, Messages: 8000, ToolResults: 2400}})
		emit(turn, event.TurnFinished{Status: event.FinishDone, Iterations: 2})
	}
	return n
}

// BenchmarkTimelineFirstFrame is the server's part of the first paint:
// read the 5,000 stored events, build the timeline, render and encode the
// first frame (ms/first-frame: what the page waits for), then the rest.
func BenchmarkTimelineFirstFrame(b *testing.B) {
	s := newStack(b, nil)
	n := fillSession(b, s)
	ctx := context.Background()
	b.ReportAllocs()
	var size, firstBytes int
	var firstMs float64
	for b.Loop() {
		start := time.Now()
		stored, err := s.app.Sessions.History(ctx, s.sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		// A fresh renderer each time: no cached markdown.
		r, err := newItemRenderer()
		if err != nil {
			b.Fatal(err)
		}
		v := newView(r, s.sess.ID)
		for _, ev := range stored {
			v.apply(ev, time.Time{})
		}
		size = 0
		if err := v.reset(func(f *TimelineFrame) error {
			j, err := json.Marshal(f)
			if f.Reset {
				// What the page waits for: the first frame, encoded.
				firstMs += float64(time.Since(start).Microseconds()) / 1000
				firstBytes = len(j)
			}
			size += len(f.Items)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "events")
	b.ReportMetric(float64(size), "items")
	b.ReportMetric(firstMs/float64(b.N), "ms/first-frame")
	b.ReportMetric(float64(firstBytes)/1024, "KB/first-frame")
}

// BenchmarkFirstPaint5000 opens the page on a 5,000-event session in
// headless Chromium: from navigation start to the frame after the
// timeline was put in place (performance.now() in the page).
func BenchmarkFirstPaint5000(b *testing.B) {
	browser := newBrowser(b)
	s := newStack(b, nil)
	events := fillSession(b, s)
	url := s.url + "&session=" + s.sess.ID
	var paint, loaded, connected, timeline float64
	for b.Loop() {
		run(b, browser, chromedp.Navigate(url), waitFor(`window.ollyStats && ollyStats.paintMs > 0`))
		paint += value(b, browser, chromedp.Evaluate[float64](`ollyStats.paintMs`))
		loaded += value(b, browser, chromedp.Evaluate[float64](`performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`))
		connected += value(b, browser, chromedp.Evaluate[float64](`ollyStats.firstFrameMs`))
		timeline += value(b, browser, chromedp.Evaluate[float64](`ollyStats.recvMs`))
	}
	// The parts: the page and its modules loaded, the first frame over
	// the WebSocket, the first timeline frame, the paint after it.
	n := float64(b.N)
	b.ReportMetric(paint/n, "ms/first-paint")
	b.ReportMetric(loaded/n, "ms/loaded")
	b.ReportMetric(connected/n, "ms/connected")
	b.ReportMetric(timeline/n, "ms/timeline-received")
	b.ReportMetric(float64(events), "events")
}

// BenchmarkEventToDOM measures a streamed text delta from Emit to the
// moment the page put the changed message in place (both clocks are this
// machine's), in a running turn of a session with history.
func BenchmarkEventToDOM(b *testing.B) {
	browser := newBrowser(b)
	s := newStack(b, nil)
	ctx := context.Background()
	turn := 1
	if _, err := s.app.Sessions.Emit(ctx, s.sess.ID, turn, event.TurnStarted{Mode: "agent", Model: testModel}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.app.Sessions.Emit(ctx, s.sess.ID, turn, event.UserMessage{Text: "stream"}); err != nil {
		b.Fatal(err)
	}
	s.open(b, browser)
	var total float64
	for i := 0; b.Loop(); i++ {
		frames := value(b, browser, chromedp.Evaluate[int](`ollyStats.frames`))
		start := time.Now()
		if _, err := s.app.Sessions.Emit(ctx, s.sess.ID, turn, event.TextDelta{Iteration: 1, Text: fmt.Sprintf("word %d ", i)}); err != nil {
			b.Fatal(err)
		}
		run(b, browser, waitFor(fmt.Sprintf(`ollyStats.frames > %d`, frames)))
		applied := value(b, browser, chromedp.Evaluate[float64](`ollyStats.appliedAt`))
		total += applied - float64(start.UnixNano())/1e6
	}
	b.ReportMetric(total/float64(b.N), "ms/event-to-dom")
}
