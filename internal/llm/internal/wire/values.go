package wire

import (
	"bytes"
	"encoding/json"

	"github.com/olly-agent/olly/internal/llm"
)

// emptyObject is the arguments of a call that takes none.
var emptyObject = json.RawMessage(`{}`)

// SplitArguments sorts a tool call's arguments text: a JSON object is
// returned as Arguments; anything else is returned verbatim as raw, with
// Arguments nil, so that the agent can tell the model its call was
// malformed instead of guessing. No arguments at all mean an empty object.
func SplitArguments(text []byte) (args json.RawMessage, raw string) {
	t := bytes.TrimSpace(text)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return emptyObject, ""
	}
	if t[0] == '{' && json.Valid(t) {
		return json.RawMessage(bytes.Clone(t)), ""
	}
	return nil, string(text)
}

// ObjectOrEmpty returns args when it is a JSON object and {} otherwise:
// servers reject history whose tool-call arguments are not an object, and a
// malformed call's raw text is already in the tool result the agent sent.
func ObjectOrEmpty(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t
	}
	return emptyObject
}

// NormalizeFormat returns the output format as valid JSON: a format that is
// already JSON ("json" quoted, or a schema object) is kept; a bare word such
// as json is quoted, so that a hand-written setting does not fail the whole
// request with an encoding error. Nil stays nil.
func NormalizeFormat(f json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(f)
	if len(t) == 0 {
		return nil
	}
	if json.Valid(t) {
		return t
	}
	b, _ := json.Marshal(string(t))
	return b
}

// Tool is a tool definition as both dialects send it.
type Tool struct {
	Type     string  `json:"type"`
	Function ToolDef `json:"function"`
}

// ToolDef is the function a Tool describes.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Tools converts tool definitions for a request; none gives nil, which the
// requests omit.
func Tools(ts []llm.Tool) []Tool {
	var out []Tool
	for _, t := range ts {
		out = append(out, Tool{Type: "function", Function: ToolDef{
			Name: t.Name, Description: t.Description, Parameters: schema(t.Parameters),
		}})
	}
	return out
}

// schema returns a tool's parameter schema, or an empty object schema when
// the tool has none: servers reject "parameters": null.
func schema(p json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(p)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return t
}
