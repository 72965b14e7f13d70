package event

import "encoding/json"

// ToolCall is one function call requested by the model (llm.ToolCall is
// this type).
type ToolCall struct {
	// ID identifies the call. Ollama may omit it; the agent then assigns one
	// so that OpenAI-compatible servers can pair results with calls.
	ID string `json:"id,omitempty"`
	// Index is the call's position in the model's output, when the server
	// reports it.
	Index int    `json:"index,omitempty"`
	Name  string `json:"name"`
	// Arguments is the call's arguments as a JSON object. It is nil when the
	// server sent arguments that are not a JSON object; RawArguments then
	// holds them verbatim so the agent can report the problem to the model.
	Arguments    json.RawMessage `json:"arguments,omitempty"`
	RawArguments string          `json:"rawArguments,omitempty"`
}
