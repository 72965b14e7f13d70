// Package models knows which models the server offers and what each can do,
// and picks one when the person has not: the orchestrator needs native tool
// calling to work well, so an unconfigured olly chooses a tool-capable model
// and says which.
package models

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/toolcall"
)

// showConcurrency bounds the parallel /api/show calls: one per model is
// quick on a local server, but a long list should not open dozens of
// connections at once.
const showConcurrency = 4

// Catalog lists models and caches their details for as long as it talks
// to one server (SetProvider starts afresh).
type Catalog struct {
	cache Cache
	// mu guards p and details, which SetProvider replaces together.
	mu      sync.Mutex
	p       llm.Provider
	details map[string]*llm.ModelDetails
}

// Cache is where the catalog records what the server offers and reads the
// person's choices for each model: the store's models table.
type Cache interface {
	RefreshModels(ctx context.Context, models []store.ModelInfo) error
	Models(ctx context.Context) ([]store.Model, error)
}

// NewCatalog returns a catalog over p.
func NewCatalog(p llm.Provider) *Catalog {
	return &Catalog{p: p, details: map[string]*llm.ModelDetails{}}
}

// WithCache makes every listing refresh c, lets the person's choices
// (enabled, context cap) annotate the list, and serves the cached list when
// the server cannot be reached.
func (c *Catalog) WithCache(cache Cache) *Catalog {
	c.cache = cache
	return c
}

// Model is an installed model with what the server says about it. Err is
// set when the details could not be fetched; the model is still listed.
type Model struct {
	llm.ModelDetails
	Running bool  `json:"running,omitempty"`
	Err     error `json:"-"`
	// Enabled is false for a model the person disabled: never picked
	// automatically, nor offered in pickers. True without a cache.
	Enabled bool `json:"enabled"`
	// NumCtxCap is the person's cap on the context window sent for this
	// model (0: none); it takes precedence over agent.maxContextWindow.
	NumCtxCap int `json:"numCtxCap,omitempty"`
	// Cached is set when the list came from the cache because the server
	// could not be reached.
	Cached bool `json:"cached,omitempty"`
	// Dialect is the tool-call markup the model's template writes
	// (toolcall.TemplateDialect), "" when none was recognised. Without
	// native tools, the agent asks for calls in it.
	Dialect toolcall.Format `json:"dialect,omitempty"`
}

// SetProvider points the catalog at another server (the settings page
// changed the connection): what it cached of the previous one is
// forgotten, and a question in flight to the previous server does not
// fill the new cache.
func (c *Catalog) SetProvider(p llm.Provider) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.p, c.details = p, map[string]*llm.ModelDetails{}
}

// server is the provider with the cache of its answers.
func (c *Catalog) server() (llm.Provider, map[string]*llm.ModelDetails) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.p, c.details
}

// Details returns what the server says about one model, cached.
func (c *Catalog) Details(ctx context.Context, name string) (*llm.ModelDetails, error) {
	p, details := c.server()
	c.mu.Lock()
	d, ok := details[name]
	c.mu.Unlock()
	if ok {
		return d, nil
	}
	d, err := p.ShowModel(ctx, name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	details[name] = d
	c.mu.Unlock()
	return d, nil
}

// List returns every installed model with its details, in the server's
// order (Ollama: most recently modified first). With a cache, the list is
// recorded there (models the server no longer has are marked not
// installed) and annotated with the person's choices.
func (c *Catalog) List(ctx context.Context) ([]Model, error) {
	out, err := c.fetch(ctx)
	if err != nil || c.cache == nil {
		return out, err
	}
	if err := c.cache.RefreshModels(ctx, cacheInfos(out)); err != nil {
		return out, fmt.Errorf("record the model list: %w", err)
	}
	choices, err := c.cache.Models(ctx)
	if err != nil {
		return out, err
	}
	byName := make(map[string]store.Model, len(choices))
	for _, m := range choices {
		byName[m.Name] = m
	}
	for i := range out {
		if m, ok := byName[out[i].Name]; ok {
			out[i].Enabled, out[i].NumCtxCap = m.Enabled, m.NumCtxCap
		}
	}
	return out, nil
}

// ListOrCached is List, falling back to the cached list when the server
// cannot be reached: offline then says why, and every model is Cached.
func (c *Catalog) ListOrCached(ctx context.Context) (list []Model, offline error, err error) {
	list, err = c.List(ctx)
	if err == nil || c.cache == nil || ctx.Err() != nil {
		return list, nil, err
	}
	cached, cerr := c.cache.Models(ctx)
	if cerr != nil {
		return nil, nil, err
	}
	list = list[:0]
	for _, m := range cached {
		if !m.Installed {
			continue
		}
		var caps llm.Capabilities
		_ = json.Unmarshal(m.Capabilities, &caps)
		d := llm.ModelDetails{ModelInfo: llm.ModelInfo{Name: m.Name, Size: m.Size, Family: m.Family, QuantizationLevel: m.Quantization},
			Capabilities: caps, ContextLength: m.ContextLength}
		dialect, _ := toolcall.ParseDialect(m.Dialect) // a name this olly does not know is no dialect
		list = append(list, Model{ModelDetails: d, Enabled: m.Enabled, NumCtxCap: m.NumCtxCap, Cached: true, Dialect: dialect})
	}
	return list, err, nil
}

// cacheInfos is what the cache keeps of a listing. A model whose details
// failed is recorded with what the listing said.
func cacheInfos(list []Model) []store.ModelInfo {
	out := make([]store.ModelInfo, 0, len(list))
	for _, m := range list {
		caps, _ := json.Marshal(m.Capabilities)
		out = append(out, store.ModelInfo{Name: m.Name, Size: m.Size, Family: m.Family,
			Quantization: m.QuantizationLevel, Capabilities: caps, ContextLength: m.ContextLength, Dialect: string(m.Dialect)})
	}
	return out
}

// fetch lists the server's models with their details.
func (c *Catalog) fetch(ctx context.Context) ([]Model, error) {
	p, _ := c.server()
	infos, err := p.ListModels(ctx)
	if err != nil {
		return nil, err
	}
	running := map[string]bool{}
	if rs, err := p.RunningModels(ctx); err == nil {
		for _, r := range rs {
			running[r.Name] = true
		}
	}
	out := make([]Model, len(infos))
	sem := make(chan struct{}, showConcurrency)
	var wg sync.WaitGroup
	for i, info := range infos {
		out[i] = Model{ModelDetails: llm.ModelDetails{ModelInfo: info}, Running: running[info.Name], Enabled: true}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			d, err := c.Details(ctx, info.Name)
			if err != nil {
				out[i].Err = err
				return
			}
			merged := *d
			merged.ModelInfo = mergeInfo(info, d.ModelInfo)
			out[i].ModelDetails = merged
			out[i].Dialect = toolcall.TemplateDialect(d.Template)
		}()
	}
	wg.Wait()
	return out, ctx.Err()
}

