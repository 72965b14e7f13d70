package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// writeJSON answers with one JSON document.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// openaiError is the OpenAI error object.
type openaiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    any     `json:"code"`
}

// writeError answers with the dialect's error body.
func (s *Server) writeError(w http.ResponseWriter, req *Request, status int, message string) {
	if req.Dialect != "openai" {
		writeJSON(w, status, map[string]string{"error": message})
		return
	}
	e := openaiError{Message: message, Type: "invalid_request_error"}
	switch {
	case status >= 500:
		e.Type = "server_error"
	case status == http.StatusUnauthorized:
		e.Code = "invalid_api_key"
	}
	writeJSON(w, status, map[string]any{"error": e})
}

// notFound answers as the real servers do for a model that is not there.
// Ollama words it differently by endpoint: chat, generate and show say
// `model 'x' not found`, embed says `model "x" not found, try pulling it
// first`; its /v1 layer passes the same text on in an OpenAI error object.
func (s *Server) notFound(w http.ResponseWriter, req *Request) {
	ollamaText := fmt.Sprintf("model '%s' not found", req.Model)
	if req.Path == "/api/embed" || req.Path == "/v1/embeddings" {
		ollamaText = fmt.Sprintf("model %q not found, try pulling it first", req.Model)
	}
	switch {
	case req.Dialect == "openai" && s.flavor == FlavorOllama:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": openaiError{Message: ollamaText, Type: "not_found_error"}})
	case req.Dialect == "openai":
		writeJSON(w, http.StatusNotFound, map[string]any{"error": openaiError{
			Message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model),
			Type:    "invalid_request_error",
			Code:    "model_not_found",
		}})
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": ollamaText})
	}
}

// overflow answers as a server whose context window the prompt exceeds:
// llama.cpp's exceed_context_size_error for the OpenAI dialect, Ollama's
// wording for chat and generate with "shift": false, and its embedding
// wording for the other paths (ContextOverflow scripts it for any path).
func (s *Server) overflow(w http.ResponseWriter, req *Request) {
	if req.Dialect == "openai" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": llamaServerOverflow(estimateTokens(req), 4096)})
		return
	}
	msg := "the input length exceeds the context length"
	if req.Path == "/api/chat" || req.Path == "/api/generate" {
		msg = promptTooLong
	}
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": msg})
}

// promptTooLong is Ollama's 400 for a prompt over num_ctx when the model's
// runner may not shift the context ("shift": false, the default of some
// model families).
const promptTooLong = "the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length"

// llamaServerOverflow is llama-server's error object for a prompt longer
// than its context.
func llamaServerOverflow(prompt, numCtx int) map[string]any {
	return map[string]any{
		"code":            400,
		"message":         "the request exceeds the available context size, try increasing it",
		"type":            "exceed_context_size_error",
		"n_prompt_tokens": prompt,
		"n_ctx":           numCtx,
	}
}

// streamWriter writes a streamed body and flushes every piece, so that the
// client sees each chunk when it is written, as from a real server.
type streamWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	crlf bool
}

func newStreamWriter(w http.ResponseWriter, contentType string, crlf bool) *streamWriter {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), crlf: crlf}
	_ = sw.rc.Flush()
	return sw
}

// raw writes b as it is.
func (sw *streamWriter) raw(b []byte) {
	_, _ = sw.w.Write(b)
	_ = sw.rc.Flush()
}

// line writes one NDJSON line.
func (sw *streamWriter) line(v any) {
	b, _ := json.Marshal(v)
	sw.raw(append(b, '\n'))
}

// event writes one server-sent event carrying data.
func (sw *streamWriter) event(data []byte) {
	nl := "\n"
	if sw.crlf {
		nl = "\r\n"
	}
	b := make([]byte, 0, len(data)+12)
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, nl+nl...)
	sw.raw(b)
}

// eventJSON writes one server-sent event carrying v as JSON.
func (sw *streamWriter) eventJSON(v any) {
	b, _ := json.Marshal(v)
	sw.event(b)
}

// drop closes the connection under the response, mid-body: the client sees
// the chunked body break off.
func (sw *streamWriter) drop() { dropConnection(sw.w) }

// dropConnection closes the connection. Hijack sends what was written
// before; nothing more (no Flush here, which would send headers that were
// not sent yet).
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2: aborting resets the stream
	}
	_ = conn.Close()
}

// sleep waits d; false if the client went away or the server is closing.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closing:
		return false
	}
}
