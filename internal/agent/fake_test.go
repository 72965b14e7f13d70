package agent

import (
	"context"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/llm"
)

// memProvider is an in-process model: each Chat takes the next scripted
// response (or asks next). No HTTP, no goroutines: for the stream
// processor's unit tests, fuzzing and the overhead benchmarks.
type memProvider struct {
	mu      sync.Mutex
	replies [][]llm.ChatChunk
	next    func(req *llm.ChatRequest) []llm.ChatChunk
	reqs    []*llm.ChatRequest
	details llm.ModelDetails
	keep    bool // do not record requests (benchmarks)
	// onRecv runs before each chunk is returned (tests advance clocks).
	onRecv func(i int)
}

func (p *memProvider) Dialect() string { return "ollama" }
func (p *memProvider) BaseURL() string { return "mem://" }

func (p *memProvider) Chat(ctx context.Context, req *llm.ChatRequest) (llm.Stream[llm.ChatChunk], error) {
	p.mu.Lock()
	if !p.keep {
		// A copy: the agent reuses the message slice for its next
		// request (llm.Provider.Chat).
		cp := *req
		cp.Messages = slices.Clone(req.Messages)
		p.reqs = append(p.reqs, &cp)
	}
	var chunks []llm.ChatChunk
	switch {
	case len(p.replies) > 0:
		chunks, p.replies = p.replies[0], p.replies[1:]
	case p.next != nil:
		chunks = p.next(req)
	default:
		p.mu.Unlock()
		return nil, &llm.Error{Kind: llm.KindServer, Message: "no scripted reply", Dialect: "ollama"}
	}
	p.mu.Unlock()
	return &memStream{ctx: ctx, chunks: chunks, onRecv: p.onRecv}, nil
}

func (p *memProvider) Generate(context.Context, *llm.GenerateRequest) (llm.Stream[llm.GenerateChunk], error) {
	return nil, &llm.Error{Kind: llm.KindUnsupported}
}
func (p *memProvider) ListModels(context.Context) ([]llm.ModelInfo, error) { return nil, nil }
func (p *memProvider) ShowModel(_ context.Context, model string) (*llm.ModelDetails, error) {
	d := p.details
	d.Name = model
	return &d, nil
}
func (p *memProvider) RunningModels(context.Context) ([]llm.RunningModel, error) { return nil, nil }
func (p *memProvider) Embed(context.Context, *llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return nil, &llm.Error{Kind: llm.KindUnsupported}
}
func (p *memProvider) Version(context.Context) (string, error) { return "mem", nil }

// memStream yields scripted chunks; a chunk with DoneReason "error:" fails.
type memStream struct {
	ctx    context.Context
	chunks []llm.ChatChunk
	i      int
	onRecv func(i int)
}

func (s *memStream) Recv() (llm.ChatChunk, error) {
	if err := s.ctx.Err(); err != nil {
		return llm.ChatChunk{}, &llm.Error{Kind: llm.KindCanceled, Err: err}
	}
	if s.i >= len(s.chunks) {
		return llm.ChatChunk{}, io.EOF
	}
	if s.onRecv != nil {
		s.onRecv(s.i)
	}
	c := s.chunks[s.i]
	s.i++
	if len(c.DoneReason) > 6 && c.DoneReason[:6] == "error:" {
		return llm.ChatChunk{}, &llm.Error{Kind: llm.KindServer, Message: c.DoneReason[6:], Dialect: "ollama", BaseURL: "mem://"}
	}
	return c, nil
}

func (s *memStream) Close() error { return nil }

// textChunks splits text into chunks of n bytes, ending with a done chunk.
func textChunks(text string, n int) []llm.ChatChunk {
	var out []llm.ChatChunk
	for len(text) > 0 {
		k := min(n, len(text))
		out = append(out, llm.ChatChunk{Content: text[:k]})
		text = text[k:]
	}
	return append(out, llm.ChatChunk{Done: true, DoneReason: llm.DoneStop})
}

// manualClock is a clock whose ticks the test sends.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
	tk  *manualTicker
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *manualClock) NewTicker(time.Duration) Ticker {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tk = &manualTicker{ch: make(chan time.Time)}
	return c.tk
}

// tick delivers one tick and returns once the pump has taken it.
func (c *manualClock) tick() {
	c.mu.Lock()
	tk := c.tk
	c.mu.Unlock()
	if tk != nil {
		select {
		case tk.ch <- c.Now():
		case <-time.After(5 * time.Second):
			panic("tick not taken")
		}
	}
}

type manualTicker struct{ ch chan time.Time }

func (t *manualTicker) C() <-chan time.Time { return t.ch }
func (t *manualTicker) Stop()               {}

// noTicks is a clock whose tickers never tick: deltas then appear only at
// the end of the stream and around durable events, deterministically.
type noTicks struct{ manualClock }

func (c *noTicks) NewTicker(time.Duration) Ticker { return &manualTicker{ch: make(chan time.Time)} }
