package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/tools"
)

// Sub-agents (seed 000, "Sub-Agent Isolation"): run_subagent starts an
// isolated turn — its own in-memory conversation, a read-only mode, the
// explorer model — in the same loop as every other mode. Only its tool UI
// reaches the parent's timeline, nested in a group titled "Sub-agent:
// <title>" (subagent_emit.go); its answer goes back to the calling model
// only, as the call's result.

// subagentOutputMax bounds the answer a sub-agent returns (bytes); the
// prompt asks for under 1500 words, this catches one that ignores it.
const subagentOutputMax = 16_000

// subagentWords is the output budget the sub-agent prompt states.
const subagentWords = 1500

// defaultSubagentConcurrency is how many run_subagent calls of one
// response run at once: each holds a model request open, and a local
// server serves few in parallel (OLLAMA_NUM_PARALLEL).
const defaultSubagentConcurrency = 3

// delegate runs a run_subagent call. It shows no action line: the
// sub-agent's wrapper group is the call's only appearance.
func (r *run) delegate(ctx context.Context, action string, c call) *tools.Result {
	t, ok := r.a.tools.Get(tools.SubagentTool)
	if !ok {
		return &tools.Result{IsError: true, Content: r.unavailable(c.Name)}
	}
	args, err := tools.ParseArgs(c.Arguments)
	if err != nil {
		return &tools.Result{IsError: true, Content: fmt.Sprintf("Invalid arguments for run_subagent: %v. Send a JSON object matching the tool's parameters.", err)}
	}
	env := r.env
	env.Subagents = subagents{parent: r, group: "s" + action}
	res, err := t.Run(ctx, &env, args)
	switch {
	case err != nil && ctx.Err() != nil:
		return &tools.Result{IsError: true, Content: "run_subagent was canceled: the person stopped the turn."}
	case err != nil:
		return &tools.Result{IsError: true, Content: "run_subagent failed inside olly: " + err.Error()}
	case res == nil:
		return &tools.Result{IsError: true, Content: "run_subagent returned nothing."}
	}
	return res
}

// subagents runs the sub-agent of one run_subagent call of parent; group
// is its wrapper group.
type subagents struct {
	parent *run
	group  string
}

// RunSubagent implements tools.SubagentRunner.
func (s subagents) RunSubagent(ctx context.Context, req tools.SubagentRequest) (tools.SubagentResult, error) {
	p := s.parent
	m, err := modeNamed(event.Mode(req.Mode))
	switch {
	case err != nil:
		return tools.SubagentResult{Text: err.Error(), Failed: true}, nil
	case p.depth >= maxSubagentDepth:
		return tools.SubagentResult{Failed: true,
			Text: fmt.Sprintf("Sub-agents nest at most %d deep, so this one cannot start another. Investigate with your own tools.", maxSubagentDepth)}, nil
	}
	if err := p.emit(ctx, event.ProgressGroupStart{GroupID: s.group, Title: "Sub-agent: " + req.Title,
		Detail: req.Description, Subagent: true}); err != nil {
		return tools.SubagentResult{}, err
	}
	// Closed however the sub-agent ends: the person must see it stopped.
	defer func() { _ = p.emit(context.WithoutCancel(ctx), event.ProgressGroupFinish{GroupID: s.group}) }()
	sub, err := p.a.newSubRun(ctx, p, s.group, m, req)
	if err != nil {
		return tools.SubagentResult{Failed: true, Text: "The sub-agent could not start: " + err.Error()}, nil
	}
	res, err := sub.loop(ctx)
	if err != nil {
		return tools.SubagentResult{}, err
	}
	// What the sub-agent read and explored is what the session should
	// remember: the orchestrator reads through sub-agents.
	p.absorbMemory(sub.cs.snapshot())
	switch res.Status {
	case event.FinishCanceled:
		if ctx.Err() != nil {
			return tools.SubagentResult{}, ctx.Err()
		}
		return tools.SubagentResult{}, errors.New("the sub-agent was canceled")
	case event.FinishFailed:
		return tools.SubagentResult{Failed: true, Text: "The sub-agent failed: " + res.Error}, nil
	}
	return tools.SubagentResult{Text: capAnswer(res.FinalText)}, nil
}

// newSubRun prepares a sub-agent's run: an in-memory turn whose events go
// through the isolation filter, the explorer model, the mode's tools, and
// the parent's tool environment without its checkpoint.
func (a *Agent) newSubRun(ctx context.Context, parent *run, group string, m mode, req tools.SubagentRequest) (*run, error) {
	model := parent.explorerModel()
	in := session.PromptInput{Text: req.Task, Mode: m.name, Model: model}
	f := &subEmitter{parent: parent, group: group}
	t := session.NewTurn(parent.t.SessionID, parent.t.Number, parent.t.Workspace, in, nil, f.emit)
	t.ExplorerModel = parent.t.ExplorerModel
	r := &run{a: a, t: t, set: parent.set, cfg: parent.set.cfg, model: model}
	r.depth, r.idBase, r.hint = parent.depth+1, group, req.ContextHint
	r.user, r.attachWarnings = attacher{ws: t.Workspace, maxBytes: r.cfg.MaxAttachmentBytes}.userMessage(in)
	r.gates = gates{diag: parent.gates.diag}
	r.ext = parent.ext // the turn's instructions and skills, read once
	r.route(ctx, m)
	env := parent.env
	env.Emit, env.Subagents = r.emit, nil
	r.useEnv(env)
	r.batches = r.newToolRunner()
	r.bindRequests()
	return r, nil
}

// explorerModel resolves the sub-agents' model: the session's own choice,
// then agent.explorerModel, then this run's model.
func (r *run) explorerModel() string {
	for _, m := range []string{r.t.ExplorerModel, r.cfg.ExplorerModel} {
		if m = strings.TrimSpace(m); m != "" {
			return m
		}
	}
	return r.model
}

// capAnswer bounds a sub-agent's answer at a line boundary.
func capAnswer(text string) string {
	text = strings.TrimSpace(text)
	if len(text) <= subagentOutputMax {
		return text
	}
	cut := subagentOutputMax
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if k := strings.LastIndexByte(text[:cut], '\n'); k > cut/2 {
		cut = k
	}
	return text[:cut] + fmt.Sprintf("\n\n(The sub-agent's answer was cut at %d characters.)", subagentOutputMax)
}
