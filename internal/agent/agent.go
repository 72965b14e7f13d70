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
	ctx, r, end, err := a.startRun(ctx, t)
	if err != nil {
		return nil, err
	}
	defer end()
	return r.loop(ctx)
}

// startRun prepares turn t's run: the context it runs in (pinned: setup.go,
// the turn keeps the server and settings it starts with), the run, and
// end, to call once its loop returned. The process's first turn starts the
// warm-up (warm.go) meanwhile, and end waits for it. RunTurn and the tests
// that watch a run (watchedRuns, prepare_check_test.go) start it here.
func (a *Agent) startRun(ctx context.Context, t *session.Turn) (context.Context, *run, func(), error) {
	ctx, _ = a.pin(ctx)
	warmed := warmUp()
	r, err := a.newRun(ctx, t)
	if err != nil {
		warmed()
		return ctx, nil, nil, err
	}
	return ctx, r, func() { r.closeScratch(); warmed() }, nil
}

// loop runs a prepared turn to its end.
func (r *run) loop(ctx context.Context) (*session.TurnResult, error) {
	if !r.begin(ctx) {
		return r.result()
	}
	for r.iter = 1; r.iter <= r.cfg.MaxIterations; r.iter++ {
		res, done, err := r.iteration(ctx)
		if done {
			return res, err
		}
	}
	return r.exhausted(ctx)
}

// iteration runs one iteration; done says the turn ended with res, err.
// Its steps are the phases of an execution trace (phases.go).
func (r *run) iteration(ctx context.Context) (_ *session.TurnResult, done bool, _ error) {
	ctx, endTask := iterationTask(ctx, r.iter)
	defer endTask()
	end := phase(ctx, phaseStream)
	res := r.stream(ctx)
	end()
	if res.canceled || res.err != nil {
		return ended(r.interrupted(ctx, res))
	}
	calls := res.calls(r.offered, r.unavailable, fmt.Sprintf("call_%d_%d_", r.turnSeq, r.iter)) // toolrunner.go
	var batch *batchResult
	if len(calls) > 0 {
		end = phase(ctx, phaseRecord)
		r.recordResponse(ctx, res, calls, false)
		end()
		// The calls are stored before any of them runs: a crash
		// must not leave an effect the log does not show.
		end = phase(ctx, phaseSync)
		err := r.t.Sync(ctx)
		end()
		if err != nil {
			r.setFailure(err)
			return ended(r.result())
		}
		end = phase(ctx, phaseTools)
		batch = r.batches.runBatch(ctx, calls, r.ids(), r.iter)
		end()
		end = phase(ctx, phaseChanges)
		r.reportChanges(ctx, batch) // checkpoints: changes.go
		end()
		if ctx.Err() != nil {
			return ended(r.finish(ctx, event.FinishCanceled))
		}
	}
	end = phase(ctx, phaseJudge)
	v := r.gates.judge(ctx, res, calls, batch, r.batches.files, r.iter >= r.cfg.MaxIterations)
	r.stopHooks(ctx, &v) // hooks.go: a Stop hook may keep the turn going
	end()
	if len(calls) == 0 {
		// A final answer moves to the final message (summary.go).
		r.recordResponse(ctx, res, nil, v.done)
	}
	if r.failure() != nil {
		return ended(r.result())
	}
	if ctx.Err() != nil {
		return ended(r.finish(ctx, event.FinishCanceled))
	}
	if v.done {
		return ended(r.complete(ctx, res, calls, v))
	}
	if r.iter < r.cfg.MaxIterations {
		defer phase(ctx, phaseContinue)()
		r.continueLoop(ctx, batch, v)
		// The person's steering messages (session queue.go) come
		// last, so the model reads them before its next response.
		if _, err := r.t.TakeSteering(ctx); err != nil {
			r.setFailure(err)
		}
	}
	return nil, false, nil
}

// ended marks what a step that ends the turn returns as the end.
func ended(res *session.TurnResult, err error) (*session.TurnResult, bool, error) {
	return res, true, err
}
