package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/llm/internal/wire"
)

// details is the "details" object of /api/tags, /api/show and /api/ps.
type details struct {
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

type listedModel struct {
	Name       string  `json:"name"`
	Model      string  `json:"model"`
	ModifiedAt string  `json:"modified_at"`
	Size       int64   `json:"size"`
	Digest     string  `json:"digest"`
	Details    details `json:"details"`
}

type runningModel struct {
	listedModel
	ExpiresAt     string `json:"expires_at"`
	SizeVRAM      int64  `json:"size_vram"`
	ContextLength int    `json:"context_length"`
}

type showResponse struct {
	License      string         `json:"license"`
	Parameters   string         `json:"parameters"`
	Template     string         `json:"template"`
	Details      details        `json:"details"`
	ModelInfo    map[string]any `json:"model_info"`
	Capabilities []string       `json:"capabilities"`
	ModifiedAt   string         `json:"modified_at"`
}

// parseTime reads Ollama's timestamps leniently: a format change there
// should cost a blank date, not the whole model list.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func (m *listedModel) neutral() llm.ModelInfo {
	name := m.Name
	if name == "" {
		name = m.Model
	}
	return llm.ModelInfo{
		Name:              name,
		Size:              m.Size,
		Digest:            m.Digest,
		ModifiedAt:        parseTime(m.ModifiedAt),
		Format:            m.Details.Format,
		Family:            m.Details.Family,
		Families:          m.Details.Families,
		ParameterSize:     m.Details.ParameterSize,
		QuantizationLevel: m.Details.QuantizationLevel,
	}
}

// ListModels lists the installed models (GET /api/tags).
func (c *Client) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	var resp struct {
		Models []listedModel `json:"models"`
	}
	if err := c.w.JSON(ctx, &wire.Call{Method: http.MethodGet, Path: "/api/tags"}, &resp); err != nil {
		return nil, err
	}
	out := make([]llm.ModelInfo, len(resp.Models))
	for i := range resp.Models {
		out[i] = resp.Models[i].neutral()
	}
	return out, nil
}

// ShowModel describes one model (POST /api/show): its capabilities and the
// context length it was trained with.
func (c *Client) ShowModel(ctx context.Context, model string) (*llm.ModelDetails, error) {
	var resp showResponse
	call := &wire.Call{Method: http.MethodPost, Path: "/api/show", Model: model, Body: map[string]string{"model": model}}
	if err := c.w.JSON(ctx, call, &resp); err != nil {
		return nil, err
	}
	return &llm.ModelDetails{
		ModelInfo: llm.ModelInfo{
			Name:              model,
			ModifiedAt:        parseTime(resp.ModifiedAt),
			Format:            resp.Details.Format,
			Family:            resp.Details.Family,
			Families:          resp.Details.Families,
			ParameterSize:     resp.Details.ParameterSize,
			QuantizationLevel: resp.Details.QuantizationLevel,
		},
		Capabilities:  capabilities(resp.Capabilities),
		ContextLength: contextLength(resp.ModelInfo),
		Template:      resp.Template,
		Parameters:    resp.Parameters,
		License:       resp.License,
		Info:          resp.ModelInfo,
	}, nil
}

// capabilities maps Ollama's capability names (seed "Model Compatibility").
// A server too old to report them leaves Known false; chat is then the
// only safe guess.
func capabilities(raw []string) llm.Capabilities {
	if raw == nil {
		return llm.Capabilities{Chat: true}
	}
	c := llm.Capabilities{Known: true, Raw: raw}
	for _, s := range raw {
		switch s {
		case "completion":
			c.Chat = true
		case "insert":
			c.FIM = true
		case "tools":
			c.Tools = true
		case "vision":
			c.Vision = true
		case "embedding":
			c.Embedding = true
		case "thinking":
			c.Thinking = true
		}
	}
	return c
}

// contextLength reads the trained context window from model_info, whose key
// is "<architecture>.context_length" (llama.context_length,
// qwen3.context_length, ...). The architecture's own key wins; otherwise the
// first matching key in sorted order, so the answer does not depend on map
// order. Zero means the server did not say.
func contextLength(info map[string]any) int {
	if arch, ok := info["general.architecture"].(string); ok {
		if n := positiveInt(info[arch+".context_length"]); n > 0 {
			return n
		}
	}
	keys := make([]string, 0, len(info))
	for k := range info {
		if strings.HasSuffix(k, ".context_length") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if n := positiveInt(info[k]); n > 0 {
			return n
		}
	}
	return 0
}

func positiveInt(v any) int {
	f, ok := v.(float64)
	if !ok || f <= 0 || f > 1<<40 {
		return 0
	}
	return int(f)
}

// RunningModels lists the models the server has loaded (GET /api/ps).
func (c *Client) RunningModels(ctx context.Context) ([]llm.RunningModel, error) {
	var resp struct {
		Models []runningModel `json:"models"`
	}
	if err := c.w.JSON(ctx, &wire.Call{Method: http.MethodGet, Path: "/api/ps"}, &resp); err != nil {
		return nil, err
	}
	out := make([]llm.RunningModel, len(resp.Models))
	for i, m := range resp.Models {
		info := m.neutral()
		out[i] = llm.RunningModel{
			Name:          info.Name,
			Size:          m.Size,
			SizeVRAM:      m.SizeVRAM,
			ExpiresAt:     parseTime(m.ExpiresAt),
			ContextLength: m.ContextLength,
			Family:        info.Family,
			ParameterSize: info.ParameterSize,
			Quantization:  info.QuantizationLevel,
		}
	}
	return out, nil
}

type embedRequest struct {
	Model      string          `json:"model"`
	Input      []string        `json:"input"`
	Truncate   *bool           `json:"truncate,omitempty"`
	Dimensions int             `json:"dimensions,omitempty"`
	KeepAlive  json.RawMessage `json:"keep_alive,omitempty"`
}

// Embed computes embeddings (POST /api/embed), one vector per input.
func (c *Client) Embed(ctx context.Context, req *llm.EmbedRequest) (*llm.EmbedResponse, error) {
	body := &embedRequest{Model: req.Model, Input: req.Input, Truncate: req.Truncate, Dimensions: req.Dimensions, KeepAlive: keepAlive(req.KeepAlive)}
	if body.Input == nil {
		body.Input = []string{}
	}
	call := &wire.Call{Method: http.MethodPost, Path: "/api/embed", Model: req.Model, Body: body}
	var resp struct {
		Embeddings      [][]float32 `json:"embeddings"`
		PromptEvalCount int         `json:"prompt_eval_count"`
	}
	if err := c.w.JSON(ctx, call, &resp); err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(req.Input) {
		return nil, c.w.Err(call, llm.KindMalformedStream, http.StatusOK, "",
			fmt.Errorf("got %d embeddings for %d inputs", len(resp.Embeddings), len(req.Input)))
	}
	return &llm.EmbedResponse{Embeddings: resp.Embeddings, PromptTokens: resp.PromptEvalCount}, nil
}

// Version reports the server's version (GET /api/version).
func (c *Client) Version(ctx context.Context) (string, error) {
	var resp struct {
		Version string `json:"version"`
	}
	if err := c.w.JSON(ctx, &wire.Call{Method: http.MethodGet, Path: "/api/version"}, &resp); err != nil {
		return "", err
	}
	return resp.Version, nil
}
