package rpc

import (
	"encoding/json"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/rpcproto"
)

// piOutputCap bounds the output kept per running tool call for
// tool_execution_update: a client shows the tail, and the final result
// replaces it.
const piOutputCap = 256 << 10

// piMapper turns olly's events, in order, into the pi agent's lifecycle
// events. It is fed one event at a time (live or replayed) and keeps the
// state of the run in progress; it is not safe for concurrent use.
//
// The mapping: turn_started → agent_start; the first event of an iteration
// (a delta, its thinking or its assistant_message) → turn_start and the
// assistant's message_start; text and thinking deltas → message_update;
// assistant_message → toolcall steps, then (once its token_usage, or the
// final_message that carries a final answer's text, arrived) done and
// message_end; the first tool_action of a call → tool_execution_start;
// tool_output → tool_execution_update with all output so far; tool_result →
// tool_execution_end and the toolResult message; the next iteration, a
// control message or the end → turn_end; turn_finished → agent_end with
// every message of the run. A failed or canceled turn ends its open
// assistant message with stopReason error or aborted.
type piMapper struct {
	provider, api string
	// commands maps the turns of commands the person ran (mode "bash")
	// too; the live stream leaves them out, as pi emits no events for its
	// bash command.
	commands bool
	run      *piRun
}

// piRun is the state of one agent run (one olly turn).
type piRun struct {
	turn     int
	skip     bool
	messages []rpcproto.PiMessage

	// The pi turn (olly iteration) in progress.
	inTurn   bool
	iter     int
	msg      *rpcproto.PiMessage
	msgOpen  bool // message_start written, message_end not yet
	complete bool // assistant_message seen: message_end waits for usage or the final text
	text     int  // index of the text block in msg.Content, -1: none
	thinking int
	textEnd  bool
	thinkEnd bool
	calls    []llm.ToolCall
	started  map[string]bool
	ended    map[string]bool
	actions  map[string]string // action id → call id
	output   map[string]string // call id → output so far
	group    string            // the batch's progress group
	results  []rpcproto.PiMessage
}

func newPiMapper(provider string, commands bool) *piMapper {
	provider, api := piProvider(provider)
	return &piMapper{provider: provider, api: api, commands: commands}
}

// piProvider names olly's model server ("ollama", "openai", "") as pi's
// provider and api fields do.
func piProvider(provider string) (name, api string) {
	switch provider {
	case "openai":
		return provider, "openai-completions"
	case "":
		return "ollama", "ollama"
	}
	return provider, "ollama"
}

// emitter collects the events one olly event maps to.
type emitter []any

func (e *emitter) add(v any) { *e = append(*e, v) }

// Map returns the pi events ev maps to (often none).
func (m *piMapper) Map(ev event.Event) []any {
	var out emitter
	ts := ev.At.UnixMilli()
	if p, ok := ev.Data.(event.TurnStarted); ok {
		m.startRun(&out, ev.Turn, p)
		return out
	}
	r := m.run
	if r == nil || ev.Turn != r.turn {
		return nil // outside a run: titles, settings, keep and undo
	}
	if r.skip {
		if _, ok := ev.Data.(event.TurnFinished); ok {
			m.run = nil
		}
		return nil
	}
	switch p := ev.Data.(type) {
	case event.UserMessage:
		m.flush(&out)
		m.endTurn(&out)
		m.message(&out, rpcproto.PiMessage{Role: rpcproto.PiRoleUser, Content: []rpcproto.PiContent{{Type: "text", Text: p.Text}}, Timestamp: ts})
	case event.TextDelta:
		if m.iteration(&out, p.Iteration, ts) {
			m.appendText(&out, p.Text)
		}
	case event.ThinkingDelta:
		if m.iteration(&out, p.Iteration, ts) {
			m.appendThinking(&out, p.Text)
		}
	case event.ThinkingBlock:
		if m.iteration(&out, p.Iteration, ts) {
			m.setThinking(&out, p.Content)
		}
	case event.AssistantMessage:
		if m.iteration(&out, p.Iteration, ts) {
			m.finishAssistant(&out, p)
		}
	case event.TokenUsage:
		if r.msg != nil {
			r.msg.Usage = &rpcproto.PiUsage{Input: p.PromptTokens, Output: p.CompletionTokens, TotalTokens: p.PromptTokens + p.CompletionTokens}
		}
	case event.FinalMessage:
		m.final(&out, p.Text, ts)
	case event.ProgressGroupStart:
		m.flush(&out)
		if r.group == "" && p.ParentGroupID == "" && len(r.calls) > 0 {
			r.group = p.GroupID
		}
	case event.ToolAction:
		m.flush(&out)
		m.action(&out, p)
	case event.ToolOutput:
		m.toolOutput(&out, p)
	case event.ToolResult:
		m.flush(&out)
		m.result(&out, p, ts)
	case event.ControlMessage, event.Compaction:
		m.flush(&out)
		m.endTurn(&out)
	case event.ModelRetry:
		m.retry(&out, p) // pimap_retry.go
	case event.Error:
		m.fail(&out, p.Message, ts)
	case event.TurnFinished:
		reason := ""
		switch p.Status {
		case event.FinishCanceled:
			reason = rpcproto.PiStopAborted
		case event.FinishFailed:
			reason = rpcproto.PiStopError
		}
		m.endRun(&out, reason)
	}
	return out
}

