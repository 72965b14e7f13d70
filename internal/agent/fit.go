package agent

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/llm"
)

// Fitting a request to the window when compacting was not enough (the
// kept messages alone are too large: a few big tool results in a small
// window). Only this request is changed, never the history: the next
// compaction summarises the results in full.

// promptLimit is the most the prompt may take of the window: the rest is
// kept for the answer (agentMode.maxTokens, at most a quarter of the
// window; an eighth when no limit is set).
func (cs *contextState) promptLimit() int {
	reserve := cs.numCtx / 8
	if cs.maxTokens > 0 {
		reserve = min(cs.maxTokens, cs.numCtx/4)
	}
	return cs.numCtx - reserve
}

// trimKeep is how much of a shortened result is kept (bytes, head and
// tail together).
const trimKeep = 600

// trimResults shortens the tool results of req, oldest first, until its
// estimate fits limit; the last message (in the text format it holds the
// newest results) only when the older ones were not enough. A shortened
// result keeps its head and tail and says how much was cut and how to get
// it back.
func (cs *contextState) trimResults(req *llm.ChatRequest, est requestEstimate, limit int) (*llm.ChatRequest, requestEstimate) {
	msgs := req.Messages
	for i := 1; i < len(msgs) && cs.fitSize(est.total) > limit; i++ {
		m := &msgs[i]
		isResult := m.Role == llm.RoleTool || (m.Role == llm.RoleUser && strings.Contains(m.Content, textResultMarker))
		if !isResult || len(m.Content) <= 2*trimKeep {
			continue
		}
		m.Content = shorten(m.Content, trimKeep)
		est = cs.estimate(req, 0) // message i changed: no kept prefix
	}
	return req, est
}

// shorten keeps the first two thirds of keep bytes of s and the last third,
// on rune boundaries, with a note between them.
func shorten(s string, keep int) string {
	head, tail := keep*2/3, keep/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	t := len(s) - tail
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:head] + fmt.Sprintf("\n…[%d bytes left out to fit the context window; run the tool again to see them]…\n", t-head) + s[t:]
}
