package agent

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/toolcall"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// The system prompt is assembled from one Markdown file per section
// (seed 000, "AgentPromptBuilder"): system.md lists the orchestrator's
// (agent mode) in order, mode.md those of the read-only modes and of
// sub-agents. A new section is a new file and one line in the list. Rendered with
// text/template: html/template would escape the < and > the prompt quotes.
//
//go:embed prompts/*.md
var promptFiles embed.FS

func parsePrompts() (*template.Template, error) {
	t, err := template.New("prompts").Option("missingkey=error").
		Funcs(template.FuncMap{"join": strings.Join}).
		ParseFS(promptFiles, "prompts/*.md")
	if err != nil {
		return nil, fmt.Errorf("parse the system prompt templates: %w", err)
	}
	return t, nil
}

// promptData is what the templates see.
type promptData struct {
	Roots     []workspace.Root
	MultiRoot bool
	OS        string
	Shell     string
	Date      string
	// Native is true with native tool calling: tool descriptions then go
	// through the API's tools field, not the prompt.
	Native bool
	// Tools are described in the prompt for text tool calling.
	Tools     []promptTool
	ToolNames []string
	// Dialect is the tool-call markup of the model's template
	// (toolcall.TemplateDialect; "" when unknown: olly's <tool_call>
	// JSON), in which text tool calls are asked for; CallExample is a
	// call written in it.
	Dialect     string
	CallExample string
	// Has says which tools are offered, so sections mention only those.
	Has           map[string]bool
	MaxIterations int

	// Mode is the run's mode (modes.go); Intent the dispatcher's
	// classification ("" when none), which adapts the task rules.
	Mode   string
	Intent string
	// Delegates: the orchestrator reads and searches only through
	// sub-agents (it has run_subagent and no read_file).
	Delegates bool
	// LSP: some code-intelligence tool is offered.
	LSP bool
	// Subagent marks a sub-agent's prompt: its answer goes to the calling
	// agent, under Words words; Focus is its context_hint.
	Subagent bool
	Focus    string
	Words    int
	// Security: a security-only review.
	Security bool
	// Project is the project context block (read-only modes and
	// sub-agents; never the orchestrator).
	Project string
	// Scratch is the scratch directory ("" when none).
	Scratch string
	// Instructions is the block of instruction files (AGENTS.md…), in
	// every mode's prompt.
	Instructions string
	// Skills lists the skills by name and description (the skill tool
	// loads the rest).
	Skills string
}

type promptTool struct {
	Name, Description, Parameters string
}

// systemPrompt renders the prompt for this run: native, or with the tool
// descriptions and the call format for text tool calling.
func (r *run) systemPrompt() (string, error) {
	d := promptData{OS: r.a.goos, Shell: r.a.shell, Date: r.a.clock.Now().Format("2006-01-02"),
		Native: r.req.format == session.FormatNative, Has: r.offered, MaxIterations: r.cfg.MaxIterations,
		Mode: string(r.mode.name), Intent: r.intent(), Subagent: r.depth > 0, Focus: r.hint, Words: subagentWords,
		Security: r.mode.security, Project: r.project, Scratch: r.scratch,
		Instructions: r.ext.instructions, Skills: r.ext.skills}
	d.Delegates = r.offered[tools.SubagentTool] && !r.offered["read_file"]
	for _, n := range lspTools() {
		d.LSP = d.LSP || r.offered[n]
	}
	if ws := r.t.Workspace; ws != nil {
		d.Roots, d.MultiRoot = ws.Roots(), ws.MultiRoot()
	}
	for _, s := range r.req.specs {
		d.ToolNames = append(d.ToolNames, s.Name)
		d.Tools = append(d.Tools, promptTool{Name: s.Name, Description: s.Description, Parameters: compactJSON(s.Parameters)})
	}
	if !d.Native {
		var err error
		if d.Dialect, d.CallExample, err = r.callExample(); err != nil {
			return "", err
		}
	}
	name := "mode.md" // the read-only modes and sub-agents
	if r.mode.orchestrator {
		name = "system.md"
	}
	var b bytes.Buffer
	if err := r.a.prompts.ExecuteTemplate(&b, name, d); err != nil {
		return "", fmt.Errorf("render the system prompt: %w", err)
	}
	return strings.TrimSpace(b.String()), nil
}

// compactJSON removes the spaces of a schema without escaping <, > and &.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// exampleCall is the call the prompt's example shows: a read_file, a
// run_subagent when the run delegates reading, else a call of the first
// tool offered ("" without tools).
func (r *run) exampleCall() (name, args string) {
	switch {
	case r.offered["read_file"]:
		return "read_file", `{"path": "src/main.go"}`
	case r.offered[tools.SubagentTool]:
		return tools.SubagentTool, `{"task": "Find where the config file is parsed and list its keys", "title": "Find config parsing"}`
	case len(r.req.specs) > 0:
		return r.req.specs[0].Name, `{}`
	}
	return "", ""
}

// callExample is the example call of the text tool-call format
// (exampleCall), written in the model's dialect.
func (r *run) callExample() (dialect, example string, err error) {
	name, args := r.exampleCall()
	if name == "" {
		return string(r.req.dialect), "", nil
	}
	example, err = toolcall.FormatCall(r.req.dialect, name, []byte(args))
	if err != nil {
		return "", "", fmt.Errorf("render the system prompt: %w", err)
	}
	return string(r.req.dialect), example, nil
}
