package session

import (
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// controlClose ends an <agent_control> packet; text-format tool results are
// placed just before it.
const controlClose = "</agent_control>"

// summaryIntro introduces a compaction summary to the model.
const summaryIntro = "Summary of the earlier conversation (it was compacted to fit the context window):\n\n"

// notRun is the result given to a native call that has no result in the
// log (the turn was interrupted before it ran): OpenAI-compatible servers
// reject an assistant tool call that no tool message answers.
const notRun = "No result: this call was not run (the turn was interrupted)."

// renderer turns entries into messages for one format.
type renderer struct {
	format        Format
	out           []llm.Message
	lastAssistant int
	// open are the native calls of the last assistant message that no
	// result has answered yet.
	open []llm.ToolCall
	// results are text-format results waiting for the next packet.
	results []string
	// pieces are user-role contents (control messages, orphan results)
	// merged into one user message when the next user or assistant
	// message, or the end, comes.
	pieces []string

	// With track set, from[k] is the index of the entry out[k] starts
	// with (compaction cuts between entries: see CompactionCut). pendFrom
	// is the first entry of the pending pieces and results (-1: none);
	// openFrom is the assistant entry whose calls are open.
	track    bool
	from     []int
	pendFrom int
	openFrom int
	// images loads a user entry's images (nil: none are sent).
	images func(*entry) ([][]byte, string)
}

// push appends a message that starts with entry i.
func (r *renderer) push(m llm.Message, i int) {
	r.out = append(r.out, m)
	if r.track {
		r.from = append(r.from, i)
	}
}

// pend notes that entry i added a piece or a result to the pending user
// message.
func (r *renderer) pend(i int) {
	if r.pendFrom < 0 {
		r.pendFrom = i
	}
}

func (r *renderer) add(i int, e *entry) {
	switch e.kind {
	case entryUser:
		r.flush()
		m := llm.Message{Role: llm.RoleUser, Content: e.text}
		if len(e.images) > 0 && r.images != nil {
			var note string
			m.Images, note = r.images(e)
			m.Content += note
		}
		r.push(m, i)
	case entrySummary:
		r.flush()
		r.push(llm.Message{Role: llm.RoleUser, Content: summaryIntro + e.text}, i)
	case entryAssistant:
		r.flush()
		r.openFrom = i
		r.push(r.assistant(e), i)
	case entryResult:
		r.result(i, e)
	case entryControl:
		// A note or reminder has done its work once the model answered
		// after it; kept, they pile up and the model re-reads stale
		// instructions every iteration (seed pitfall #37, R5).
		if (e.control == event.ControlNote || e.control == event.ControlReminder) && i < r.lastAssistant {
			return
		}
		r.pend(i)
		r.pieces = append(r.pieces, e.text)
	}
}

func (r *renderer) assistant(e *entry) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: e.text}
	if len(e.calls) == 0 {
		return m
	}
	if r.format == FormatText {
		// No structured calls in this format: a line says which tools were
		// called (never both forms on one message — pitfall #37, R3).
		names := make([]string, len(e.calls))
		for i, c := range e.calls {
			names[i] = c.Name
		}
		m.Content = strings.TrimRight(m.Content, "\n") + "\n[Called:] " + strings.Join(names, ", ")
		return m
	}
	// Native: only the model's own text goes with the calls, "" when it
	// wrote none. Chat templates of the qwen2.5 family render a non-empty
	// content *instead of* the tool calls, so a summary here ("I ran
	// `echo …`") would hide from the model the call it made.
	// The entry's own calls, never modified: not copied for every request
	// (an append by the reader copies, the capacity is clipped).
	m.Content = e.own
	m.ToolCalls = e.calls[:len(e.calls):len(e.calls)]
	r.open = append(r.open[:0], e.calls...)
	return m
}

func (r *renderer) result(i int, e *entry) {
	if r.format == FormatText {
		r.pend(i)
		r.results = append(r.results, textResult(e.toolName, e.text))
		return
	}
	for j, c := range r.open {
		if (e.callID != "" && c.ID == e.callID) || (e.callID == "" && c.Name == e.toolName) {
			r.push(llm.Message{Role: llm.RoleTool, Content: e.text, ToolName: e.toolName, ToolCallID: c.ID}, i)
			r.open = append(r.open[:j], r.open[j+1:]...)
			return
		}
	}
	// A result that answers no call (its assistant message was compacted
	// away): a tool message here would be refused, so it travels as text.
	r.pend(i)
	r.pieces = append(r.pieces, textResult(e.toolName, e.text))
}

// flush ends the run of tool results and control messages since the last
// user or assistant message.
func (r *renderer) flush() {
	for _, c := range r.open {
		r.push(llm.Message{Role: llm.RoleTool, Content: notRun, ToolName: c.Name, ToolCallID: c.ID}, r.openFrom)
	}
	r.open = r.open[:0]
	pieces := r.pieces
	if len(r.results) > 0 {
		pieces = withResults(pieces, r.results)
	}
	if len(pieces) > 0 {
		r.push(llm.Message{Role: llm.RoleUser, Content: strings.Join(pieces, "\n\n")}, r.pendFrom)
	}
	// The slices are reused for the next run (Join and withResults made
	// their own): a new one per packet was most of a render's allocations.
	clear(r.pieces)
	clear(r.results)
	r.pieces, r.results, r.pendFrom = r.pieces[:0], r.results[:0], -1
}

// textResult is one result in the text format.
func textResult(name, content string) string {
	if name == "" {
		name = "tool"
	}
	return "[" + name + " result]\n" + content
}

// withResults puts text-format results inside the last <agent_control>
// packet of pieces, after its JSON, so the anti-repetition line after the
// packet stays the last thing the model reads. Results are plain text, not
// a JSON string: escaped, source code would reach the model as one line of
// \n and \" sequences. Without a packet they get one of their own, first.
func withResults(pieces, results []string) []string {
	block := strings.Join(results, "\n\n")
	out := append([]string(nil), pieces...)
	for i := len(out) - 1; i >= 0; i-- {
		if k := strings.LastIndex(out[i], controlClose); k >= 0 {
			out[i] = out[i][:k] + "\n" + block + "\n" + out[i][k:]
			return out
		}
	}
	return append([]string{"<agent_control>\n" + block + "\n" + controlClose}, out...)
}
