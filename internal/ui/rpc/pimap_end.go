package rpc

import "github.com/olly-agent/olly/rpcproto"
import "github.com/olly-agent/olly/internal/event"

// How messages, pi turns and runs end in the pi mapping: a final answer,
// an error, a cancellation, the end of a run.

// final handles the final_message: the text of a final answer that the
// iteration's assistant_message left to it, or a summary written after a
// tool batch (a message of its own).
func (m *piMapper) final(out *emitter, text string, ts int64) {
	r := m.run
	if r.msgOpen && r.complete && len(r.calls) == 0 {
		m.setText(out, text)
		m.endText(out)
		m.flush(out)
		return
	}
	m.flush(out)
	m.endTurn(out)
	m.iteration(out, r.iter+1, ts)
	m.setText(out, text)
	m.endText(out)
	r.msg.StopReason = rpcproto.PiStopStop
	r.complete = true
	m.flush(out)
}

// fail ends the open assistant message with an error, or records one
// when the model never answered (the server could not be reached).
func (m *piMapper) fail(out *emitter, message string, ts int64) {
	r := m.run
	if !r.msgOpen {
		m.flush(out)
		m.iteration(out, r.iter+1, ts)
	}
	m.endOpen(out, rpcproto.PiStopError, message)
}

// endOpen ends the open assistant message as error or aborted.
func (m *piMapper) endOpen(out *emitter, reason, message string) {
	r := m.run
	if !r.msgOpen {
		return
	}
	m.endThinking(out)
	m.endText(out)
	r.msg.StopReason, r.msg.ErrorMessage = reason, message
	msg := r.msg.Clone()
	m.update(out, rpcproto.PiAssistantEvent{Type: "error", Reason: reason, Error: msg})
	out.add(rpcproto.PiMessageEvent{Type: rpcproto.PiMessageEnd, Message: msg})
	r.messages = append(r.messages, *msg)
	r.msgOpen = false
}

// endTurn writes turn_end for the pi turn in progress.
func (m *piMapper) endTurn(out *emitter) {
	r := m.run
	if !r.inTurn {
		return
	}
	results := r.results
	if results == nil {
		results = []rpcproto.PiMessage{}
	}
	out.add(rpcproto.PiTurnEndEvent{Type: rpcproto.PiTurnEnd, Message: r.msg.Clone(), ToolResults: results})
	iter := r.iter
	r.resetTurn()
	r.iter = iter
}

// endRun closes the run: an assistant message cut off (reason: aborted or
// error; "" ends a complete one normally), the turn, then agent_end.
func (m *piMapper) endRun(out *emitter, reason string) {
	r := m.run
	if r.msgOpen && (!r.complete || reason != "") {
		// Streaming was cut off (the turn was canceled or failed while
		// the message was being written, or before it got its record).
		if reason == "" {
			reason = rpcproto.PiStopAborted
		}
		m.endOpen(out, reason, "")
	}
	m.flush(out)
	m.endTurn(out)
	msgs := r.messages
	if msgs == nil {
		msgs = []rpcproto.PiMessage{}
	}
	out.add(rpcproto.PiAgentEndEvent{Type: rpcproto.PiAgentEnd, Messages: msgs})
	m.run = nil
}

// piMessages is the conversation of events as pi messages (get_messages):
// every message the mapper ends, commands the person ran included, and
// the message still being written when the events stop mid-turn.
func piMessages(events []event.Event, provider string) []rpcproto.PiMessage {
	m := newPiMapper(provider, true)
	out := []rpcproto.PiMessage{}
	for _, ev := range events {
		for _, pe := range m.Map(ev) {
			if me, ok := pe.(rpcproto.PiMessageEvent); ok && me.Type == rpcproto.PiMessageEnd {
				out = append(out, *me.Message)
			}
		}
	}
	if m.run != nil && m.run.msgOpen {
		out = append(out, *m.run.msg.Clone())
	}
	return out
}
