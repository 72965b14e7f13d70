package agent

import (
	"context"
	"fmt"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// RunTurn runs one turn of the agent loop (session.Runner). It reads like
// the seed's flow diagram: stream a response, parse its tool calls, run
// them as a batch, then either finish (the model said [TASK_COMPLETE] and
// the gates agree) or continue through the control plane. Each step lives
// in its own file: stream.go, toolrunner.go, gates.go, control.go,
// summary.go.
//
// It returns an error only when the turn could not run at all — a prompt it
// refuses (an @path outside the workspace) or an event that could not be
// stored; everything else, a model server failing included, ends the turn
// with turn_finished and a TurnResult.
//
// Every mode runs this loop: the mode (modes.go) only decides the tools,
// the prompt, the iteration cap and the gates; sub-agents run it too
// (subagent.go).
func (a *Agent) RunTurn(ctx context.Context, t *session.Turn) (*session.TurnResult, error) {
	ctx, _ = a.pin(ctx) // setup.go: the turn keeps the server and settings it starts with
	r, err := a.newRun(ctx, t)
	if err != nil {
		return nil, err
	}
	defer r.closeScratch()
	return r.loop(ctx)
}

// loop runs a prepared turn to its end.
func (r *run) loop(ctx context.Context) (*session.TurnResult, error) {
	if !r.begin(ctx) {
		return r.result()
	}
	for r.iter = 1; r.iter <= r.cfg.MaxIterations; r.iter++ {
		res := r.stream(ctx)
		if res.canceled || res.err != nil {
			return r.interrupted(ctx, res)
		}
		calls := res.calls(r.offered, r.unavailable, fmt.Sprintf("call_%d_%d_", r.turnSeq, r.iter)) // toolrunner.go
		var batch *batchResult
		if len(calls) > 0 {
			r.recordResponse(ctx, res, calls, false)
			// The calls are stored before any of them runs: a crash
			// must not leave an effect the log does not show.
			if err := r.t.Sync(ctx); err != nil {
				r.setFailure(err)
				return r.result()
			}
			batch = r.batches.runBatch(ctx, calls, r.ids(), r.iter)
			r.reportChanges(ctx, batch) // checkpoints: changes.go
			if ctx.Err() != nil {
				return r.finish(ctx, event.FinishCanceled)
			}
		}
		v := r.gates.judge(ctx, res, calls, batch, r.batches.files, r.iter >= r.cfg.MaxIterations)
		r.stopHooks(ctx, &v) // hooks.go: a Stop hook may keep the turn going
		if len(calls) == 0 {
			// A final answer moves to the final message (summary.go).
			r.recordResponse(ctx, res, nil, v.done)
		}
		if r.failure() != nil {
			return r.result()
		}
		if ctx.Err() != nil {
			return r.finish(ctx, event.FinishCanceled)
		}
		if v.done {
			return r.complete(ctx, res, calls, v)
		}
		if r.iter < r.cfg.MaxIterations {
			r.continueLoop(ctx, batch, v)
			// The person's steering messages (session queue.go) come
			// last, so the model reads them before its next response.
			if _, err := r.t.TakeSteering(ctx); err != nil {
				r.setFailure(err)
			}
		}
	}
	return r.exhausted(ctx)
}
