package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/toolcall"
	"github.com/olly-agent/olly/internal/tools"
)

// Batch limits (seed 000, "Over-Eager Tool Mitigation").
const (
	// batchWarn calls or more in one response get a note asking for
	// fewer; all of them run.
	batchWarn = 8
	// batchCap is the most calls of one response that run.
	batchCap = 15
)

// call is one tool call of a response, ready for the runner.
type call struct {
	llm.ToolCall
	// problem, when set, is why the call cannot run; the model gets it as
	// the call's result, and the person sees a failed action with refusal
	// as its detail.
	problem string
	refusal string
}

// step is an executed call, for the fallback summary.
type step struct {
	phrase string
	failed bool
}

// toolRunner runs a response's calls as one batch and keeps what the
// run's batches did: the files written, the executed calls (for the
// fallback summary) and the recent calls (for duplicate detection). It
// reaches the rest of the run only through the functions it is given.
type toolRunner struct {
	// emit publishes an event of the turn (run.emit).
	emit func(ctx context.Context, p event.Payload) error
	// execute runs a call that may run: a tool, or a sub-agent
	// (run.execute).
	execute func(ctx context.Context, group, action string, c call) *tools.Result
	// inScratch reports a path in the session's scratch directory: such
	// writes are not the task's changes.
	inScratch func(path string) bool
	// concurrency is how many run_subagent calls run at once.
	concurrency int
	// interrupted reports a steering message that stops the response's
	// remaining calls (the session's interrupt mode is immediate).
	interrupted func() bool

	dedupe dedupe
	files  []string // written, in order, once each
	steps  []step   // executed calls
}

// newToolRunner is the run's tool runner, once its mode and environment
// are set.
func (r *run) newToolRunner() toolRunner {
	return toolRunner{emit: r.emit, execute: r.execute, inScratch: r.inScratch, concurrency: r.cfg.SubagentConcurrency,
		interrupted: r.t.InterruptNow}
}

// batchResult is what a batch did.
type batchResult struct {
	ran    int      // calls executed
	failed int      // executed calls whose result is an error or a refusal
	wrote  []string // files changed
}

// calls returns the response's tool calls: the server's native calls, or
// those written in the text (the text tool-call format, and a model with
// native tool calling that wrote its calls as text instead). Every call
// gets an id (idPrefix and its position, when the server gave none or a
// repeated one), a position and its arguments in one JSON form; a call of
// a tool not offered gets unavailable's message as its problem.
func (res *streamResult) calls(offered map[string]bool, unavailable func(name string) string, idPrefix string) []call {
	var calls []call
	if len(res.nativeCalls) > 0 {
		for _, tc := range res.nativeCalls {
			c := call{ToolCall: tc}
			if tc.Arguments == nil && strings.TrimSpace(tc.RawArguments) != "" {
				c.problem = fmt.Sprintf("The arguments of your %s call were not a JSON object (%s), so it was not run. Send the arguments as a JSON object.", tc.Name, shortQuote(tc.RawArguments))
			}
			calls = append(calls, c)
		}
	} else {
		for _, tc := range res.textCalls {
			c := textCall(tc, res.truncated)
			if tc.Problem != "" && res.explain != nil {
				c.problem = res.explain(tc) // in the model's dialect (feedback.go)
			}
			calls = append(calls, c)
		}
	}
	ids := map[string]bool{}
	for i := range calls {
		c := &calls[i]
		switch {
		case c.problem != "":
			c.refusal = "malformed call"
		case !offered[c.Name]:
			c.problem, c.refusal = unavailable(c.Name), "not available"
		}
		c.Index = i
		if c.ID == "" || ids[c.ID] {
			c.ID = fmt.Sprintf("%s%d", idPrefix, i+1)
		}
		ids[c.ID] = true
		c.Arguments = normalizeArgs(c.Arguments)
		c.RawArguments = ""
	}
	return calls
}

// textCall converts a call parsed from text.
func textCall(tc toolcall.Call, truncated bool) call {
	c := call{ToolCall: tc.ToolCall, problem: tc.Problem}
	// A call that lacks only its closing brackets or tags says all it meant
	// to, and runs; one cut off inside a value (a string, a number, a
	// parameter) would run with arguments the model did not send.
	if tc.Incomplete && c.problem == "" {
		why := "the response ended"
		if truncated {
			why = "the response hit the output limit"
		}
		c.problem = fmt.Sprintf("Your %s call was cut off before its end (%s), so it was not run: its arguments are incomplete. Send it again, complete; split large files into smaller writes if needed.", tc.Name, why)
	}
	return c
}

