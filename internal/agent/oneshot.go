package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/olly-agent/olly/internal/llm"
)

// oneShot is a short model call beside the loop: the prompt's
// classification, a compaction summary, a session title. It has a system
// and a user message, no tools and no reasoning.
type oneShot struct {
	model, system, user string
	// numCtx is the turn's num_ctx for the model: another value would make
	// Ollama load the model again.
	numCtx int
	// thinks: the model reasons unless told not to (think: false).
	thinks      bool
	temperature float64
	numPredict  int
	// keepAlive overrides agent.keepAlive ("": the setting).
	keepAlive string
	// format asks for structured output (nil: text).
	format json.RawMessage
	// limit bounds the answer in bytes (0: no bound).
	limit int
	// retry asks once more when the server ended the answer before
	// anything arrived (the classification and the title: short calls
	// with a fallback, where a second try is cheap).
	retry bool
}

// ask makes a one-shot call and returns the answer's text.
func (a *Agent) ask(ctx context.Context, q oneShot) (string, error) {
	keep := q.keepAlive
	if keep == "" {
		keep = a.using(ctx).cfg.KeepAlive
	}
	req := &llm.ChatRequest{Model: q.model, Format: q.format, KeepAlive: keep, Truncate: llm.Ptr(false),
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: strings.TrimSpace(q.system)}, {Role: llm.RoleUser, Content: strings.TrimSpace(q.user)}},
		Options:  llm.Options{NumCtx: llm.Ptr(q.numCtx), Temperature: llm.Ptr(q.temperature), NumPredict: llm.Ptr(q.numPredict)}}
	if q.thinks {
		req.Think = &llm.Think{Enabled: false}
	}
	text, err := a.complete(ctx, req, q.limit)
	if q.retry && errors.Is(err, llm.ErrEndedEarly) && ctx.Err() == nil {
		// A model that repeated itself until the server stopped it
		// (before anything useful arrived) is likely to do it again with
		// the same sampling: the retry discourages repeats.
		req.Options.RepeatPenalty = llm.Ptr(1.3)
		text, err = a.complete(ctx, req, q.limit)
	}
	return text, err
}

// complete runs a request and returns its answer text (reasoning
// dropped). limit > 0 bounds the answer: a longer one is an error, so a
// model that rambles cannot hold a short call up. A stream the server
// ended early (it stopped a model that was repeating itself — a JSON
// answer followed by endless blank lines is typical) gives the text that
// arrived, if any.
func (a *Agent) complete(ctx context.Context, req *llm.ChatRequest, limit int) (string, error) {
	stream, err := a.using(ctx).provider.Chat(ctx, req)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	var b strings.Builder
	for {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if errors.Is(err, llm.ErrEndedEarly) && strings.TrimSpace(b.String()) != "" {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		b.WriteString(c.Content)
		if limit > 0 && b.Len() > limit {
			return "", fmt.Errorf("the answer passed %d bytes, far more than was asked for", limit)
		}
		if c.Done {
			return b.String(), nil
		}
	}
}
