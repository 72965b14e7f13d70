package openai

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// modelEntry is one entry of /v1/models, with the context length vLLM
// (max_model_len) and llama.cpp (meta.n_ctx_train) add.
type modelEntry struct {
	ID          string `json:"id"`
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	MaxModelLen int    `json:"max_model_len"`
	Meta        struct {
		NCtxTrain int `json:"n_ctx_train"`
	} `json:"meta"`
}

func (m *modelEntry) info() llm.ModelInfo {
	info := llm.ModelInfo{Name: m.ID}
	if m.Created > 0 {
		info.ModifiedAt = time.Unix(m.Created, 0).UTC()
	}
	return info
}

func (c *Client) models(ctx context.Context) ([]modelEntry, error) {
	var resp struct {
		Data []modelEntry `json:"data"`
	}
	if err := c.w.JSON(ctx, &wire.Call{Method: http.MethodGet, Path: "/v1/models"}, &resp); err != nil {
		return nil, err
	}
	return resp.Data, nil
}

// ListModels lists the served models (GET /v1/models).
func (c *Client) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	entries, err := c.models(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]llm.ModelInfo, len(entries))
	for i := range entries {
		out[i] = entries[i].info()
	}
	return out, nil
}

// ShowModel describes one model from its /v1/models entry. The dialect
// does not report capabilities, so Known is false and chat and tools are
// assumed; the context length is read where vLLM or llama.cpp put it.
func (c *Client) ShowModel(ctx context.Context, model string) (*llm.ModelDetails, error) {
	entries, err := c.models(ctx)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		e := &entries[i]
		if e.ID != model {
			continue
		}
		n := e.MaxModelLen
		if n == 0 {
			n = e.Meta.NCtxTrain
		}
		return &llm.ModelDetails{
			ModelInfo:     e.info(),
			Capabilities:  llm.Capabilities{Known: false, Chat: true, Tools: true},
			ContextLength: n,
		}, nil
	}
	call := &wire.Call{Method: http.MethodGet, Path: "/v1/models", Model: model}
	return nil, c.w.Err(call, llm.KindModelNotFound, 0, fmt.Sprintf("the server lists %d models and %q is not one of them", len(entries), model), nil)
}

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

// Embed computes embeddings (POST /v1/embeddings), one vector per input in
// input order. Truncate and KeepAlive have no equivalent here.
func (c *Client) Embed(ctx context.Context, req *llm.EmbedRequest) (*llm.EmbedResponse, error) {
	input := req.Input
	if input == nil {
		input = []string{}
	}
	call := &wire.Call{Method: http.MethodPost, Path: "/v1/embeddings", Model: req.Model,
		Body: &embedRequest{Model: req.Model, Input: input, EncodingFormat: "float", Dimensions: req.Dimensions}}
	var resp struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := c.w.JSON(ctx, call, &resp); err != nil {
		return nil, err
	}
	out := &llm.EmbedResponse{Embeddings: make([][]float32, len(input)), PromptTokens: resp.Usage.PromptTokens}
	bad := func(format string, args ...any) error {
		return c.w.Err(call, llm.KindMalformedStream, http.StatusOK, "", fmt.Errorf(format, args...))
	}
	if len(resp.Data) != len(input) {
		return nil, bad("got %d embeddings for %d inputs", len(resp.Data), len(input))
	}
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(input) || out.Embeddings[d.Index] != nil {
			return nil, bad("embedding index %d is out of range or repeated", d.Index)
		}
		out.Embeddings[d.Index] = d.Embedding
	}
	return out, nil
}
