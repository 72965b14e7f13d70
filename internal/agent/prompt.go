package agent

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/workspace"
)

// The system prompt is assembled from one Markdown file per section
// (seed 000, "AgentPromptBuilder"); system.md lists them in order. A new
// section is a new file and one line in system.md. Rendered with
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
	// Has says which tools are offered, so sections mention only those.
	Has           map[string]bool
	MaxIterations int
}

type promptTool struct {
	Name, Description, Parameters string
}

// systemPrompt renders the prompt for this run: native, or with the tool
// descriptions and the call format for text tool calling.
func (r *run) systemPrompt() (string, error) {
	d := promptData{OS: r.a.goos, Shell: r.a.shell, Date: r.a.clock.Now().Format("2006-01-02"),
		Native: r.format == session.FormatNative, Has: r.offered, MaxIterations: r.cfg.MaxIterations}
	if ws := r.t.Workspace; ws != nil {
		d.Roots, d.MultiRoot = ws.Roots(), ws.MultiRoot()
	}
	for _, s := range r.specs {
		d.ToolNames = append(d.ToolNames, s.Name)
		d.Tools = append(d.Tools, promptTool{Name: s.Name, Description: s.Description, Parameters: compactJSON(s.Parameters)})
	}
	var b bytes.Buffer
	if err := r.a.prompts.ExecuteTemplate(&b, "system.md", d); err != nil {
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
