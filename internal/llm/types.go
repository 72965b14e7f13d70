// Package llm holds the provider-neutral types that olly uses to talk to a
// model server. The wire clients (internal/llm/ollama, internal/llm/openai)
// translate between these types and their dialect; nothing above this package
// knows which dialect is in use.
package llm

import (
	"encoding/json"
	"time"

	"github.com/olly-agent/olly/event"
)

// Role is the author of a chat message.
type Role string

// The four roles a chat message can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation sent to or received from a model.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// Thinking is the model's reasoning. It is filled on messages the model
	// returns; the agent never sends it back on history messages (models
	// re-derive their plan and loop when they see old reasoning — seed
	// pitfall #12).
	Thinking string `json:"thinking,omitempty"`
	// Images are raw image bytes (PNG, JPEG); clients encode them as their
	// dialect requires (base64 for both Ollama and OpenAI).
	Images [][]byte `json:"images,omitempty"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolName names the tool whose result a RoleTool message carries
	// (Ollama matches results to calls by name).
	ToolName string `json:"toolName,omitempty"`
	// ToolCallID is the id of the call a RoleTool message answers
	// (OpenAI-compatible servers match results to calls by id).
	ToolCallID string `json:"toolCallId,omitempty"`
}

// ToolCall is one function call requested by the model. It is the public
// event package's type, because the assistant_message event carries the
// calls on the wire; an alias keeps the two from drifting.
type ToolCall = event.ToolCall

// Tool describes a function the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage `json:"parameters"`
}

// Think asks a model to reason before answering. A nil *Think sends nothing
// and leaves the server's default in place.
type Think struct {
	// Enabled turns thinking on or off.
	Enabled bool
	// Level, when set ("low", "medium", "high"), is sent instead of the
	// boolean for models that take a level.
	Level string
}

// ChatRequest is one chat completion request.
type ChatRequest struct {
	Model    string
	Messages []Message
	Tools    []Tool
	Think    *Think
	// Format constrains the output: the JSON string "json" or a JSON Schema
	// object. Nil sends nothing.
	Format  json.RawMessage
	Options Options
	// KeepAlive is how long the server keeps the model loaded after the
	// request ("30m", "-1"). Empty leaves the server's default.
	KeepAlive string
	// Truncate, when non-nil, says whether Ollama may make a prompt that
	// exceeds num_ctx fit by dropping its oldest messages (its default,
	// done silently). False makes it refuse the request with a 400
	// instead. The OpenAI dialect has no such field.
	Truncate *bool
	// Cache, when set, keeps the encoding of the messages for the next
	// request of the same conversation (see EncodeCache); it changes
	// nothing in what is sent.
	Cache *EncodeCache
	// ID numbers the request among those made with Cache (0: not
	// numbered); take it from Cache.NewID, so that it is unique even
	// when another conversation shares the cache.
	// Kept > 0 is the caller's promise that Messages[1:1+Kept] are, value
	// for value, those of request KeptFrom at the same positions: a Cache
	// whose last request was KeptFrom takes their encodings without
	// comparing them, so a request costs what its new messages cost. A
	// cache that encoded another request since compares every message, as
	// without a promise.
	ID, KeptFrom uint64
	Kept         int
}

// GenerateRequest is one raw completion request, used for fill-in-the-middle
// code completion.
type GenerateRequest struct {
	Model  string
	Prompt string
	// Suffix is the text after the cursor; servers that support
	// fill-in-the-middle complete between Prompt and Suffix.
	Suffix string
	System string
	// Raw sends Prompt without applying the model's template.
	Raw       bool
	Images    [][]byte
	Think     *Think
	Format    json.RawMessage
	Options   Options
	KeepAlive string
}

// Options are the sampling and runtime parameters of a request. Nil fields
// are not sent, so the server's defaults apply. The names follow Ollama's
// options object; the OpenAI client maps the ones its dialect has.
type Options struct {
	NumCtx           *int     `json:"num_ctx,omitempty"`
	Seed             *int     `json:"seed,omitempty"`
	Temperature      *float64 `json:"temperature,omitempty"`
	NumPredict       *int     `json:"num_predict,omitempty"`
	Stop             []string `json:"stop,omitempty"`
	RepeatPenalty    *float64 `json:"repeat_penalty,omitempty"`
	RepeatLastN      *int     `json:"repeat_last_n,omitempty"`
	TopK             *int     `json:"top_k,omitempty"`
	TopP             *float64 `json:"top_p,omitempty"`
	MinP             *float64 `json:"min_p,omitempty"`
	TypicalP         *float64 `json:"typical_p,omitempty"`
	TFSZ             *float64 `json:"tfs_z,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	Mirostat         *int     `json:"mirostat,omitempty"`
	MirostatTau      *float64 `json:"mirostat_tau,omitempty"`
	MirostatEta      *float64 `json:"mirostat_eta,omitempty"`
	NumKeep          *int     `json:"num_keep,omitempty"`
	NumBatch         *int     `json:"num_batch,omitempty"`
	NumGPU           *int     `json:"num_gpu,omitempty"`
	MainGPU          *int     `json:"main_gpu,omitempty"`
	NumThread        *int     `json:"num_thread,omitempty"`
}