// startRun opens a pi agent run for an olly turn, ending one left open; a
// person's command (mode bash) is skipped unless commands are mapped.
func (m *piMapper) startRun(out *emitter, turn int, p event.TurnStarted) {
	if m.run != nil && !m.run.skip {
		m.endRun(out, "")
	}
	m.run = &piRun{turn: turn, skip: p.Mode == "bash" && !m.commands}
	m.run.resetTurn()
	if !m.run.skip {
		out.add(rpcproto.PiAgentStartEvent{Type: rpcproto.PiAgentStart})
	}
}

func (r *piRun) resetTurn() {
	r.inTurn, r.msg, r.msgOpen, r.complete = false, nil, false, false
	r.text, r.thinking, r.textEnd, r.thinkEnd = -1, -1, false, false
	r.calls, r.group, r.results = nil, "", nil
	r.started, r.ended = map[string]bool{}, map[string]bool{}
	r.actions, r.output = map[string]string{}, map[string]string{}
}

// iteration makes sure iteration n's pi turn and assistant message are
// open, and reports false for an event of an earlier iteration (stale).
func (m *piMapper) iteration(out *emitter, n int, ts int64) bool {
	r := m.run
	if r.inTurn && r.iter == n && r.msg != nil {
		return true
	}
	if r.inTurn && n < r.iter {
		return false
	}
	m.flush(out)
	if r.inTurn && r.iter != n {
		m.endTurn(out)
	}
	if !r.inTurn {
		out.add(rpcproto.PiTurnStartEvent{Type: rpcproto.PiTurnStart})
		r.inTurn = true
	}
	r.iter = n
	r.msg = &rpcproto.PiMessage{Role: rpcproto.PiRoleAssistant, Content: []rpcproto.PiContent{}, API: m.api, Provider: m.provider, Timestamp: ts}
	r.msgOpen, r.complete = true, false
	out.add(rpcproto.PiMessageEvent{Type: rpcproto.PiMessageStart, Message: r.msg.Clone()})
	return true
}

// update writes a message_update step of the open assistant message.
func (m *piMapper) update(out *emitter, step rpcproto.PiAssistantEvent) {
	msg := m.run.msg.Clone()
	if step.Type != "done" && step.Type != "error" {
		step.Partial = msg
	}
	out.add(rpcproto.PiMessageUpdateEvent{Type: rpcproto.PiMessageUpdate, Message: msg, AssistantMessageEvent: &step})
}

func index(i int) *int { return &i }

func (m *piMapper) appendText(out *emitter, delta string) {
	r := m.run
	if r.text < 0 {
		m.endThinking(out)
		r.msg.Content = append(r.msg.Content, rpcproto.PiContent{Type: "text"})
		r.text = len(r.msg.Content) - 1
		m.update(out, rpcproto.PiAssistantEvent{Type: "text_start", ContentIndex: index(r.text)})
	}
	if delta == "" {
		return
	}
	r.msg.Content[r.text].Text += delta
	m.update(out, rpcproto.PiAssistantEvent{Type: "text_delta", ContentIndex: index(r.text), Delta: delta})
}

// setText makes the text block hold text, streaming what it lacks.
func (m *piMapper) setText(out *emitter, text string) {
	r := m.run
	if r.text < 0 {
		m.appendText(out, text)
		return
	}
	cur := r.msg.Content[r.text].Text
	if rest, ok := strings.CutPrefix(text, cur); ok {
		m.appendText(out, rest)
		return
	}
	r.msg.Content[r.text].Text = text
}