// mergeInfo keeps the listing's fields and fills the gaps from /api/show.
func mergeInfo(list, show llm.ModelInfo) llm.ModelInfo {
	if list.Family == "" {
		list.Family = show.Family
	}
	if list.ParameterSize == "" {
		list.ParameterSize = show.ParameterSize
	}
	if list.QuantizationLevel == "" {
		list.QuantizationLevel = show.QuantizationLevel
	}
	return list
}

// Choice is the model olly will use and why.
type Choice struct {
	Name string
	// Picked is true when olly chose the model because none was configured.
	Picked bool
	// Reason explains a pick, for the person ("qwen3:8b is loaded and can
	// call tools").
	Reason string
	// Details of the chosen model, when known.
	Details *llm.ModelDetails
}

// ErrNoToolModel means no installed model can call tools.
type ErrNoToolModel struct {
	Dialect   string
	Installed []string
}

func (e *ErrNoToolModel) Error() string {
	var b strings.Builder
	if len(e.Installed) == 0 {
		b.WriteString("no models are installed")
	} else {
		fmt.Fprintf(&b, "none of the installed models (%s) supports tool calling", strings.Join(e.Installed, ", "))
	}
	if e.Dialect == "ollama" {
		b.WriteString(" — install one, for example `ollama pull qwen3:8b` or `ollama pull qwen2.5-coder:7b`, or set agentMode.model to use a model with text tool calls")
	} else {
		b.WriteString(" — set agentMode.model to the model your server serves")
	}
	return b.String()
}

// PickAgent returns the model for agent work: the configured one if set
// (checked to exist), otherwise an installed, enabled model that can call
// tools — one already loaded first (it answers at once), then one whose name says it
// is for code, then the server's order.
func (c *Catalog) PickAgent(ctx context.Context, configured string) (Choice, error) {
	if configured != "" {
		d, err := c.Details(ctx, configured)
		if err != nil {
			return Choice{}, err
		}
		return Choice{Name: configured, Details: d}, nil
	}
	list, err := c.List(ctx)
	if err != nil {
		return Choice{}, err
	}
	var candidates []Model
	var names []string
	for _, m := range list {
		names = append(names, m.Name)
		if m.Err == nil && m.Enabled && m.Capabilities.Tools && !m.Capabilities.Embedding {
			candidates = append(candidates, m)
		}
	}
	if len(candidates) == 0 {
		return Choice{}, &ErrNoToolModel{Dialect: c.dialect(), Installed: names}
	}
	sort.SliceStable(candidates, func(i, j int) bool { return rank(candidates[i]) < rank(candidates[j]) })
	best := candidates[0]
	why := "can call tools"
	switch rank(best) {
	case 0:
		why = "is loaded and can call tools"
	case 1:
		why = "is a code model that can call tools"
	}
	d := best.ModelDetails
	return Choice{Name: best.Name, Picked: true, Details: &d,
		Reason: fmt.Sprintf("using %s: agentMode.model is not set and it %s (set agentMode.model to choose)", best.Name, why)}, nil
}

func rank(m Model) int {
	switch {
	case m.Running:
		return 0
	case strings.Contains(strings.ToLower(m.Name), "coder") || strings.Contains(strings.ToLower(m.Name), "code"):
		return 1
	}
	return 2
}

// dialect is the wire format of the catalog's server.
func (c *Catalog) dialect() string {
	p, _ := c.server()
	return p.Dialect()
}
