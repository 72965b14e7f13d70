package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSubagentSpec(t *testing.T) {
	s := Subagent{}.Spec()
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(s.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if s.Name != SubagentTool || strings.Join(schema.Required, ",") != "task,title" {
		t.Errorf("spec %s requires %v", s.Name, schema.Required)
	}
	for _, p := range []string{"task", "title", "description", "context_hint", "mode"} {
		if _, ok := schema.Properties[p]; !ok {
			t.Errorf("no parameter %s", p)
		}
	}
	if got := strings.Join(schema.Properties["mode"].Enum, ","); got != "explore,review,deep-explore" {
		t.Errorf("mode enum %s", got)
	}
	if !strings.Contains(s.Description, "read-only sub-agent") || strings.Contains(s.Description, "{{") {
		t.Errorf("description: %q", s.Description)
	}
}

// runnerFunc adapts a function to SubagentRunner.
type runnerFunc func(ctx context.Context, req SubagentRequest) (SubagentResult, error)

func (f runnerFunc) RunSubagent(ctx context.Context, req SubagentRequest) (SubagentResult, error) {
	return f(ctx, req)
}

func TestSubagentRun(t *testing.T) {
	var got SubagentRequest
	echo := runnerFunc(func(_ context.Context, req SubagentRequest) (SubagentResult, error) {
		got = req
		return SubagentResult{Text: "found it"}, nil
	})
	cases := []struct {
		name    string
		args    map[string]any
		runner  SubagentRunner
		content string
		isErr   bool
		want    SubagentRequest
	}{
		{"full", map[string]any{"task": " map auth ", "title": "Map auth", "description": "d", "context_hint": "src/auth", "mode": "Review"}, echo,
			"found it", false, SubagentRequest{Task: "map auth", Title: "Map auth", Description: "d", ContextHint: "src/auth", Mode: "review"}},
		{"mode defaults to explore", map[string]any{"task": "t", "title": "T"}, echo, "found it", false,
			SubagentRequest{Task: "t", Title: "T", Mode: "explore"}},
		{"contextHint alias", map[string]any{"task": "t", "title": "T", "contextHint": "h"}, echo, "found it", false,
			SubagentRequest{Task: "t", Title: "T", ContextHint: "h", Mode: "explore"}},
		{"no task", map[string]any{"title": "T"}, echo, "needs a task", true, SubagentRequest{}},
		{"no title", map[string]any{"task": "t"}, echo, "needs a title", true, SubagentRequest{}},
		{"bad mode", map[string]any{"task": "t", "title": "T", "mode": "agent"}, echo, `mode "agent" is not one of`, true, SubagentRequest{}},
		{"no runner", map[string]any{"task": "t", "title": "T"}, nil, "unavailable", true, SubagentRequest{}},
		{"failed sub-agent", map[string]any{"task": "t", "title": "T"}, runnerFunc(func(context.Context, SubagentRequest) (SubagentResult, error) {
			return SubagentResult{Text: "The sub-agent failed: boom", Failed: true}, nil
		}), "boom", true, SubagentRequest{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got = SubagentRequest{}
			res, err := Subagent{}.Run(context.Background(), &Env{Subagents: tc.runner}, ArgsOf(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isErr || !strings.Contains(res.Content, tc.content) {
				t.Errorf("result %+v, want error %v containing %q", res, tc.isErr, tc.content)
			}
			if got != tc.want {
				t.Errorf("request %+v, want %+v", got, tc.want)
			}
		})
	}
	// A runner's own failure is olly's, not the model's.
	boom := runnerFunc(func(context.Context, SubagentRequest) (SubagentResult, error) {
		return SubagentResult{}, errors.New("store down")
	})
	if _, err := (Subagent{}).Run(context.Background(), &Env{Subagents: boom}, ArgsOf(map[string]any{"task": "t", "title": "T"})); err == nil {
		t.Error("a runner error was swallowed")
	}
}
