package llmtest

import (
	"fmt"
	"net/http"
	"time"
)

// endpoint is the kind of generation request.
type endpoint int

const (
	endpointChat endpoint = iota
	endpointGenerate
)

// emitter frames a reply's parts in one dialect.
type emitter interface {
	start()
	text(s string)
	thinking(s string)
	toolCall(id, name, args string, index int)
	malformed(line string)
	streamError(msg string)
	drop()
	// endEarly ends the response without its final chunk, as Ollama does
	// when it stops a model that repeats itself.
	endEarly()
	final(m replyMeta)
}

// serveGeneration validates a chat or generate request as the real server
// does, takes its scripted response, and serves it.
func (s *Server) serveGeneration(w http.ResponseWriter, r *http.Request, req *Request, ep endpoint) {
	m := s.requestedModel(w, req)
	if m == nil {
		return
	}
	if req.Dialect == "ollama" && isLoadRequest(req, ep) {
		s.markRunning(m, req)
		s.serveLoad(w, req, ep)
		return
	}
	if msg := capabilityError(m, req, ep); msg != "" {
		s.writeError(w, req, http.StatusBadRequest, msg)
		return
	}
	if ep == endpointChat && !s.fit(w, req, m) {
		return // refused: the prompt does not fit (context.go)
	}
	if msg := s.refuseCompletion(req, ep); msg != "" {
		s.writeError(w, req, http.StatusBadRequest, msg)
		return
	}
	resp, ok := s.next(req)
	if !ok {
		s.unscripted(w, req, "reply")
		return
	}
	if resp.kind != kindReply {
		s.serveFailure(w, r, req, resp)
		return
	}
	s.markRunning(m, req)
	s.run(r, req, resp.parts, s.emitterFor(w, req, ep))
}

// isLoadRequest is Ollama's way to load (or, with keep_alive 0, unload) a
// model: a chat without messages or a generate without a prompt.
func isLoadRequest(req *Request, ep endpoint) bool {
	if ep == endpointChat {
		return len(req.Messages) == 0
	}
	return req.Prompt == "" && req.Suffix == "" && len(req.Images) == 0
}

func (s *Server) serveLoad(w http.ResponseWriter, req *Request, ep endpoint) {
	reason := "load"
	if req.KeepAlive == "0" {
		reason = "unload"
	}
	out := map[string]any{"model": req.Model, "created_at": now(), "done_reason": reason, "done": true}
	if ep == endpointChat {
		out["message"] = map[string]string{"role": "assistant", "content": ""}
	} else {
		out["response"] = ""
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) emitterFor(w http.ResponseWriter, req *Request, ep endpoint) emitter {
	s.mu.Lock()
	s.respSeq++
	seq := s.respSeq
	s.mu.Unlock()
	switch {
	case req.Dialect == "openai" && ep == endpointChat:
		return s.newOpenAIChat(w, req, seq)
	case req.Dialect == "openai":
		return s.newOpenAICompletion(w, req, seq)
	case !req.Stream:
		return &ollamaWhole{s: s, w: w, req: req, gen: ep == endpointGenerate}
	default:
		return &ollamaStream{s: s, w: w, req: req, gen: ep == endpointGenerate}
	}
}

// run plays the parts through the emitter.
func (s *Server) run(r *http.Request, req *Request, parts []Part, em emitter) {
	em.start()
	calls := 0
	for _, p := range parts {
		switch p.kind {
		case partText:
			em.text(p.text)
		case partThinking:
			em.thinking(p.text)
		case partToolCall:
			id := p.id
			if id == "" {
				id = s.nextCallID()
			}
			em.toolCall(id, p.name, p.text, calls)
			calls++
		case partDelay:
			if !s.sleep(r, p.d[0]) {
				return
			}
		case partMalformed:
			em.malformed(p.text)
		case partDrop:
			em.drop()
			return
		case partStreamError:
			em.streamError(p.text)
			return
		case partEndEarly:
			em.endEarly()
			return
		case partStall:
			s.wait(r)
			return
		}
	}
	em.final(metaOf(parts))
}

func (s *Server) nextCallID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callSeq++
	return fmt.Sprintf("call_%d", s.callSeq)
}

// now is the timestamp format of Ollama's created_at.
func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
