package llm

// NumCtx is the context window olly requests for a model, and which of the
// three inputs decided it: "model" (its trained context, or defaultWindow
// when the server does not report one), "cap" (the person's per-model cap)
// or "agent.maxContextWindow". The per-model cap takes precedence over
// maxWindow in both directions, but neither raises the window past the
// model's own length. One rule, shared by the agent and `olly models`.
func NumCtx(contextLength, defaultWindow, maxWindow, modelCap int) (int, string) {
	own := contextLength
	if own <= 0 {
		own = defaultWindow
	}
	limit, from := maxWindow, "agent.maxContextWindow"
	if modelCap > 0 {
		limit, from = modelCap, "cap"
	}
	if own <= limit {
		return own, "model"
	}
	return limit, from
}
