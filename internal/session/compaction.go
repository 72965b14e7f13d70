package session

import (
	"strings"

	"github.com/olly-agent/olly/internal/llm"
)

// IsSummary reports whether a rendered user message is a compaction
// summary.
func IsSummary(content string) bool { return strings.HasPrefix(content, summaryIntro) }

// CompactionCut says where a compaction of the conversation, as rendered in
// format f, should start keeping messages so that at least the last keep
// messages stay verbatim (the seed keeps the last 6). It returns the seq of
// the first kept event — event.Compaction.FirstKeptSeq — and ok false when
// there is nothing before that point to summarise (a short conversation, or
// one already compacted down to its summary and the kept messages).
//
// The cut never separates a tool result from the call it answers: when the
// kept part would start with (or contain) a result whose assistant message
// falls before the cut, the cut moves back to that assistant message, so
// more than keep messages may stay. (A native tool message without its
// call is refused by OpenAI-compatible servers, and a result without its
// call is noise to every model.)
func (c *Conversation) CompactionCut(f Format, keep int) (firstKeptSeq int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := render(c.entries, f, true, nil, nil)
	if keep < 1 {
		keep = 1
	}
	if len(r.out) <= keep {
		return 0, false
	}
	cut := r.from[len(r.out)-keep]
	cut = c.keepCallsWithResults(cut)
	// Something other than an earlier summary must remain to summarise.
	first := 0
	for first < len(c.entries) && c.entries[first].kind == entrySummary {
		first++
	}
	if cut <= first {
		return 0, false
	}
	return c.entries[cut].seq, true
}

// keepCallsWithResults moves cut back until no kept result answers a call
// made before the cut. Called with c.mu held.
func (c *Conversation) keepCallsWithResults(cut int) int {
	// owner[i] is the last assistant entry with calls before entry i.
	owner := make([]int, len(c.entries))
	last := -1
	for i, e := range c.entries {
		owner[i] = last
		if e.kind == entryAssistant && len(e.calls) > 0 {
			last = i
		}
	}
	for {
		moved := false
		for i := cut; i < len(c.entries); i++ {
			if c.entries[i].kind == entryResult && owner[i] >= 0 && owner[i] < cut {
				cut, moved = owner[i], true
				break
			}
		}
		if !moved {
			return cut
		}
	}
}

// MessagesBefore renders, in format f, what a compaction keeping the
// events from firstKeptSeq on would replace: the earlier summary, if any,
// and every message before the cut. It is the input of the summary.
func (c *Conversation) MessagesBefore(f Format, firstKeptSeq int64) []llm.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var gone []entry
	for _, e := range c.entries {
		if e.kind == entrySummary || e.seq < firstKeptSeq {
			gone = append(gone, e)
		}
	}
	return render(gone, f, false, nil, nil).out
}
