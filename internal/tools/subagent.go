package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
)

// SubagentTool is run_subagent's name.
const SubagentTool = "run_subagent"

// subagentModes are the modes a call may ask for.
func subagentModes() []string { return []string{"explore", "review", "deep-explore"} }

// SubagentRequest is one run_subagent call, checked.
type SubagentRequest struct {
	// Task is what the sub-agent must find out.
	Task string
	// Title (3–5 words) labels the sub-agent's group ("Sub-agent:
	// <title>"); Description is an optional sentence shown with it.
	Title       string
	Description string
	// ContextHint narrows the sub-agent's focus ("start from
	// src/auth/").
	ContextHint string
	// Mode is "explore" (the default), "review" or "deep-explore".
	Mode string
}

// SubagentResult is what a sub-agent found.
type SubagentResult struct {
	// Text is the sub-agent's answer, for the calling model only.
	Text string
	// Failed marks an answer that is an explanation of why the sub-agent
	// could not finish.
	Failed bool
}

// SubagentRunner runs an isolated read-only sub-agent for one run_subagent
// call: the agent, which binds it to the call (Env.Subagents).
type SubagentRunner interface {
	RunSubagent(ctx context.Context, req SubagentRequest) (SubagentResult, error)
}

// Subagent is the run_subagent tool: it hands a research task to a
// read-only sub-agent with its own context window, whose findings come back
// as the result. The sub-agent's tool calls show in a group of their own;
// its text goes only to the calling model.
type Subagent struct{}

// Spec implements Tool.
func (Subagent) Spec() llm.Tool {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	props := map[string]any{
		"task":         str("What the sub-agent must find out: a specific question or investigation, with the names, files or symbols you already know."),
		"title":        str("A 3–5 word label for the person watching (\"Map the auth flow\")."),
		"description":  str("One sentence on what the sub-agent will look at, shown with the title."),
		"context_hint": str("Where to start or what to focus on (\"start from internal/auth/\", \"only the HTTP handlers\")."),
		"mode": map[string]any{"type": "string", "enum": subagentModes(),
			"description": "explore (default): read and search; review: also read-only git commands, for reviewing changes; deep-explore: a thorough investigation that may start sub-agents of its own."},
	}
	// Maps of strings and string slices always marshal.
	params, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": []string{"task", "title"}})
	return llm.Tool{Name: SubagentTool, Description: describe(SubagentTool, nil), Parameters: params}
}

// Describe implements Describer.
func (Subagent) Describe(args Args) event.ToolAction {
	title, _ := args.String("title")
	return event.ToolAction{Text: "Sub-agent: " + strings.TrimSpace(title)}
}

// ParseSubagentArgs checks a run_subagent call's arguments. A problem is
// returned as text for the model.
func ParseSubagentArgs(args Args) (SubagentRequest, string) {
	get := func(keys ...string) string {
		s, _ := args.String(keys...)
		return strings.TrimSpace(s)
	}
	req := SubagentRequest{Task: get("task", "prompt", "query"), Title: get("title"), Description: get("description"),
		ContextHint: get("context_hint", "contextHint"), Mode: strings.ToLower(get("mode"))}
	switch {
	case req.Task == "":
		return req, "run_subagent needs a task: what the sub-agent must find out."
	case req.Title == "":
		return req, "run_subagent needs a title: a 3–5 word label for the person watching."
	}
	if req.Mode == "" {
		req.Mode = "explore"
	}
	for _, m := range subagentModes() {
		if req.Mode == m {
			return req, ""
		}
	}
	return req, fmt.Sprintf("run_subagent: mode %q is not one of %s.", req.Mode, strings.Join(subagentModes(), ", "))
}

// Run implements Tool.
func (Subagent) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	req, problem := ParseSubagentArgs(args)
	look := event.ToolAction{Text: "Sub-agent: " + req.Title, Detail: req.Description}
	switch {
	case problem != "":
		return &Result{IsError: true, Content: problem, Display: look}, nil
	case env.Subagents == nil:
		return &Result{IsError: true, Display: look,
			Content: "run_subagent is unavailable here: sub-agents cannot start more sub-agents at this depth. Investigate with your own tools."}, nil
	}
	res, err := env.Subagents.RunSubagent(ctx, req)
	if err != nil {
		return nil, err
	}
	return &Result{Content: res.Text, IsError: res.Failed, Display: look}, nil
}
