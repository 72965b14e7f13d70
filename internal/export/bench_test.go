package export

import (
	"fmt"
	"io"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

// bigSession is n turns, each with thinking, text, a group of three
// actions with output, changed files and a final message (≈14 events).
func bigSession(n int) []event.Event {
	var evs []event.Event
	seq := int64(0)
	add := func(turn int, p event.Payload) {
		seq++
		evs = append(evs, event.Event{Session: "s", Seq: seq, Turn: turn, At: t0, Data: p})
	}
	for turn := 1; turn <= n; turn++ {
		g := fmt.Sprintf("g%d", turn)
		add(turn, event.TurnStarted{Mode: "agent", Model: "qwen3:8b"})
		add(turn, event.UserMessage{Text: "please refactor the parser so that it handles nested blocks and reports errors with positions"})
		add(turn, event.ThinkingBlock{Iteration: 1, Content: "I should read the parser first, then the tests, then change the block handling.", DurationMs: 2100})
		add(turn, event.AssistantMessage{Iteration: 1, Text: "I'll look at the parser and its tests."})
		add(turn, event.ProgressGroupStart{GroupID: g, Title: "Running commands"})
		for i := 0; i < 3; i++ {
			add(turn, event.ToolAction{GroupID: g, ActionID: fmt.Sprintf("%s-%d", g, i), Tool: "run_terminal_command", Status: event.ActionSuccess,
				Text: "go test ./internal/parser", Output: "ok  \tparser\t0.012s\n--- PASS: TestNested (0.00s)\n<done>\n"})
		}
		add(turn, event.ProgressGroupFinish{GroupID: g})
		add(turn, event.FilesChanged{CheckpointID: "c" + g, Status: "pending", Files: []event.ChangedFile{{Path: "parser.go", Action: "modified", Additions: 12, Deletions: 3}}})
		add(turn, event.FinalMessage{Text: "Nested blocks are parsed and errors carry line and column."})
		add(turn, event.TurnFinished{Status: event.FinishDone, Iterations: 2})
	}
	return evs
}

func benchmarkRender(b *testing.B, render func(io.Writer, Doc) error) {
	evs := bigSession(500)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		doc := Doc{Timeline: timeline.Build(evs)}
		if err := render(io.Discard, doc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs)), "events/op")
}

// BenchmarkExportHTML500Turns: building the timeline of a 500-turn
// session (≈7,000 events) and rendering it as one HTML page.
func BenchmarkExportHTML500Turns(b *testing.B) {
	benchmarkRender(b, HTML)
}

// BenchmarkExportMarkdown500Turns: the same as Markdown.
func BenchmarkExportMarkdown500Turns(b *testing.B) {
	benchmarkRender(b, Markdown)
}

// BenchmarkShowText500Turns: the same as `olly sessions show` prints it.
func BenchmarkShowText500Turns(b *testing.B) {
	benchmarkRender(b, func(w io.Writer, d Doc) error { return Text(w, d, TextOptions{}) })
}
