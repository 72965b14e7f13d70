package llmtest

import (
	"encoding/json"
	"fmt"

	"github.com/olly-agent/olly/internal/llm"
)

// openaiBody is every field the /v1 endpoints take that olly sends.
type openaiBody struct {
	Model         string          `json:"model"`
	Messages      []openaiMessage `json:"messages"`
	Tools         []wireTool      `json:"tools"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"`
	Seed                *int            `json:"seed"`
	PresencePenalty     *float64        `json:"presence_penalty"`
	FrequencyPenalty    *float64        `json:"frequency_penalty"`
	TopK                *int            `json:"top_k"`
	MinP                *float64        `json:"min_p"`
	RepeatPenalty       *float64        `json:"repeat_penalty"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	ReasoningEffort     string          `json:"reasoning_effort"`
	ChatTemplateKwargs  struct {
		EnableThinking *bool `json:"enable_thinking"`
	} `json:"chat_template_kwargs"`
	Prompt     json.RawMessage `json:"prompt"`
	Suffix     string          `json:"suffix"`
	Input      json.RawMessage `json:"input"`
	Dimensions int             `json:"dimensions"`
}

type openaiMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content"`
	Name       string           `json:"name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
}

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

func (r *Request) decodeOpenAI() error {
	var b openaiBody
	if err := json.Unmarshal(r.Body, &b); err != nil {
		return err
	}
	r.Model = b.Model
	for _, m := range b.Messages {
		nm, err := neutralOpenAIMessage(m)
		if err != nil {
			return err
		}
		r.Messages = append(r.Messages, nm)
	}
	r.Tools = neutralTools(b.Tools)
	r.Stream = b.Stream
	r.IncludeUsage = b.StreamOptions != nil && b.StreamOptions.IncludeUsage
	r.Suffix, r.Dimensions = b.Suffix, b.Dimensions
	r.Options = llm.Options{
		Temperature: b.Temperature, TopP: b.TopP, NumPredict: b.MaxTokens, Seed: b.Seed,
		PresencePenalty: b.PresencePenalty, FrequencyPenalty: b.FrequencyPenalty,
		TopK: b.TopK, MinP: b.MinP, RepeatPenalty: b.RepeatPenalty,
	}
	if r.Options.NumPredict == nil {
		r.Options.NumPredict = b.MaxCompletionTokens
	}
	if b.ReasoningEffort != "" || b.ChatTemplateKwargs.EnableThinking != nil {
		r.Think = &llm.Think{Enabled: b.ReasoningEffort != "", Level: b.ReasoningEffort}
		if on := b.ChatTemplateKwargs.EnableThinking; on != nil {
			r.Think.Enabled = *on
		}
	}
	var err error
	if r.Options.Stop, err = stops(b.Stop); err != nil {
		return err
	}
	if r.Format, err = formatOf(b.ResponseFormat); err != nil {
		return err
	}
	if prompts, err := inputs(b.Prompt); err != nil {
		return fmt.Errorf("prompt: %w", err)
	} else if len(prompts) > 0 {
		r.Prompt = prompts[0]
	}
	r.Input, err = inputs(b.Input)
	return err
}

func neutralOpenAIMessage(m openaiMessage) (llm.Message, error) {
	nm := llm.Message{Role: llm.Role(m.Role), ToolCallID: m.ToolCallID}
	if m.Role == "tool" {
		nm.ToolName = m.Name
	}
	for i, tc := range m.ToolCalls {
		call := llm.ToolCall{ID: tc.ID, Index: i, Name: tc.Function.Name}
		if json.Valid([]byte(tc.Function.Arguments)) {
			call.Arguments = json.RawMessage(tc.Function.Arguments)
		} else {
			call.RawArguments = tc.Function.Arguments
		}
		nm.ToolCalls = append(nm.ToolCalls, call)
	}
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return nm, nil
	}
	if json.Unmarshal(m.Content, &nm.Content) == nil {
		return nm, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return nm, fmt.Errorf("message content must be a string or an array of parts")
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			nm.Content += p.Text
		case "image_url":
			img, err := decodeDataURL(p.ImageURL.URL)
			if err != nil {
				return nm, err
			}
			nm.Images = append(nm.Images, img)
		default:
			return nm, fmt.Errorf("unknown content part type %q", p.Type)
		}
	}
	return nm, nil
}

// stops reads "stop": one string or an array.
func stops(raw json.RawMessage) ([]string, error) {
	s, err := inputs(raw)
	if err != nil {
		return nil, fmt.Errorf("stop must be a string or an array of strings")
	}
	return s, nil
}

// formatOf translates response_format back to Ollama's format field.
func formatOf(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return nil, fmt.Errorf("response_format: %w", err)
	}
	switch rf.Type {
	case "json_object":
		return json.RawMessage(`"json"`), nil
	case "json_schema":
		return rf.JSONSchema.Schema, nil
	case "text":
		return nil, nil
	}
	return nil, fmt.Errorf("response_format type %q is not one of text, json_object, json_schema", rf.Type)
}