// normalizeArgs gives arguments the compact form they have once stored, so
// the live history and the history rebuilt from the log are the same bytes.
func normalizeArgs(a json.RawMessage) json.RawMessage {
	if len(a) == 0 {
		return json.RawMessage(`{}`)
	}
	b, err := json.Marshal(a)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// runBatch runs a response's calls in order inside one progress group and
// records each result. Duplicates and calls beyond the cap are not run;
// their results say why. A canceled turn gives the remaining calls a
// result too, so every call in the history has its answer. Consecutive
// run_subagent calls run at the same time (concurrency at once); their
// results are still recorded in call order. ids and iter make the group
// and action ids unique in the session.
func (r *toolRunner) runBatch(ctx context.Context, calls []call, ids string, iter int) *batchResult {
	b := &batchResult{}
	dup, sigs := r.dedupe.plan(calls)
	skip := skips(calls, dup)
	ran := make([]bool, len(calls))
	group := fmt.Sprintf("g%s-%d", ids, iter)
	actions := fmt.Sprintf("a%s-%d", ids, iter)
	keep := context.WithoutCancel(ctx)
	shown := r.openGroup(ctx, group, calls, skip)
	for i := 0; i < len(calls); {
		n := 1
		for delegates(calls[i], skip[i]) && i+n < len(calls) && delegates(calls[i+n], skip[i+n]) {
			n++
		}
		for k, res := range r.runCalls(ctx, group, actions, calls[i:i+n], skip[i:i+n], i) {
			c := calls[i+k]
			if res.out != nil {
				ran[i+k] = true
				r.record(c, res.out, b)
			}
			_ = r.emit(keep, event.ToolResult{ToolCallID: c.ID, ToolName: c.Name, Content: res.content, IsError: res.isErr})
		}
		i += n
	}
	if shown {
		_ = r.emit(keep, event.ProgressGroupFinish{GroupID: group})
	}
	r.dedupe.remember(calls, ran, sigs)
	r.batchNotes(keep, calls, dup, iter)
	return b
}

// Why a call is not run, decided before the batch runs.
const (
	runs     = iota
	skipDup  // repeats an earlier call
	skipBad  // has a problem (malformed, not offered, refused by the mode)
	skipOver // beyond the batch cap
)

// skips decides which calls run: the first batchCap calls that are neither
// duplicates nor refused.
func skips(calls []call, dup []bool) []int {
	out := make([]int, len(calls))
	runnable := 0
	for i, c := range calls {
		switch {
		case dup[i]:
			out[i] = skipDup
		case c.problem != "":
			out[i] = skipBad
		case runnable >= batchCap:
			out[i] = skipOver
		default:
			runnable++
		}
	}
	return out
}

// delegates reports whether c is a run_subagent call that will run: such
// calls show their own group instead of an action line, and run side by
// side with their neighbours.
func delegates(c call, skip int) bool {
	return skip == runs && c.Name == tools.SubagentTool
}

// callResult is what one call of a batch gave.
type callResult struct {
	content string
	isErr   bool
	// out is the tool's result when the call ran.
	out *tools.Result
}

// runCalls runs calls (one call, or a run of run_subagent calls at once)
// and returns their results in order. first is the first call's position
// in the response; actions prefixes the action ids.
func (r *toolRunner) runCalls(ctx context.Context, group, actions string, calls []call, skip []int, first int) []callResult {
	out := make([]callResult, len(calls))
	if len(calls) == 1 {
		out[0] = r.runCall(ctx, group, actions, calls[0], skip[0], first)
		return out
	}
	sem := make(chan struct{}, r.concurrency)
	var wg sync.WaitGroup
	for k := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
			}
			out[k] = r.runCall(ctx, group, actions, calls[k], skip[k], first+k)
		}()
	}
	wg.Wait()
	return out
}

// runCall runs one call, or says why it does not run.
func (r *toolRunner) runCall(ctx context.Context, group, actions string, c call, skip, i int) callResult {
	action := fmt.Sprintf("%s-%d", actions, i+1)
	switch {
	case ctx.Err() != nil:
		return callResult{content: "Not run: the person stopped the turn."}
	case skip == skipDup:
		return callResult{content: "[SYSTEM NOTE] Not run: this call repeats an earlier one with the same arguments (in this response or the previous two). Use that result instead of asking again."}
	case skip == skipBad:
		r.showRefused(context.WithoutCancel(ctx), group, action, c)
		return callResult{content: c.problem, isErr: true}
	case skip == skipOver:
		return callResult{content: fmt.Sprintf("[SYSTEM NOTE] Not run: only the first %d calls of a response run. Call it again in your next response if you still need it.", batchCap)}
	case i > 0 && r.interrupted != nil && r.interrupted():
		return callResult{content: "[SYSTEM NOTE] Not run: the person sent a message while your calls ran. Read it first; call this again if it is still needed."}
	}
	res := r.execute(ctx, group, action, c)
	return callResult{content: res.Content, isErr: res.IsError || res.Denied, out: res}
}

