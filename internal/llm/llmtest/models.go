package llmtest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// model is one installed model.
type model struct {
	name       string
	caps       []string
	ctxLen     int
	family     string
	paramSize  string
	quant      string
	size       int64
	template   string
	parameters string
	license    string
	running    bool
	numCtx     int
	expires    time.Time
	// context fitting (context.go)
	noShift          bool
	serverCtx        int
	contentOverCalls bool
}

// ModelOption describes a model added with AddModel.
type ModelOption func(*model)

// Caps sets the model's capabilities as Ollama names them: "completion",
// "tools", "thinking", "insert", "vision", "embedding". The default is
// completion and tools. Requests that need a missing capability (tools,
// think, a suffix, images, chat with an embedding-only model) get the 400
// Ollama sends, in both dialects: for tools (and the others its scheduler
// checks) with the model's full name, `registry.ollama.ai/library/m:latest
// does not support tools`; for thinking and chat with the name as
// requested, `"m" does not support thinking`.
func Caps(caps ...string) ModelOption { return func(m *model) { m.caps = caps } }

// ContextLength sets the trained context window, reported by /api/show as
// model_info "<family>.context_length" and by /v1/models per flavor.
func ContextLength(n int) ModelOption { return func(m *model) { m.ctxLen = n } }

// Family sets details.family and model_info general.architecture (default:
// the name up to ':').
func Family(f string) ModelOption { return func(m *model) { m.family = f } }

// ParameterSize sets details.parameter_size (default "8.2B").
func ParameterSize(s string) ModelOption { return func(m *model) { m.paramSize = s } }

// Quantization sets details.quantization_level (default "Q4_K_M").
func Quantization(q string) ModelOption { return func(m *model) { m.quant = q } }

// Size sets the model's size in bytes.
func Size(n int64) ModelOption { return func(m *model) { m.size = n } }

// Template sets the template /api/show reports (Go template text, as
// Ollama's TEMPLATE). The default is Ollama's for a model without one,
// "{{ .Prompt }}".
func Template(t string) ModelOption { return func(m *model) { m.template = t } }

// Running marks the model as loaded, as listed by /api/ps. A model also
// becomes running when it serves a request.
func Running() ModelOption { return func(m *model) { m.running = true } }

// AddModel installs a model, replacing one of the same name. As in Ollama,
// a name without a tag means ":latest": Ollama's endpoints (/api/tags,
// and /v1/models with FlavorOllama) list it with the tag, and requests may
// name it with or without. The other flavors list names as given.
func (s *Server) AddModel(name string, opts ...ModelOption) {
	m := &model{
		name:      name,
		caps:      []string{"completion", "tools"},
		family:    strings.SplitN(name, ":", 2)[0],
		paramSize: "8.2B",
		quant:     "Q4_K_M",
		size:      5_000_000_000,
		license:   "Apache License 2.0",
		template:  "{{ .Prompt }}",
	}
	for _, o := range opts {
		o(m)
	}
	if m.running {
		m.expires = time.Now().Add(5 * time.Minute)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = slices.DeleteFunc(s.models, func(o *model) bool { return o.name == name })
	s.models = append(s.models, m)
}

// requestedModel returns the model a request names, or answers the failure
// as the real server does (a body that does not decode, no model, an
// unknown one) and returns nil.
func (s *Server) requestedModel(w http.ResponseWriter, req *Request) *model {
	switch {
	case req.DecodeErr != nil:
		s.writeError(w, req, http.StatusBadRequest, req.DecodeErr.Error())
	case req.Model == "":
		s.writeError(w, req, http.StatusBadRequest, "model is required")
	default:
		if m := s.lookup(req.Model); m != nil {
			return m
		}
		s.notFound(w, req)
	}
	return nil
}

// lookup finds a model the way Ollama resolves names: "qwen3" means
// "qwen3:latest".
func (s *Server) lookup(name string) *model {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if m.name == name || m.tagged() == tagged(name) {
			return m
		}
	}
	return nil
}

// tagged is name with Ollama's default tag when it has none.
func tagged(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return name + ":latest"
}

// tagged is the model's name as Ollama lists it.
func (m *model) tagged() string { return tagged(m.name) }

// fullName is the name Ollama's scheduler gives a model in its errors:
// registry, namespace, model and tag.
func (m *model) fullName() string { return "registry.ollama.ai/library/" + m.tagged() }

// markRunning loads the model as a served request does; keep_alive 0
// unloads it.
func (s *Server) markRunning(m *model, req *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.KeepAlive == "0" {
		m.running = false
		return
	}
	m.running = true
	m.expires = time.Now().Add(5 * time.Minute)
	m.numCtx = m.window(req)
}

var modifiedAt = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

func (m *model) details() map[string]any {
	return map[string]any{
		"parent_model":       "",
		"format":             "gguf",
		"family":             m.family,
		"families":           []string{m.family},
		"parameter_size":     m.paramSize,
		"quantization_level": m.quant,
	}
}

