package llmtest

import (
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// embeddings computes the vectors of an embed request, or answers the
// failure itself and returns false.
func (s *Server) embeddings(w http.ResponseWriter, req *Request) ([][]float32, bool) {
	m := s.requestedModel(w, req)
	if m == nil {
		return nil, false
	}
	s.mu.Lock()
	fn := s.embedder
	s.mu.Unlock()
	if fn == nil {
		s.unscripted(w, req, "embedder (SetEmbedder)")
		return nil, false
	}
	s.markRunning(m, req)
	out := make([][]float32, len(req.Input))
	for i, in := range req.Input {
		v := fn(req.Model, in)
		if req.Dimensions > 0 && req.Dimensions < len(v) {
			v = v[:req.Dimensions]
		}
		out[i] = v
	}
	return out, true
}

func (s *Server) ollamaEmbed(w http.ResponseWriter, req *Request) {
	vecs, ok := s.embeddings(w, req)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"model":             req.Model,
		"embeddings":        vecs,
		"total_duration":    3_000_000,
		"load_duration":     1_000_000,
		"prompt_eval_count": inputTokens(req.Input),
	})
}

func (s *Server) openaiEmbed(w http.ResponseWriter, req *Request) {
	vecs, ok := s.embeddings(w, req)
	if !ok {
		return
	}
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "embedding": v, "index": i}
	}
	n := inputTokens(req.Input)
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   data,
		"model":  req.Model,
		"usage":  map[string]int{"prompt_tokens": n, "total_tokens": n},
	})
}

func inputTokens(in []string) int {
	n := 0
	for _, s := range in {
		n += len(s)/4 + 1
	}
	return n
}

// HashEmbedder returns an embedder whose vectors are deterministic and
// meaningful enough for search tests: each word is hashed into one of dim
// buckets and the vector is normalised, so texts that share words have a
// high cosine similarity and unrelated texts a low one.
func HashEmbedder(dim int) func(model, input string) []float32 {
	return func(_, input string) []float32 {
		v := make([]float32, dim)
		words := strings.FieldsFunc(strings.ToLower(input), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		for _, w := range words {
			h := fnv.New64a()
			_, _ = h.Write([]byte(w))
			sum := h.Sum64()
			sign := float32(1)
			if sum&1 == 1 {
				sign = -1
			}
			v[(sum>>1)%uint64(dim)] += sign
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			inv := float32(1 / math.Sqrt(norm))
			for i := range v {
				v[i] *= inv
			}
		}
		return v
	}
}
