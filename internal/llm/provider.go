package llm

import "context"

// Provider is a model server, spoken to in one dialect. Both wire clients
// satisfy it. A method the dialect has no endpoint for returns an *Error of
// kind KindUnsupported.
type Provider interface {
	// Dialect names the wire format: "ollama" or "openai".
	Dialect() string
	// BaseURL is the normalised server address (no trailing slash).
	BaseURL() string

	// Chat starts a streamed chat completion. Errors before the first chunk
	// (connection, HTTP status) are returned here, after retries; errors
	// during the stream are returned by Recv. The request is encoded
	// before Chat returns and not kept: the caller may reuse its slices
	// for its next request (the agent reuses the message slice).
	Chat(ctx context.Context, req *ChatRequest) (Stream[ChatChunk], error)
	// Generate starts a streamed raw completion (fill-in-the-middle).
	Generate(ctx context.Context, req *GenerateRequest) (Stream[GenerateChunk], error)

	// ListModels lists the installed models.
	ListModels(ctx context.Context) ([]ModelInfo, error)
	// ShowModel describes one model: capabilities and trained context length.
	ShowModel(ctx context.Context, model string) (*ModelDetails, error)
	// RunningModels lists the models the server has loaded.
	RunningModels(ctx context.Context) ([]RunningModel, error)
	// Embed computes embeddings.
	Embed(ctx context.Context, req *EmbedRequest) (*EmbedResponse, error)
	// Version reports the server's version string.
	Version(ctx context.Context) (string, error)
}