func (m *piMapper) endText(out *emitter) {
	r := m.run
	if r.text >= 0 && !r.textEnd {
		r.textEnd = true
		m.update(out, rpcproto.PiAssistantEvent{Type: "text_end", ContentIndex: index(r.text), Content: r.msg.Content[r.text].Text})
	}
}

func (m *piMapper) appendThinking(out *emitter, delta string) {
	r := m.run
	if r.thinking < 0 {
		r.msg.Content = append(r.msg.Content, rpcproto.PiContent{Type: "thinking"})
		r.thinking = len(r.msg.Content) - 1
		m.update(out, rpcproto.PiAssistantEvent{Type: "thinking_start", ContentIndex: index(r.thinking)})
	}
	if delta == "" {
		return
	}
	r.msg.Content[r.thinking].Thinking += delta
	m.update(out, rpcproto.PiAssistantEvent{Type: "thinking_delta", ContentIndex: index(r.thinking), Delta: delta})
}

// setThinking sets the iteration's reasoning to its final content (the
// thinking_block, which replays without the deltas) and ends the block.
func (m *piMapper) setThinking(out *emitter, content string) {
	r := m.run
	cur := ""
	if r.thinking >= 0 {
		cur = r.msg.Content[r.thinking].Thinking
	}
	if rest, ok := strings.CutPrefix(content, cur); ok {
		m.appendThinking(out, rest)
	} else {
		r.msg.Content[r.thinking].Thinking = content
	}
	r.thinkEnd = false
	m.endThinking(out)
}

func (m *piMapper) endThinking(out *emitter) {
	r := m.run
	if r.thinking >= 0 && !r.thinkEnd {
		r.thinkEnd = true
		m.update(out, rpcproto.PiAssistantEvent{Type: "thinking_end", ContentIndex: index(r.thinking), Content: r.msg.Content[r.thinking].Thinking})
	}
}

// finishAssistant completes the iteration's message from its durable
// record: the displayed text, then one block per tool call.
func (m *piMapper) finishAssistant(out *emitter, p event.AssistantMessage) {
	r := m.run
	if p.Text != "" {
		m.setText(out, p.Text)
	}
	m.endThinking(out)
	if p.Text != "" || len(p.ToolCalls) > 0 {
		// Without either, this is a final answer whose text olly moved to
		// the final_message that follows: the block stays open for it.
		m.endText(out)
	}
	for _, c := range p.ToolCalls {
		call := rpcproto.PiContent{Type: "toolCall", ID: c.ID, Name: c.Name, Arguments: args(c.Arguments)}
		r.msg.Content = append(r.msg.Content, call)
		i := len(r.msg.Content) - 1
		m.update(out, rpcproto.PiAssistantEvent{Type: "toolcall_start", ContentIndex: index(i)})
		m.update(out, rpcproto.PiAssistantEvent{Type: "toolcall_end", ContentIndex: index(i), ToolCall: &call})
	}
	r.msg.Model = p.Model
	r.msg.StopReason = rpcproto.PiStopStop
	if len(p.ToolCalls) > 0 {
		r.msg.StopReason = rpcproto.PiStopToolUse
	}
	r.calls = p.ToolCalls
	r.complete = true
}

// args is a call's arguments as a JSON object (pi's arguments are never
// null).
func args(raw json.RawMessage) json.RawMessage {
	if len(strings.TrimSpace(string(raw))) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`)
	}
	return raw
}

// flush ends a complete assistant message: done, then message_end.
func (m *piMapper) flush(out *emitter) {
	r := m.run
	if !r.msgOpen || !r.complete {
		return
	}
	m.endText(out)
	msg := r.msg.Clone()
	m.update(out, rpcproto.PiAssistantEvent{Type: "done", Reason: msg.StopReason, Message: msg})
	out.add(rpcproto.PiMessageEvent{Type: rpcproto.PiMessageEnd, Message: msg})
	r.messages = append(r.messages, *msg)
	r.msgOpen = false
}

// message writes a whole non-streamed message (user, tool result).
func (m *piMapper) message(out *emitter, msg rpcproto.PiMessage) {
	out.add(rpcproto.PiMessageEvent{Type: rpcproto.PiMessageStart, Message: msg.Clone()})
	out.add(rpcproto.PiMessageEvent{Type: rpcproto.PiMessageEnd, Message: msg.Clone()})
	m.run.messages = append(m.run.messages, msg)
}