// Ptr returns a pointer to v, for filling Options.
func Ptr[T any](v T) *T { return &v }

// Done reasons, normalised across dialects.
const (
	DoneStop   = "stop"   // the model finished (including after tool calls)
	DoneLength = "length" // output was cut off by num_predict or the context window
	DoneLoad   = "load"   // Ollama: an empty request only loaded the model
	DoneUnload = "unload" // Ollama: a keep_alive 0 request unloaded the model
)

// ChatChunk is one piece of a streamed chat response. Content and Thinking
// are deltas: the full text is the concatenation of all chunks.
type ChatChunk struct {
	Content  string
	Thinking string
	// ToolCalls are complete calls. Ollama sends each call whole; the OpenAI
	// client assembles argument deltas and delivers each call once complete.
	ToolCalls []ToolCall
	// Done marks the final chunk; DoneReason and Metrics are set on it.
	Done       bool
	DoneReason string
	Metrics    *Metrics
}

// GenerateChunk is one piece of a streamed completion response.
type GenerateChunk struct {
	Response   string
	Thinking   string
	Done       bool
	DoneReason string
	Metrics    *Metrics
}

// Metrics are the server's counts for one request, reported on the final
// chunk. Zero means the server did not report the value.
type Metrics struct {
	PromptTokens       int
	CompletionTokens   int
	TotalDuration      time.Duration
	LoadDuration       time.Duration
	PromptEvalDuration time.Duration
	EvalDuration       time.Duration
}

// Stream delivers the chunks of a streamed response.
type Stream[T any] interface {
	// Recv returns the next chunk. After the chunk with Done set it returns
	// io.EOF. Any other error is final and is an *Error.
	Recv() (T, error)
	// Close releases the connection. It is safe to call more than once and
	// before the stream is drained.
	Close() error
}

// ModelInfo is one installed model, as listed by the server.
type ModelInfo struct {
	Name              string    `json:"name"`
	Size              int64     `json:"size,omitempty"`
	Digest            string    `json:"digest,omitempty"`
	ModifiedAt        time.Time `json:"modifiedAt,omitempty"`
	Format            string    `json:"format,omitempty"`
	Family            string    `json:"family,omitempty"`
	Families          []string  `json:"families,omitempty"`
	ParameterSize     string    `json:"parameterSize,omitempty"`
	QuantizationLevel string    `json:"quantizationLevel,omitempty"`
}

// Capabilities say what a model can do.
type Capabilities struct {
	// Known is false when the server does not report capabilities (most
	// OpenAI-compatible servers); the flags are then best guesses.
	Known     bool `json:"known"`
	Chat      bool `json:"chat"`      // Ollama "completion"
	FIM       bool `json:"fim"`       // Ollama "insert"
	Tools     bool `json:"tools"`     // native function calling
	Vision    bool `json:"vision"`    // image input
	Embedding bool `json:"embedding"` // can produce embeddings (cannot chat)
	Thinking  bool `json:"thinking"`  // separate reasoning output
	// Raw is the server's own list, for display.
	Raw []string `json:"raw,omitempty"`
}

// ModelDetails is what the server says about one model.
type ModelDetails struct {
	ModelInfo
	Capabilities Capabilities `json:"capabilities"`
	// ContextLength is the context window the model was trained with, or 0
	// when the server does not say.
	ContextLength int    `json:"contextLength,omitempty"`
	Template      string `json:"template,omitempty"`
	Parameters    string `json:"parameters,omitempty"`
	License       string `json:"license,omitempty"`
	// ModelInfo is the server's raw model_info map (Ollama).
	Info map[string]any `json:"info,omitempty"`
}

// RunningModel is a model currently loaded by the server.
type RunningModel struct {
	Name          string    `json:"name"`
	Size          int64     `json:"size,omitempty"`
	SizeVRAM      int64     `json:"sizeVram,omitempty"`
	ExpiresAt     time.Time `json:"expiresAt,omitempty"`
	ContextLength int       `json:"contextLength,omitempty"`
	Family        string    `json:"family,omitempty"`
	ParameterSize string    `json:"parameterSize,omitempty"`
	Quantization  string    `json:"quantizationLevel,omitempty"`
}

// EmbedRequest asks for embeddings of one or more inputs.
type EmbedRequest struct {
	Model string
	Input []string
	// Truncate, when non-nil, says whether the server may cut inputs that
	// exceed the model's context (Ollama defaults to true).
	Truncate *bool
	// Dimensions, when positive, asks for shorter vectors (models that
	// support it).
	Dimensions int
	KeepAlive  string
}

// EmbedResponse holds one vector per input, in input order.
type EmbedResponse struct {
	Embeddings   [][]float32
	PromptTokens int
}
