package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/olly-agent/olly/internal/llm"
)

// Request is one request the server received: exactly what arrived, and
// for chat, generate and embed requests its provider-neutral form decoded
// independently of the clients, so a test can check what a client sent
// without trusting the client's own encoder.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Dialect is "ollama" for /api/... and "openai" for /v1/....
	Dialect string
	// Fields is the body's top-level JSON object, to check the exact wire
	// form (for example that keep_alive -1 was sent as a number).
	Fields map[string]json.RawMessage
	// DecodeErr is why the body could not be decoded, if it could not.
	DecodeErr error

	Model    string
	Messages []llm.Message
	Tools    []llm.Tool
	Options  llm.Options
	Think    *llm.Think
	// Format is the requested output format in Ollama's terms: "json" or
	// a schema (an OpenAI response_format is translated back).
	Format json.RawMessage
	// KeepAlive is keep_alive as text: a number's digits, a string's value.
	KeepAlive string
	Stream    bool
	// IncludeUsage is OpenAI's stream_options.include_usage.
	IncludeUsage bool

	Prompt     string
	Suffix     string
	System     string
	Raw        bool
	Images     [][]byte
	Input      []string
	Dimensions int
	// Truncate is the request's truncate field (Ollama chat and embed).
	Truncate *bool

	// For chat requests, what the server made of the prompt (context.go):
	// Rendered is the prompt as the model's template rendered it — after
	// the server's own truncation, if any; PromptTokens its size in the
	// server's count before truncation; NumCtx the window it ran with.
	// Truncated says the server cut the prompt to fit (silently, as
	// Ollama does); Refused that it answered 400 instead.
	Rendered     string
	PromptTokens int
	NumCtx       int
	Truncated    bool
	Refused      bool
	// servedTokens is the prompt count reported by default: what the
	// model was given.
	servedTokens int
}

// LastMessage returns the last message of a chat request, or nil.
func (r *Request) LastMessage() *llm.Message {
	if len(r.Messages) == 0 {
		return nil
	}
	return &r.Messages[len(r.Messages)-1]
}

// ollamaBody is every field the Ollama endpoints take.
type ollamaBody struct {
	Model     string          `json:"model"`
	Name      string          `json:"name"`
	Messages  []ollamaMessage `json:"messages"`
	Tools     []wireTool      `json:"tools"`
	Think     json.RawMessage `json:"think"`
	Format    json.RawMessage `json:"format"`
	Options   llm.Options     `json:"options"`
	KeepAlive json.RawMessage `json:"keep_alive"`
	Stream    *bool           `json:"stream"`
	Prompt    string          `json:"prompt"`
	Suffix    string          `json:"suffix"`
	System    string          `json:"system"`
	Raw       bool            `json:"raw"`
	Images    [][]byte        `json:"images"`
	Input     json.RawMessage `json:"input"`
	Truncate  *bool           `json:"truncate"`
	Dims      int             `json:"dimensions"`
}

type ollamaMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Thinking   string           `json:"thinking,omitempty"`
	Images     [][]byte         `json:"images,omitempty"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func neutralTools(ts []wireTool) []llm.Tool {
	var out []llm.Tool
	for _, t := range ts {
		out = append(out, llm.Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return out
}

// decode fills the neutral form from the body.
func (r *Request) decode() {
	if len(bytes.TrimSpace(r.Body)) == 0 {
		return
	}
	if err := json.Unmarshal(r.Body, &r.Fields); err != nil {
		r.DecodeErr = err
		return
	}
	if r.Dialect == "openai" {
		r.DecodeErr = r.decodeOpenAI()
	} else {
		r.DecodeErr = r.decodeOllama()
	}
}

func (r *Request) decodeOllama() error {
	var b ollamaBody
	if err := json.Unmarshal(r.Body, &b); err != nil {
		return err
	}
	r.Model = b.Model
	if r.Model == "" {
		r.Model = b.Name
	}
	for _, m := range b.Messages {
		nm := llm.Message{Role: llm.Role(m.Role), Content: m.Content, Thinking: m.Thinking, Images: m.Images, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			nm.ToolCalls = append(nm.ToolCalls, llm.ToolCall{ID: tc.ID, Index: tc.Function.Index, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		r.Messages = append(r.Messages, nm)
	}
	r.Tools = neutralTools(b.Tools)
	r.Options = b.Options
	r.Format = b.Format
	r.Stream = b.Stream == nil || *b.Stream // Ollama streams unless told not to
	r.Prompt, r.Suffix, r.System, r.Raw, r.Images = b.Prompt, b.Suffix, b.System, b.Raw, b.Images
	r.Truncate, r.Dimensions = b.Truncate, b.Dims
	var err error
	if r.Think, err = ollamaThink(b.Think); err != nil {
		return err
	}
	if r.KeepAlive, err = keepAliveText(b.KeepAlive); err != nil {
		return err
	}
	r.Input, err = inputs(b.Input)
	return err
}

func ollamaThink(raw json.RawMessage) (*llm.Think, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var on bool
	if json.Unmarshal(raw, &on) == nil {
		return &llm.Think{Enabled: on}, nil
	}
	var level string
	if err := json.Unmarshal(raw, &level); err != nil {
		return nil, fmt.Errorf("think must be a boolean or a level string, got %s", raw)
	}
	return &llm.Think{Enabled: true, Level: level}, nil
}

// keepAliveText renders keep_alive as Ollama reads it: a number (seconds)
// or a duration string.
func keepAliveText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("keep_alive must be a number or a duration string, got %s", raw)
	}
	return n.String(), nil
}

// inputs reads an embedding input: one string or an array of strings.
func inputs(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("input must be a string or an array of strings")
	}
	return many, nil
}

// decodeDataURL decodes "data:image/png;base64,...".
func decodeDataURL(u string) ([]byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return nil, fmt.Errorf("image_url %q is not a data URL", llm.QuoteLine([]byte(u)))
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, fmt.Errorf("image data URL is not base64")
	}
	if mt := strings.TrimSuffix(meta, ";base64"); !imageTypes[mt] {
		return nil, fmt.Errorf("image data URL of type %q: want image/png, image/jpeg, image/gif or image/webp", mt)
	}
	img, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("image data URL: %v", err)
	}
	return img, nil
}

// imageTypes are the image types vision models decode.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// checkImage refuses bytes that are no image a vision model decodes (the
// servers answer 400: Ollama "illegal base64 data" or "unknown format",
// OpenAI "Invalid image").
func checkImage(img []byte) error {
	if t := http.DetectContentType(img); !imageTypes[t] {
		return fmt.Errorf("invalid image input: %d bytes of %s", len(img), t)
	}
	return nil
}

// estimateTokens is the default prompt count: a quarter of the characters.
func estimateTokens(r *Request) int {
	n := len(r.Prompt) + len(r.Suffix) + len(r.System)
	for _, m := range r.Messages {
		n += len(m.Content)
	}
	return n/4 + 1
}
