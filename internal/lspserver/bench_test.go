package lspserver

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/llmtest"
	"github.com/olly-agent/olly/internal/llm/ollama"
	"github.com/olly-agent/olly/internal/lsp"
)

// BenchmarkAddedLatency measures what olly lsp adds to a completion over
// the bare model call: each iteration makes the same /api/generate call
// directly and then asks olly for an inline completion through the
// protocol (pipe, JSON-RPC, snapshot, windows, context, cleaning), against
// the same instant fake model. It reports the p50 and p90 of both and the
// difference of the p50s. The debounce is 0 here: it is a deliberate wait,
// configured separately (completion.debounce).
func BenchmarkAddedLatency(b *testing.B) {
	srv := llmtest.New(b)
	srv.AddModel("qwen2.5-coder:1.5b", llmtest.Caps("completion", "insert"))
	srv.Handle(func(*llmtest.Request) llmtest.Response {
		return llmtest.Reply(llmtest.Text("sum := a + b"), llmtest.Text("\n\treturn sum"))
	})
	set := testSettings()
	set.Model = "qwen2.5-coder:1.5b"
	c := startClient(b, srv, set, clientOpts{})
	c.status()

	// A 10 KB file with the cursor in the middle, and another open file.
	var body strings.Builder
	for i := 0; body.Len() < 10_000; i++ {
		body.WriteString("func f")
		body.WriteString(strings.Repeat("x", i%7))
		body.WriteString("(a, b int) int {\n\treturn a * b\n}\n\n")
	}
	text := "package main\n\n" + body.String()[:5000] + "func add(a, b int) int {\n\t\n}\n\n" + body.String()[5000:]
	line := uint32(strings.Count(text[:strings.Index(text, "func add")], "\n") + 1)
	c.open("file:///w/util.go", "go", "package main\n\n"+body.String())
	c.open(goURI, "go", text)

	p, err := ollama.New(srv.URL(), ollama.WithRetry(llm.RetryPolicy{}))
	if err != nil {
		b.Fatal(err)
	}
	c.inline(goURI, line, 1) // warm both paths' connections
	bareReq := *srv.LastRequest("/api/generate")
	req := &llm.GenerateRequest{Model: bareReq.Model, Prompt: bareReq.Prompt, Suffix: bareReq.Suffix, KeepAlive: "30m", Options: bareReq.Options}

	bare := make([]time.Duration, 0, b.N)
	via := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := drain(p, req); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t0))
		t1 := time.Now()
		if got := c.inline(goURI, line, 1); len(got) != 1 {
			b.Fatalf("completion %q", got)
		}
		via = append(via, time.Since(t1))
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(pct(bare, 50)), "bare-p50-ms")
	b.ReportMetric(ms(pct(via, 50)), "olly-p50-ms")
	b.ReportMetric(ms(pct(via, 90)), "olly-p90-ms")
	b.ReportMetric(ms(pct(via, 50)-pct(bare, 50)), "added-p50-ms")
}

func drain(p llm.Provider, req *llm.GenerateRequest) error {
	st, err := p.Generate(context.Background(), req)
	if err != nil {
		return err
	}
	defer st.Close()
	for {
		if _, err := st.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// BenchmarkBuildPrompt is the CPU work of one completion before the model
// call: windows and the other files' context, for a 10 KB file.
func BenchmarkBuildPrompt(b *testing.B) {
	text := strings.Repeat("func f(a, b int) int {\n\treturn a * b\n}\n\n", 250)
	snap := &snapshot{lang: "go", text: text, offset: len(text) / 2}
	near := []*document{{uri: lsp.DocumentURI("file:///w/a.go"), text: text, near: 100}, {uri: "file:///w/b.go", text: text}}
	set := testSettings()
	b.ReportAllocs()
	for range b.N {
		p := buildPrompt(snap, near, &set)
		_ = clean("return a + b\n}\n", &p)
	}
}
