package agent

import (
	"bytes"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/llm"
)

// countedMessages makes the estimate of a request cost next to nothing per
// message it shares with the last one: each message's categories are kept
// at its position, and a request whose message at that position is the
// same (its strings the same memory: a pointer comparison; its calls'
// arguments compared with a copy, as they are bytes) takes them as they
// are, without looking anything up. The tokenCache still counts each
// string once when a message is new or moved (a compaction).
type countedMessages struct {
	prev []countedMessage
}

type countedMessage struct {
	m    llm.Message // as counted; its calls and their arguments copied
	cats event.TokenCategories
	// sum is the categories of the messages at positions 1 to this one
	// (the system message, at 0, is counted apart: it changes when the
	// memory block does).
	sum event.TokenCategories
}

// sum returns the categories of msgs, a request whose messages 1 to same
// are those of the last request summed (the caller knows: they were kept
// in its slice, session.Render): their sum is taken as it is, and only the
// system message and the messages after them are looked at. With same 0
// every message is compared with the last request's at its position.
func (c *countedMessages) sum(tc *tokenCache, msgs []llm.Message, same int) event.TokenCategories {
	start := 0
	var total event.TokenCategories
	if same > 0 && same < len(msgs) && same < len(c.prev) {
		total = c.prev[same].sum
		addCategories(&total, c.of(tc, 0, &msgs[0]))
		start = same + 1
	}
	for i := start; i < len(msgs); i++ {
		mc := c.of(tc, i, &msgs[i])
		addCategories(&total, mc)
		if i > 0 {
			c.prev[i].sum = c.prev[i-1].sum
			addCategories(&c.prev[i].sum, mc)
		}
	}
	c.keep(len(msgs))
	return total
}

// addCategories adds the message categories of b to a.
func addCategories(a *event.TokenCategories, b event.TokenCategories) {
	a.System += b.System
	a.Messages += b.Messages
	a.ToolResults += b.ToolResults
	a.Files += b.Files
}

// of returns the categories of m, the request's message at position i.
func (c *countedMessages) of(tc *tokenCache, i int, m *llm.Message) event.TokenCategories {
	if i < len(c.prev) && sameCounted(&c.prev[i].m, m) {
		return c.prev[i].cats
	}
	e := countedMessage{m: llm.Message{Role: m.Role, Content: m.Content}, cats: categorize(tc, m)}
	if len(m.ToolCalls) > 0 {
		e.m.ToolCalls = make([]llm.ToolCall, len(m.ToolCalls))
		for j, call := range m.ToolCalls {
			e.m.ToolCalls[j] = llm.ToolCall{Name: call.Name, Arguments: bytes.Clone(call.Arguments)}
		}
	}
	if i < len(c.prev) {
		c.prev[i] = e
	} else {
		c.prev = append(c.prev, e)
	}
	return e.cats
}

// keep forgets the messages from position n on.
func (c *countedMessages) keep(n int) {
	if n < len(c.prev) {
		clear(c.prev[n:])
		c.prev = c.prev[:n]
	}
}

// sameCounted reports whether b estimates as a (what the estimate reads:
// role, content, the calls' names and arguments).
func sameCounted(a, b *llm.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for j := range a.ToolCalls {
		if a.ToolCalls[j].Name != b.ToolCalls[j].Name || !bytes.Equal(a.ToolCalls[j].Arguments, b.ToolCalls[j].Arguments) {
			return false
		}
	}
	return true
}

// categorize estimates one message by category.
func categorize(tc *tokenCache, m *llm.Message) (c event.TokenCategories) {
	switch m.Role {
	case llm.RoleSystem:
		c.System = estimateMessage(tc, m)
	case llm.RoleTool:
		c.ToolResults = estimateMessage(tc, m)
	case llm.RoleUser:
		msgs, results, files := splitUser(tc, m.Content)
		c.Messages, c.ToolResults, c.Files = msgs+messageOverhead, results, files
	default:
		c.Messages = estimateMessage(tc, m)
	}
	return c
}
