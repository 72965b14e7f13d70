package session

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
)

// implementPrefix introduces a plan given to the agent as its task.
const implementPrefix = "Implement this plan:\n\n"

// ImplementPlan starts an agent-mode turn whose task is a plan: the text of
// the final_message marked as a plan (plan mode's result) of turn planTurn,
// or of the latest plan on the session's branch when planTurn is 0. It is
// the "Implement this plan" action frontends show on such a message. The
// turn does not classify the prompt (the plan is the decision) and runs
// like any prompt: ErrBusy while another turn runs.
func (s *Service) ImplementPlan(ctx context.Context, id string, planTurn int) (*TurnResult, error) {
	return s.runTurn(ctx, id, PromptInput{Mode: event.ModeAgent, FromPlan: planTurn, implement: true})
}

// planInput is the prompt of an ImplementPlan turn: the plan of turn
// planTurn (0: the latest) found in evs, the session's current branch.
func planInput(id string, evs []event.Event, planTurn int) (PromptInput, error) {
	plan, turn := findPlan(evs, planTurn)
	if plan == "" {
		if planTurn > 0 {
			return PromptInput{}, fmt.Errorf("session %s has no plan in turn %d: only a plan-mode turn (/plan) that finished with a plan can be implemented", id, planTurn)
		}
		return PromptInput{}, fmt.Errorf("session %s has no plan to implement: ask for one with /plan <task> first", id)
	}
	return PromptInput{Text: implementPrefix + plan, Mode: event.ModeAgent, FromPlan: turn}, nil
}

// findPlan returns the plan of turn (0: the last one) and its turn.
func findPlan(evs []event.Event, turn int) (string, int) {
	for i := len(evs) - 1; i >= 0; i-- {
		fm, ok := evs[i].Data.(event.FinalMessage)
		if ok && fm.Plan && fm.Text != "" && (turn == 0 || evs[i].Turn == turn) {
			return fm.Text, evs[i].Turn
		}
	}
	return "", 0
}
