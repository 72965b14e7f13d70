package agent

import (
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
)

// charsPerToken is the heuristic for estimated token counts; the real
// counts come from the server (prompt_eval_count, eval_count).
const charsPerToken = 4

// fileMessageChars marks a user message as mostly file content (the seed's
// heuristic: over 500 characters).
const fileMessageChars = 500

// usage is the iteration's token_usage event: the server's real counts,
// with an estimated breakdown by category for the context meter.
func (r *run) usage(res *streamResult) event.TokenUsage {
	u := event.TokenUsage{PromptTokens: res.promptTokens, CompletionTokens: res.completionTokens, ContextWindow: r.numCtx}
	u.Categories.System = tokens(len(r.system))
	if r.format == session.FormatNative {
		for _, s := range r.specs {
			u.Categories.ToolDefinitions += tokens(len(s.Name) + len(s.Description) + len(s.Parameters))
		}
	}
	for _, m := range r.t.History.Messages(r.format) {
		n := tokens(len(m.Content))
		switch {
		case m.Role == llm.RoleTool:
			u.Categories.ToolResults += n
		case m.Role == llm.RoleUser && strings.Contains(m.Content, "</agent_control>") && strings.Contains(m.Content, " result]\n"):
			u.Categories.ToolResults += n
		case m.Role == llm.RoleUser && len(m.Content) > fileMessageChars:
			u.Categories.Files += n
		default:
			u.Categories.Messages += n
		}
	}
	if u.PromptTokens == 0 {
		c := u.Categories
		u.PromptTokens, u.Estimated = c.System+c.ToolDefinitions+c.Messages+c.ToolResults+c.Files, true
	}
	if u.CompletionTokens == 0 {
		u.CompletionTokens = tokens(len(res.display) + len(res.thinking))
		u.Estimated = true
	}
	return u
}

func tokens(chars int) int { return (chars + charsPerToken - 1) / charsPerToken }
