package openai

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// sampling holds the options this dialect can carry. top_k, min_p and
// repeat_penalty are not OpenAI's but llama.cpp and vLLM read them as
// extra top-level fields; nil fields are not sent, so strict servers only
// see them when they were set.
type sampling struct {
	Temperature      *float64 `json:"temperature,omitempty"`
	TopP             *float64 `json:"top_p,omitempty"`
	MaxTokens        *int     `json:"max_tokens,omitempty"`
	Stop             []string `json:"stop,omitempty"`
	Seed             *int     `json:"seed,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	TopK             *int     `json:"top_k,omitempty"`
	MinP             *float64 `json:"min_p,omitempty"`
	RepeatPenalty    *float64 `json:"repeat_penalty,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatRequest struct {
	Model    string      `json:"model"`
	Messages []message   `json:"messages"`
	Tools    []wire.Tool `json:"tools,omitempty"`
	chatRest
}

// chatRest is what a chat body sends after its tools (wire.ChatBody.Rest).
type chatRest struct {
	sampling
	ResponseFormat     json.RawMessage `json:"response_format,omitempty"`
	ReasoningEffort    string          `json:"reasoning_effort,omitempty"`
	ChatTemplateKwargs map[string]any  `json:"chat_template_kwargs,omitempty"`
	Stream             bool            `json:"stream"`
	StreamOptions      streamOptions   `json:"stream_options"`
}

type completionRequest struct {
	Model  string `json:"model"`
	Prompt string `json:"prompt"`
	Suffix string `json:"suffix,omitempty"`
	sampling
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
	Stream         bool            `json:"stream"`
	StreamOptions  streamOptions   `json:"stream_options"`
}

// message is a chat message. Content is a string, or an array of parts
// when the message has images.
type message struct {
	Role       string     `json:"role"`
	Content    any        `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// toolCall is a call in an assistant message; arguments are a JSON text
// inside a string, unlike Ollama's object.
type toolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
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
	out := chatRest{
		sampling:       samplingOf(r.Options),
		ResponseFormat: responseFormat(r.Format),
		Stream:         true,
		StreamOptions:  streamOptions{IncludeUsage: true},
	}
	// Reasoning: a level goes as OpenAI's reasoning_effort; on/off goes as
	// the chat-template switch llama.cpp and vLLM pass to templates that
	// have one (Qwen3, DeepSeek).
	if t := r.Think; t != nil {
		out.ReasoningEffort = t.Level
		if t.Level == "" {
			out.ChatTemplateKwargs = map[string]any{"enable_thinking": t.Enabled}
		}
	}
	return out
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

func newCompletionRequest(r *llm.GenerateRequest) *completionRequest {
	return &completionRequest{
		Model:          r.Model,
		Prompt:         r.Prompt,
		Suffix:         r.Suffix,
		sampling:       samplingOf(r.Options),
		ResponseFormat: responseFormat(r.Format),
		Stream:         true,
		StreamOptions:  streamOptions{IncludeUsage: true},
	}
}

// samplingOf maps Ollama-named options onto this dialect. num_predict
// becomes max_tokens only when positive (Ollama's -1 "no limit" and -2
// "fill the context" have no equivalent). The runtime options (num_ctx,
// num_gpu, mirostat, ...) are the server's business here and are not sent.
func samplingOf(o llm.Options) sampling {
	s := sampling{
		Temperature: o.Temperature, TopP: o.TopP, Stop: o.Stop, Seed: o.Seed,
		PresencePenalty: o.PresencePenalty, FrequencyPenalty: o.FrequencyPenalty,
		TopK: o.TopK, MinP: o.MinP, RepeatPenalty: o.RepeatPenalty,
	}
	if o.NumPredict != nil && *o.NumPredict > 0 {
		s.MaxTokens = o.NumPredict
	}
	return s
}

// responseFormat maps Ollama's format: "json" is json_object mode, a
// schema is json_schema mode.
func responseFormat(f json.RawMessage) json.RawMessage {
	f = wire.NormalizeFormat(f)
	if f == nil {
		return nil
	}
	var word string
	if json.Unmarshal(f, &word) == nil {
		if word == "" {
			return nil
		}
		return json.RawMessage(`{"type":"json_object"}`)
	}
	b, _ := json.Marshal(map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "response", "schema": f}})
	return b
}

func newMessage(m llm.Message) message {
	out := message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
	if m.Role == llm.RoleTool {
		out.Name = m.ToolName
	}
	if len(m.Images) > 0 {
		parts := []contentPart{{Type: "text", Text: m.Content}}
		for _, img := range m.Images {
			url := "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
			parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: url}})
		}
		out.Content = parts
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, toolCall{ID: tc.ID, Type: "function", Function: toolFunction{
			Name: tc.Name, Arguments: string(wire.ObjectOrEmpty(tc.Arguments)),
		}})
	}
	return out
}
