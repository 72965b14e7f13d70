package toolcall

import (
	"encoding/json"

	"github.com/olly-agent/olly/internal/llm"
)

// ParamTypes reads, for Options.Params, the JSON Schema type of each
// top-level parameter of each tool: "string", "integer", "number",
// "boolean", "array" or "object" (the first one other than "null" when the
// schema lists several). Parameters without a type, and schemas that do not
// read, are left out: their values are read as without a schema.
func ParamTypes(tools []llm.Tool) map[string]map[string]string {
	out := make(map[string]map[string]string, len(tools))
	for _, t := range tools {
		var schema struct {
			Properties map[string]struct {
				Type json.RawMessage `json:"type"`
			} `json:"properties"`
		}
		if json.Unmarshal(t.Parameters, &schema) != nil {
			continue
		}
		types := map[string]string{}
		for name, p := range schema.Properties {
			if typ := schemaType(p.Type); typ != "" {
				types[name] = typ
			}
		}
		if len(types) > 0 {
			out[t.Name] = types
		}
	}
	return out
}

// schemaType reads a schema's "type": a name, or a list of names.
func schemaType(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return known(one)
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return known(t)
			}
		}
	}
	return ""
}

func known(t string) string {
	switch t {
	case "string", "integer", "number", "boolean", "array", "object":
		return t
	}
	return ""
}