// execute runs a call of the batch: run_subagent starts a sub-agent
// (subagent.go), every other call goes to its tool with the run's
// environment.
func (r *run) execute(ctx context.Context, group, action string, c call) *tools.Result {
	if c.Name == tools.SubagentTool {
		return r.delegate(ctx, action, c)
	}
	env := r.env
	return r.a.tools.Execute(ctx, &env, tools.Call{ID: c.ID, Name: c.Name, Args: c.Arguments, GroupID: group, ActionID: action}).Result
}

// record notes what a call that ran did. It runs on the loop's goroutine,
// in call order.
func (r *toolRunner) record(c call, res *tools.Result, b *batchResult) {
	failed := res.IsError || res.Denied
	b.ran++
	if failed {
		b.failed++
	}
	for _, p := range res.Wrote {
		if r.inScratch(p) {
			continue // throwaway files are not the task's changes
		}
		r.changed(p)
		b.wrote = append(b.wrote, p)
	}
	r.steps = append(r.steps, step{phrase: session.CallPhrase(c.Name, c.Arguments), failed: failed})
}

// openGroup starts the batch's progress group when anything in it will be
// shown, titled by what the calls do. Duplicates show nothing, and
// sub-agents that run show their own group instead (so a batch of only
// sub-agents has no group of its own).
func (r *toolRunner) openGroup(ctx context.Context, group string, calls []call, skip []int) bool {
	var names []string
	for i, c := range calls {
		if skip[i] != skipDup && !delegates(c, skip[i]) {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return false
	}
	return r.emit(ctx, event.ProgressGroupStart{GroupID: group, Title: groupTitle(names)}) == nil
}

// showRefused shows a call that could not run as a failed action.
func (r *toolRunner) showRefused(ctx context.Context, group, action string, c call) {
	_ = r.emit(ctx, event.ToolAction{GroupID: group, ActionID: action, Tool: c.Name, Status: event.ActionError, Text: c.Name, Detail: c.refusal})
}

// batchNotes tells the model about an over-eager batch: advice at
// batchWarn calls, the cap beyond batchCap, and a warning when every call
// repeated an earlier one.
func (r *toolRunner) batchNotes(ctx context.Context, calls []call, dup []bool, iter int) {
	n := len(calls)
	var notes []string
	if n > batchCap {
		notes = append(notes, fmt.Sprintf("[SYSTEM NOTE] Your last response made %d tool calls; only the first %d ran. Make at most %d calls per response, the ones you need next.", n, batchCap, batchCap))
	} else if n >= batchWarn {
		notes = append(notes, fmt.Sprintf("[SYSTEM NOTE] Your last response made %d tool calls. Prefer fewer, focused calls per response: read the results before asking for more.", n))
	}
	all := n > 0
	for _, d := range dup {
		all = all && d
	}
	if all {
		notes = append(notes, "[SYSTEM NOTE] Every tool call in your last response repeated an earlier call with the same arguments, so none ran. Use the results you already have, try a different tool or different arguments, or finish with [TASK_COMPLETE].")
	}
	for _, note := range notes {
		_ = r.emit(ctx, event.ControlMessage{Kind: event.ControlNote, Content: note, Iteration: iter})
	}
}

// changed records a file the run wrote.
func (r *toolRunner) changed(p string) {
	for _, f := range r.files {
		if f == p {
			return
		}
	}
	r.files = append(r.files, p)
}

func (r *run) offeredNames() []string {
	names := make([]string, 0, len(r.req.specs))
	for _, s := range r.req.specs {
		names = append(names, s.Name)
	}
	return names
}

// groupTitle names a batch by what its calls do (seed: getProgressGroupTitle).
func groupTitle(names []string) string {
	has := func(match func(string) bool) bool {
		for _, n := range names {
			if match(n) {
				return true
			}
		}
		return false
	}
	is := func(set ...string) func(string) bool {
		return func(n string) bool {
			for _, s := range set {
				if n == s {
					return true
				}
			}
			return false
		}
	}
	switch {
	case has(is("write_file")):
		return "Writing files"
	case has(is("run_terminal_command")):
		return "Running commands"
	case has(is("run_subagent")) && !has(func(n string) bool { return n != "run_subagent" }):
		return "Delegating subtask"
	case has(is("search_workspace", "find_symbol", "find_files")):
		return "Searching codebase"
	case has(is("find_definition", "find_references", "find_implementations", "get_hover_info", "get_call_hierarchy", "get_type_hierarchy")):
		return "Analyzing code"
	case has(is("get_document_symbols")):
		return "Inspecting file structure"
	case has(is("read_file")):
		return "Reading files"
	case has(is("list_files")):
		return "Listing files"
	case has(is("get_diagnostics")):
		return "Checking diagnostics"
	}
	return "Using tools"
}

// shortQuote quotes s, shortened for a message.
func shortQuote(s string) string {
	r := []rune(s)
	if len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
