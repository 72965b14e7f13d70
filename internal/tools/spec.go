package tools

import (
	"bytes"
	"embed"
	"encoding/json"
	"strings"
	"text/template"

	"github.com/olly-agent/olly/internal/llm"
)

// descriptions holds each tool's description for the model, one Markdown
// file per tool, rendered with text/template (never html/template: it
// would escape the < and & that descriptions quote).
//
//go:embed descriptions/*.md
var descriptions embed.FS

// describe renders descriptions/<name>.md with data (the tool's limits).
// The files are part of the binary and a test renders every one, so a
// failure here is a programming error; the raw text is then better than
// nothing.
func describe(name string, data any) string {
	raw, err := descriptions.ReadFile("descriptions/" + name + ".md")
	if err != nil {
		return name
	}
	t, err := template.New(name).Option("missingkey=error").Parse(string(raw))
	if err != nil {
		return string(raw)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return string(raw)
	}
	return strings.TrimSpace(b.String())
}

// param is one property of a tool's JSON Schema.
type param struct {
	name     string
	typ      string // "string", "integer", "boolean"
	desc     string
	required bool
}

// schema builds the JSON Schema of an arguments object.
func schema(ps ...param) json.RawMessage {
	props := make(map[string]any, len(ps))
	required := []string{}
	for _, p := range ps {
		props[p.name] = map[string]string{"type": p.typ, "description": p.desc}
		if p.required {
			required = append(required, p.name)
		}
	}
	// Maps of strings always marshal.
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	return b
}

// spec assembles a tool's spec.
func spec(name string, data any, ps ...param) llm.Tool {
	return llm.Tool{Name: name, Description: describe(name, data), Parameters: schema(ps...)}
}
