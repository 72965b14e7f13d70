package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/event"
)

// The dispatcher (seed 000, "Agent Dispatcher — Intent Classification"):
// before an agent-mode turn starts, one short model call classifies the
// prompt. The intent adapts the task rules of the system prompt, needsWrite
// drives the write check, and pure analysis runs read-only (deep-explore).
const (
	// defaultDispatchTimeout bounds the call, retries included: a slow or
	// broken server costs the person at most this before the turn runs
	// with the fallback.
	defaultDispatchTimeout = 10 * time.Second
	// dispatchNumPredict bounds the answer: one small JSON object.
	dispatchNumPredict = 256
	// dispatchKeepAlive keeps the model loaded for the turn that follows,
	// unless agent.keepAlive says otherwise.
	dispatchKeepAlive = "30m"
	// dispatchConfidence is the confidence of a model's classification
	// (the seed's 0.85); a failed one has 0.
	dispatchConfidence = 0.85
	// dispatchPromptMax bounds the prompt sent (runes): the opening of a
	// long prompt says what it asks.
	dispatchPromptMax = 4000
	// reasoningMax bounds the recorded reasoning (runes).
	reasoningMax = 300
)

// classify returns the run's dispatch: the plan-implementation shortcut,
// nil when classification is off, or the model's classification.
func (r *run) classify(ctx context.Context) *event.Dispatch {
	if from := r.t.Input.FromPlan; from > 0 {
		return &event.Dispatch{Intent: event.IntentMixed, NeedsWrite: true, Confidence: 1,
			Reasoning: fmt.Sprintf("implementing the plan of turn %d", from)}
	}
	if !r.cfg.Classify {
		return nil
	}
	// Ephemeral: nothing durable is emitted before turn_started, which
	// records the result.
	_ = r.emit(ctx, event.Status{Text: "Understanding the request…"})
	d := r.a.classify(ctx, r.model, r.t.Input.Text)
	return &d
}

// classify asks model what prompt wants. It never fails: a server error, a
// timeout or an answer that is not the expected JSON gives the fallback
// (mixed, needs writes, confidence 0), which runs the full agent.
func (a *Agent) classify(ctx context.Context, model, prompt string) event.Dispatch {
	timeout := a.using(ctx).cfg.DispatchTimeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	text, err := a.askClassification(ctx, model, prompt)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", timeout)
		}
		return fallbackDispatch(err)
	}
	d, err := parseDispatch(text)
	if err != nil {
		return fallbackDispatch(err)
	}
	return d
}

// askClassification makes the call and returns the answer's text.
func (a *Agent) askClassification(ctx context.Context, model, prompt string) (string, error) {
	d, err := a.modelDetails(ctx, model)
	if err != nil {
		return "", err
	}
	var sys bytes.Buffer
	if err := a.prompts.ExecuteTemplate(&sys, "dispatch.md", nil); err != nil {
		return "", fmt.Errorf("render the classification prompt: %w", err)
	}
	// The turn's own num_ctx; a label, not a deliberation; and a label
	// is a few dozen bytes, so far more is not a classification.
	return a.ask(ctx, oneShot{model: model, system: sys.String(), user: preview(prompt, dispatchPromptMax),
		numCtx: a.using(ctx).cfg.numCtx(model, d), thinks: d.Capabilities.Thinking, temperature: 0, numPredict: dispatchNumPredict,
		keepAlive: cmp.Or(a.using(ctx).cfg.KeepAlive, dispatchKeepAlive), format: json.RawMessage(`"json"`), limit: 16 << 10, retry: true})
}

// fallbackDispatch is the classification used when there is none: mixed
// and needing writes, the unrestricted agent.
func fallbackDispatch(err error) event.Dispatch {
	return event.Dispatch{Intent: event.IntentMixed, NeedsWrite: true, Confidence: 0,
		Reasoning: preview("classification failed ("+err.Error()+"); running as a general task", reasoningMax)}
}

// parseDispatch reads the model's classification: a JSON object with
// intent, needsWrite and reasoning, possibly inside a code fence or after
// some prose. Field names are matched leniently (needs_write, reason), and
// needsWrite defaults by intent when missing.
func parseDispatch(text string) (event.Dispatch, error) {
	obj, ok := firstObject(text)
	if !ok {
		return event.Dispatch{}, fmt.Errorf("the answer was not a JSON object: %s", shortQuote(strings.TrimSpace(text)))
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return event.Dispatch{}, fmt.Errorf("the answer was not valid JSON: %s", shortQuote(obj))
	}
	fields := map[string]any{}
	for k, v := range raw {
		fields[strings.ToLower(strings.ReplaceAll(k, "_", ""))] = v
	}
	intent, _ := fields["intent"].(string)
	intent = strings.ToLower(strings.TrimSpace(intent))
	switch intent {
	case event.IntentAnalyze, event.IntentModify, event.IntentCreate, event.IntentMixed:
	default:
		return event.Dispatch{}, fmt.Errorf("unknown intent %s", shortQuote(intent))
	}
	d := event.Dispatch{Intent: intent, NeedsWrite: intent != event.IntentAnalyze, Confidence: dispatchConfidence}
	switch v := fields["needswrite"].(type) {
	case bool:
		d.NeedsWrite = v
	case string:
		d.NeedsWrite = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	for _, k := range []string{"reasoning", "reason"} {
		if s, ok := fields[k].(string); ok && strings.TrimSpace(s) != "" {
			d.Reasoning = preview(strings.Join(strings.Fields(s), " "), reasoningMax)
			break
		}
	}
	return d, nil
}

// firstObject returns the first balanced {…} in text, braces inside JSON
// strings ignored.
func firstObject(text string) (string, bool) {
	start := strings.IndexByte(text, '{')
	if start < 0 {
		return "", false
	}
	depth, inStr, esc := 0, false, false
	for i := start; i < len(text); i++ {
		c := text[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return text[start : i+1], true
			}
		}
	}
	return "", false
}
