package ollama

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// chatRequest is the body of POST /api/chat.
type chatRequest struct {
	Model    string      `json:"model"`
	Messages []message   `json:"messages"`
	Tools    []wire.Tool `json:"tools,omitempty"`
	chatRest
}

// chatRest is what a chat body sends after its tools (wire.ChatBody.Rest).
type chatRest struct {
	// Truncate false makes Ollama refuse a prompt longer than num_ctx
	// instead of silently dropping its oldest messages.
	Truncate *bool `json:"truncate,omitempty"`
	generation
}

// generateRequest is the body of POST /api/generate.
type generateRequest struct {
	Model  string   `json:"model"`
	Prompt string   `json:"prompt"`
	Suffix string   `json:"suffix,omitempty"`
	System string   `json:"system,omitempty"`
	Raw    bool     `json:"raw,omitempty"`
	Images [][]byte `json:"images,omitempty"`
	generation
}

// generation is how chat and generate bodies both end: the settings of the
// generation, in the same order on both.
type generation struct {
	Think     json.RawMessage `json:"think,omitempty"`
	Format    json.RawMessage `json:"format,omitempty"`
	Options   *llm.Options    `json:"options,omitempty"`
	KeepAlive json.RawMessage `json:"keep_alive,omitempty"`
	Stream    bool            `json:"stream"`
}

func newGeneration(t *llm.Think, format json.RawMessage, o llm.Options, alive string) generation {
	return generation{
		Think:     think(t),
		Format:    wire.NormalizeFormat(format),
		Options:   options(o),
		KeepAlive: keepAlive(alive),
		Stream:    true,
	}
}

// message is Ollama's chat message. Images are []byte, which encoding/json
// writes as base64 strings — exactly what Ollama expects.
type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	Images     [][]byte   `json:"images,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// toolCall is Ollama's tool call, in both directions. Arguments are a JSON
// object on the wire, not a string as in OpenAI's dialect.
type toolCall struct {
	ID       string       `json:"id,omitempty"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Index     int             `json:"index,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func newChatRequest(r *llm.ChatRequest) *chatRequest {
	out := &chatRequest{
		Model:    r.Model,
		Messages: make([]message, len(r.Messages)),
		Tools:    wire.Tools(r.Tools),
		chatRest: newChatRest(r),
	}
	for i, m := range r.Messages {
		out.Messages[i] = newMessage(m)
	}
	return out
}

func newChatRest(r *llm.ChatRequest) chatRest {
	return chatRest{Truncate: r.Truncate, generation: newGeneration(r.Think, r.Format, r.Options, r.KeepAlive)}
}

// chatBody is the body of a chat request: with a cache, assembled from
// the messages' kept encodings (wire.ChatBody), the same bytes.
func chatBody(r *llm.ChatRequest) any {
	if r.Cache == nil {
		return newChatRequest(r)
	}
	return &wire.ChatBody{Dialect: Dialect, Model: r.Model, Messages: r.Messages, Tools: r.Tools,
		Message: encodeMessage, Rest: newChatRest(r), Cache: r.Cache, ID: r.ID, KeptFrom: r.KeptFrom, Kept: r.Kept}
}

func encodeMessage(m llm.Message) any { return newMessage(m) }

func newGenerateRequest(r *llm.GenerateRequest) *generateRequest {
	return &generateRequest{
		Model:      r.Model,
		Prompt:     r.Prompt,
		Suffix:     r.Suffix,
		System:     r.System,
		Raw:        r.Raw,
		Images:     r.Images,
		generation: newGeneration(r.Think, r.Format, r.Options, r.KeepAlive),
	}
}

func newMessage(m llm.Message) message {
	out := message{
		Role:       string(m.Role),
		Content:    m.Content,
		Thinking:   m.Thinking,
		Images:     m.Images,
		ToolName:   m.ToolName,
		ToolCallID: m.ToolCallID,
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, toolCall{ID: tc.ID, Function: toolFunction{
			Index: tc.Index, Name: tc.Name, Arguments: wire.ObjectOrEmpty(tc.Arguments),
		}})
	}
	return out
}

// think encodes the think field: a level string for models that take one
// ("high"), otherwise a boolean. Nil sends nothing.
func think(t *llm.Think) json.RawMessage {
	if t == nil {
		return nil
	}
	if t.Level != "" {
		b, _ := json.Marshal(t.Level)
		return b
	}
	if t.Enabled {
		return json.RawMessage("true")
	}
	return json.RawMessage("false")
}

// options returns nil when no option is set, so that no empty object is sent.
func options(o llm.Options) *llm.Options {
	if reflect.ValueOf(o).IsZero() {
		return nil
	}
	return &o
}

// keepAlive encodes keep_alive. Ollama reads a JSON number as seconds and a
// string as a Go duration; "-1" as a string fails to parse as a duration, so
// anything that is a number is sent as one ("-1" keeps the model loaded
// forever, "0" unloads it at once), and "30m" is sent as a string.
func keepAlive(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var f float64
	if json.Unmarshal([]byte(s), &f) == nil {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
