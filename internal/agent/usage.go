package agent

import (
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// Token usage (seed 000, "Token Category Breakdown"): after each
// iteration a token_usage event gives the server's real counts
// (prompt_eval_count, eval_count) and a breakdown of the prompt by where
// it came from — system prompt, tool definitions, conversation messages,
// tool results, attached files, instruction files. The breakdown is estimated per message
// (usage_estimate.go) and scaled so its categories add up to the real
// prompt count; without a real count the estimate itself is reported,
// marked Estimated.

// attachmentMarker is in the label of every @path attachment block
// (context.go), which is how a user message is recognised as file content.
const attachmentMarker = "(already provided — do not re-read):"

// textResultMarker ends the label of a text-format tool result inside an
// <agent_control> packet ("[read_file result]\n").
const textResultMarker = " result]\n"

// requestEstimate is the estimated size of one request, by category.
type requestEstimate struct {
	cats  event.TokenCategories
	total int
}

// estimate estimates req by category. In the text format the tool
// descriptions are part of the system prompt; they count as tool
// definitions. Each string is counted once per run (tokenCache), and
// each message once while it stays at its position: same of the messages
// after the system message are known to be the last estimated request's
// (session.Render), and their sum is taken as it is (countedMessages.sum).
func (cs *contextState) estimate(req *llm.ChatRequest, same int) requestEstimate {
	tc := &cs.tokens
	c := cs.counted.sum(tc, req.Messages, same)
	c.ToolDefinitions = estimateTools(tc, req.Tools)
	tc.sweep()
	moved := min(cs.textTools, c.System)
	c.System -= moved
	c.ToolDefinitions += moved
	moved = min(cs.instructions, c.System)
	c.System -= moved
	c.Instructions += moved
	return requestEstimate{cats: c, total: c.System + c.ToolDefinitions + c.Messages + c.ToolResults + c.Files + c.Instructions}
}

// splitUser estimates a user message by category: attached files, the
// text-format tool results inside a continuation packet, and the rest.
func splitUser(c *tokenCache, content string) (msgs, results, files int) {
	if strings.Contains(content, attachmentMarker) {
		// The attachments come first and the prompt last; the prompt is
		// a few words against whole files.
		return 0, 0, c.tokens(content)
	}
	if k := strings.Index(content, textResultMarker); k >= 0 {
		start := strings.LastIndexByte(content[:k], '[')
		end := strings.LastIndex(content, "</agent_control>")
		if start >= 0 && end > start {
			return c.tokens(content[:start]) + c.tokens(content[end:]), c.tokens(content[start:end]), 0
		}
	}
	return c.tokens(content), 0, 0
}

// usage is the iteration's token_usage event (contextState.usage); a
// calibration it learned is kept for the model's next turns.
func (r *run) usage(res *streamResult) event.TokenUsage {
	u, learned := r.cs.usage(res)
	if learned {
		r.a.setModelRatio(r.model, r.cs.ratio)
	}
	return u
}

// usage is the token_usage event of the response res. The breakdown
// describes the request this response answered (prepare recorded its
// estimate), scaled to the server's prompt count; that count also
// calibrates the next estimates (learned).
func (cs *contextState) usage(res *streamResult) (u event.TokenUsage, learned bool) {
	est := cs.last
	u = event.TokenUsage{PromptTokens: res.promptTokens, CompletionTokens: res.completionTokens, ContextWindow: cs.numCtx}
	switch {
	case cs.trusted(u.PromptTokens, est.total, cs.numCtx):
		u.Categories = scaleCategories(est.cats, est.total, u.PromptTokens)
		cs.calibrate(u.PromptTokens, est.total)
		learned = true
	case u.PromptTokens > 0:
		// The server cut the prompt (its count is of what it kept): the
		// person is shown what was sent, never less, and the next
		// request is compacted first.
		cs.serverCut, cs.cutCount = true, u.PromptTokens
		size := max(cs.calibrated(est.total), u.PromptTokens)
		u.Categories, u.PromptTokens, u.Estimated = scaleCategories(est.cats, est.total, size), size, true
	default:
		size := cs.calibrated(est.total)
		u.Categories, u.PromptTokens, u.Estimated = scaleCategories(est.cats, est.total, size), size, true
	}
	if u.CompletionTokens == 0 {
		u.CompletionTokens = estimateTokens(res.display) + estimateTokens(res.thinking)
		u.Estimated = true
	}
	return u, learned
}

// scaleCategories scales c (which sums to est) to sum to real exactly:
// each category gets its share rounded down, and the tokens left go to the
// largest remainders (the largest-remainder method), so the person's
// meter adds up.
func scaleCategories(c event.TokenCategories, est, real int) event.TokenCategories {
	if est <= 0 {
		return event.TokenCategories{System: real}
	}
	vals := [6]*int{&c.System, &c.ToolDefinitions, &c.Messages, &c.ToolResults, &c.Files, &c.Instructions}
	var rem [6]int
	sum := 0
	for i, v := range vals {
		prod := *v * real
		*v, rem[i] = prod/est, prod%est
		sum += *v
	}
	for left := real - sum; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		*vals[best]++
		rem[best] = -1
	}
	return c
}
