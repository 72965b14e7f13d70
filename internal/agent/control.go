package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
)

// Control-plane wording (seed 000, "Agent Control Plane").
const (
	// antiRepetition follows every packet: the last thing the model reads
	// before it answers, where small models (≤30B) actually heed it.
	antiRepetition = "Do NOT repeat your previous response. Proceed directly with tool calls or respond with [TASK_COMPLETE] when finished."
	// truncatedNote continues a response cut off at the output limit.
	truncatedNote = "Your last response was truncated. Continue exactly where you left off."
	// reminderPrefix anchors the task after tool results: after a long file
	// read, small models take the file's content for their task (seed
	// pitfall #32).
	reminderPrefix = "Reminder — your task: "
	// reminderMax bounds the task quoted in the reminder (runes). The full
	// prompt is the first message; repeating all of it every iteration is
	// the redundancy pitfall #37 removed.
	reminderMax = 300
)

// Packet states.
const (
	stateNeedTools = "need_tools"
	stateNeedFixes = "need_fixes"
)

// Notes for the model, by what happened.
const (
	noteToolResults = "Tool results are above. Continue with the next step of your plan."
	noteNoTools     = "Your last response called no tools and did not say [TASK_COMPLETE]. If the task is done, reply with a short summary of what you did and [TASK_COMPLETE]; otherwise call the tools you need."
	noteLast        = " This is your last iteration: finish now, and summarize what is done and what is left."
)

// verdict is what the loop does after a response: finish, or continue with
// a control message of kind (event.Control*) carrying state and note, and
// body inside the packet (diagnostics).
type verdict struct {
	done  bool
	kind  string
	state string
	note  string
	body  string
	// warnings are shown to the person when the turn finishes.
	warnings []string
}

// continueWith is the verdict for carrying on.
func continueWith(state, note string) verdict {
	return verdict{kind: event.ControlContinuation, state: state, note: note}
}

// continueLoop sends what the model needs before its next response: the
// task reminder after tool results, then the continuation (the
// <agent_control> packet and the anti-repetition line). Every continuation
// is built here; nothing else writes one.
func (r *run) continueLoop(ctx context.Context, batch *batchResult, v verdict) {
	for _, w := range v.warnings {
		_ = r.emit(ctx, event.Warning{Message: w, Code: "unverified"})
	}
	// Read-only modes are not reminded: there the repeated task made models
	// restart their analysis (seed pitfall #38); the packet says continue.
	if batch != nil && batch.ran > 0 && !r.mode.readOnly {
		_ = r.emit(ctx, event.ControlMessage{Kind: event.ControlReminder, Content: reminderPrefix + preview(r.t.Input.Text, reminderMax), Iteration: r.iter})
	}
	content := truncatedNote
	if v.kind != event.ControlTruncated {
		content = r.packet(v.state, v.note, v.body)
	}
	_ = r.emit(ctx, event.ControlMessage{Kind: v.kind, Content: content, Iteration: r.iter})
}

// The <agent_control> packets of the three strategies.
type (
	controlMinimal struct {
		State string `json:"state"`
	}
	controlStandard struct {
		State               string `json:"state"`
		Iteration           int    `json:"iteration"`
		RemainingIterations int    `json:"remainingIterations"`
		Note                string `json:"note,omitempty"`
	}
	controlFull struct {
		State               string   `json:"state"`
		Iteration           int      `json:"iteration"`
		MaxIterations       int      `json:"maxIterations"`
		RemainingIterations int      `json:"remainingIterations"`
		FilesChanged        []string `json:"filesChanged"`
		Note                string   `json:"note,omitempty"`
	}
)

// packet renders the <agent_control> continuation for the configured
// strategy: full (iteration budget, changed files, note), standard (budget
// and note) or minimal (state only).
func (r *run) packet(state, note, body string) string {
	remaining := r.cfg.MaxIterations - r.iter
	if remaining == 1 && note != "" {
		note += noteLast
	}
	var v any
	switch r.cfg.ContinuationStrategy {
	case StrategyMinimal:
		v = controlMinimal{state}
	case StrategyStandard:
		v = controlStandard{state, r.iter, remaining, note}
	default:
		files := append([]string{}, r.batches.files...)
		v = controlFull{state, r.iter, r.cfg.MaxIterations, remaining, files, note}
	}
	var b bytes.Buffer
	b.WriteString("<agent_control>")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // paths and notes stay readable: <, > and & as written
	_ = enc.Encode(v)        // plain structs of strings and ints always encode
	b.Truncate(b.Len() - 1)  // Encode's newline
	if body != "" {
		b.WriteString("\n" + strings.TrimSpace(body) + "\n")
	}
	b.WriteString("</agent_control>\n" + antiRepetition)
	return b.String()
}

// emptyContent is the history content of a response with no text: what it
// did, or that it reasoned (seed pitfalls #35 and #38).
func emptyContent(calls []llm.ToolCall, thinking string) string {
	if len(calls) > 0 {
		return session.ToolCallSummary(calls)
	}
	if strings.TrimSpace(thinking) != "" {
		return session.ReasoningCompleted
	}
	return "[No response]"
}

// preview shortens s to n runes on its first lines.
func preview(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
