package agent

import (
	"context"
	"runtime/trace"
)

// Phases of an iteration in an execution trace. With OLLY_TRACE=FILE
// (docs/performance.md, "Profiling a real run") each iteration is a trace
// task ("iteration") and its steps are regions named below, so `go tool
// trace` — or a program reading the trace — shows where a slow iteration
// spent its time: waiting for the model, storing the calls, running the
// tools, reporting changes, judging, preparing the next request. Without a
// trace being recorded none of this allocates or records anything.
const (
	phaseStream   = "stream"   // build and send the request, read the response
	phaseRecord   = "record"   // the assistant message and usage events
	phaseSync     = "sync"     // the calls made durable before any runs
	phaseTools    = "tools"    // the batch of tool calls
	phaseChanges  = "changes"  // checkpoints and changed files
	phaseJudge    = "judge"    // the gates and Stop hooks
	phaseContinue = "continue" // results into the history, steering taken
)

// iterationTask starts the trace task of one iteration; end ends it.
func iterationTask(ctx context.Context, iter int) (context.Context, func()) {
	if !trace.IsEnabled() {
		return ctx, func() {}
	}
	ctx, task := trace.NewTask(ctx, "iteration")
	trace.Logf(ctx, "iter", "%d", iter)
	return ctx, task.End
}

// phase starts the region of one step of an iteration on the calling
// goroutine; the returned function ends it.
func phase(ctx context.Context, name string) func() {
	if !trace.IsEnabled() {
		return func() {}
	}
	return trace.StartRegion(ctx, name).End
}
