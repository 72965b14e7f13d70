package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
	"github.com/olly-agent/olly/internal/llm/ollama"
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

// modelListTTL is how long the /v1/models list is reused: one command
// asks for it once, not once per model it shows, and a long-running olly
// still sees a model pulled meanwhile.
const modelListTTL = time.Minute

// models returns the server's model list, cached for modelListTTL.
func (c *Client) models(ctx context.Context) ([]modelEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.list != nil && time.Since(c.listAt) < modelListTTL {
		return c.list, nil
	}
	var resp struct {
		Data []modelEntry `json:"data"`
	}
	if err := c.w.JSON(ctx, &wire.Call{Method: http.MethodGet, Path: "/v1/models"}, &resp); err != nil {
		return nil, err
	}
	if resp.Data == nil {
		resp.Data = []modelEntry{}
	}
	c.list, c.listAt = resp.Data, time.Now()
	return c.list, nil
}

// ollamaServer returns a client for Ollama's native API when the server
// is Ollama (its /api/version answers), else nil. Asked once.
func (c *Client) ollamaServer(ctx context.Context) *ollama.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.probed {
		return c.native
	}
	set := c.w.Settings
	set.Retry = llm.RetryPolicy{} // a probe: one attempt
	oc, err := ollama.New(c.w.BaseURL, func(s *wire.Settings) { *s = set })
	if err != nil {
		c.probed = true
		return nil
	}
	if _, err := oc.Version(ctx); err != nil {
		if ctx.Err() == nil {
			c.probed = true // not Ollama; a canceled probe is asked again
		}
		return nil
	}
	c.probed, c.native = true, oc
	return oc
}

// ollamaDefaultWindow is the context Ollama runs a model with when no
// num_ctx is given, which its /v1 layer never passes on.
const ollamaDefaultWindow = 4096

// ollamaWindow is the context window a model has behind Ollama's /v1: the
// request cannot set num_ctx there, so it is the window the server loaded
// the model with (/api/ps) when it is loaded, else Ollama's default —
// never more than the trained context. Assuming the trained context would
// let prompts grow past what the server keeps, and Ollama cuts them
// silently.
func (c *Client) ollamaWindow(ctx context.Context, oc *ollama.Client, model string, trained int) int {
	n := ollamaDefaultWindow
	if rs, err := c.runningModels(ctx, oc); err == nil {
		for _, r := range rs {
			if sameModel(r.Name, model) && r.ContextLength > 0 {
				n = r.ContextLength
			}
		}
	}
	if trained > 0 {
		n = min(n, trained)
	}
	return n
}

// runningListTTL is how long Ollama's running-model list is reused: a
// listing shows every model's window from one /api/ps, not one per model,
// and a model loaded meanwhile is seen a few seconds later.
const runningListTTL = 5 * time.Second

// runningModels returns the models the Ollama behind /v1 has loaded,
// cached for runningListTTL (a failure is not cached).
func (c *Client) runningModels(ctx context.Context, oc *ollama.Client) ([]llm.RunningModel, error) {
	c.psMu.Lock()
	defer c.psMu.Unlock()
	if c.running != nil && time.Since(c.psAt) < runningListTTL {
		return c.running, nil
	}
	rs, err := oc.RunningModels(ctx)
	if err != nil {
		return nil, err
	}
	if rs == nil {
		rs = []llm.RunningModel{}
	}
	c.running, c.psAt = rs, time.Now()
	return rs, nil
}

// sameModel reports whether a listed id names the requested model: Ollama
// lists "tiny:latest" and accepts "tiny" for it.
func sameModel(id, want string) bool {
	if id == want {
		return true
	}
	return strings.TrimSuffix(id, ":latest") == strings.TrimSuffix(want, ":latest")
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

// ShowModel describes one model. When the server is Ollama (its /v1
// layer), capabilities come from its /api/show, as with the Ollama client,
// and the context length is the window the model runs with there (see
// ollamaWindow). Otherwise from the /v1/models
// entry: the dialect reports no capabilities, so Known is false and chat
// and tools are assumed (a model that refuses tools is switched to text
// tool calls by the agent); the context length is read where vLLM
// (max_model_len) or llama.cpp (meta.n_ctx_train) put it, else it is 0.
func (c *Client) ShowModel(ctx context.Context, model string) (*llm.ModelDetails, error) {
	if oc := c.ollamaServer(ctx); oc != nil {
		d, err := oc.ShowModel(ctx, model)
		if err != nil {
			// Errors in this client's terms (a missing model is "not
			// served", not "ollama pull").
			var e *llm.Error
			if errors.As(err, &e) {
				e.Dialect = Dialect
			}
			return nil, err
		}
		d.ContextLength = c.ollamaWindow(ctx, oc, model, d.ContextLength)
		return d, nil
	}
	entries, err := c.models(ctx)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		e := &entries[i]
		if !sameModel(e.ID, model) {
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
