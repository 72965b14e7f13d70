package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// summarySteps is how many of the last executed calls the fallback summary
// lists (the seed's "last 6 tool results").
const summarySteps = 6

// complete ends a finished turn: the final message, the gates' warnings,
// turn_finished{done}.
func (r *run) complete(ctx context.Context, res *streamResult, calls []call, v verdict) (*session.TurnResult, error) {
	text, fallback := r.final, false
	if len(calls) > 0 || text == "" {
		// The completing response called tools (its text, if any, is shown
		// before them) or wrote nothing: summarize what the run did.
		text, fallback = r.fallbackSummary(""), true
	}
	r.finalMessage(ctx, text, fallback)
	for _, w := range v.warnings {
		_ = r.emit(ctx, event.Warning{Message: w, Code: "unverified"})
	}
	return r.finish(ctx, event.FinishDone)
}

// exhausted ends a turn that used agent.maxIterations without finishing:
// not an error, a summary of where it stopped.
func (r *run) exhausted(ctx context.Context) (*session.TurnResult, error) {
	r.iter = r.cfg.MaxIterations
	prefix := fmt.Sprintf("Stopped after %d iterations (agent.maxIterations) before the task was complete.", r.cfg.MaxIterations)
	r.finalMessage(ctx, r.fallbackSummary(prefix), true)
	return r.finish(ctx, event.FinishMaxIterations)
}

func (r *run) finalMessage(ctx context.Context, text string, fallback bool) {
	r.final = text
	// A plan-mode answer is a plan the person can have implemented.
	_ = r.emit(ctx, event.FinalMessage{Text: text, Fallback: fallback, Plan: r.mode.plan && !fallback})
}

// fallbackSummary describes the run from what its tools did, for a model
// that wrote no summary. It is built from the run's records only, so it is
// deterministic and claims nothing the tools did not report. (A summary
// written by the model would read better; it costs a model call and is left
// to the dispatcher's issue.)
func (r *run) fallbackSummary(prefix string) string {
	var parts []string
	if prefix != "" {
		parts = append(parts, prefix)
	}
	if len(r.batches.files) > 0 {
		parts = append(parts, "Changed "+listFiles(r.batches.files)+".")
	}
	if n := len(r.batches.steps); n > 0 {
		from := max(0, n-summarySteps)
		var phrases []string
		for _, s := range r.batches.steps[from:] {
			p := s.phrase
			if s.failed {
				p += " (failed)"
			}
			phrases = append(phrases, p)
		}
		lead := "Steps: "
		if from > 0 {
			lead = fmt.Sprintf("Last %d of %d steps: ", n-from, n)
		}
		parts = append(parts, lead+strings.Join(phrases, "; ")+".")
	}
	switch {
	case len(parts) == 0:
		parts = append(parts, "The model finished without writing an answer and without using tools.")
	case prefix != "" && len(parts) == 1:
		parts = append(parts, "No tools were used.")
	}
	return strings.Join(parts, "\n")
}