func (m *model) listed() map[string]any {
	return map[string]any{
		"name":        m.tagged(),
		"model":       m.tagged(),
		"modified_at": modifiedAt.Format(time.RFC3339Nano),
		"size":        m.size,
		"digest":      digest(m.name),
		"details":     m.details(),
	}
}

func (s *Server) snapshot() []model {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]model, len(s.models))
	for i, m := range s.models {
		out[i] = *m
	}
	return out
}

func (s *Server) serveVersion(w http.ResponseWriter, _ *Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.version})
}

func (s *Server) tags(w http.ResponseWriter, _ *Request) {
	list := []map[string]any{}
	for _, m := range s.snapshot() {
		list = append(list, m.listed())
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": list})
}

func (s *Server) ps(w http.ResponseWriter, _ *Request) {
	list := []map[string]any{}
	for _, m := range s.snapshot() {
		if !m.running {
			continue
		}
		e := m.listed()
		delete(e, "modified_at")
		e["expires_at"] = m.expires.Format(time.RFC3339Nano)
		e["size_vram"] = m.size
		e["context_length"] = cmp.Or(m.numCtx, m.serverCtx, ollamaDefaultNumCtx)
		list = append(list, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": list})
}

func (s *Server) show(w http.ResponseWriter, req *Request) {
	mp := s.requestedModel(w, req)
	if mp == nil {
		return
	}
	s.mu.Lock()
	m := *mp
	s.mu.Unlock()
	info := map[string]any{
		"general.architecture":         m.family,
		"general.parameter_count":      int64(8_190_735_360),
		"general.file_type":            15,
		m.family + ".embedding_length": 4096,
		m.family + ".block_count":      36,
	}
	if m.ctxLen > 0 {
		info[m.family+".context_length"] = m.ctxLen
	}
	// Ollama's ShowResponse: parameters (and system, messages) are left
	// out when empty; tensors lists the weights (two here).
	resp := map[string]any{
		"license":      m.license,
		"modelfile":    "FROM " + m.name,
		"template":     m.template,
		"details":      m.details(),
		"model_info":   info,
		"tensors":      []map[string]any{{"name": "output_norm.weight", "type": "F32", "shape": []int{4096}}, {"name": "token_embd.weight", "type": "Q4_K", "shape": []int{4096, 151936}}},
		"capabilities": m.caps,
		"modified_at":  modifiedAt.Format(time.RFC3339Nano),
	}
	if m.parameters != "" {
		resp["parameters"] = m.parameters
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) openaiModels(w http.ResponseWriter, _ *Request) {
	list := []map[string]any{}
	for _, m := range s.snapshot() {
		e := map[string]any{"id": m.tagged(), "object": "model", "created": modifiedAt.Unix(), "owned_by": "library"}
		switch s.flavor {
		case FlavorVLLM:
			e["id"], e["owned_by"] = m.name, "vllm"
			if m.ctxLen > 0 {
				e["max_model_len"] = m.ctxLen
			}
		case FlavorLlamaCpp:
			e["id"], e["owned_by"] = m.name, "llamacpp"
			if m.ctxLen > 0 {
				e["meta"] = map[string]any{"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": m.ctxLen, "n_embd": 4096}
			}
		}
		list = append(list, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": list})
}

// capabilityError is the 400 text for a request that needs a capability
// the model lacks, or "". The order and wording are Ollama's: thinking is
// checked first and named with the model as requested, then the
// scheduler checks the rest and names the model in full, except that a
// missing "completion" is reported as chat or generate.
func capabilityError(m *model, req *Request, ep endpoint) string {
	if req.Think != nil && (req.Think.Enabled || req.Think.Level != "") && req.Dialect == "ollama" && !slices.Contains(m.caps, "thinking") {
		return fmt.Sprintf("%q does not support thinking", req.Model)
	}
	need := []string{}
	if ep == endpointChat || req.Prompt != "" {
		need = append(need, "completion")
	}
	if len(req.Tools) > 0 {
		need = append(need, "tools")
	}
	if req.Suffix != "" {
		need = append(need, "insert")
	}
	hasImages := len(req.Images) > 0
	for _, msg := range req.Messages {
		hasImages = hasImages || len(msg.Images) > 0
	}
	if hasImages {
		need = append(need, "vision")
	}
	for _, c := range need {
		if slices.Contains(m.caps, c) {
			continue
		}
		if c == "completion" {
			what := "chat"
			if ep == endpointGenerate {
				what = "generate"
			}
			return fmt.Sprintf("%q does not support %s", req.Model, what)
		}
		return m.fullName() + " does not support " + c
	}
	if hasImages {
		// A vision model decodes what it gets: bytes that are no image
		// are refused.
		imgs := slices.Clone(req.Images)
		for _, msg := range req.Messages {
			imgs = append(imgs, msg.Images...)
		}
		for _, img := range imgs {
			if err := checkImage(img); err != nil {
				return err.Error()
			}
		}
	}
	return ""
}
