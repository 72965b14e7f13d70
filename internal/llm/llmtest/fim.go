package llmtest

import (
	"context"
	"time"
)

// refuseCompletion returns the message of the 400 a real server answers a
// fill-in-the-middle request it refuses with, or "". Ollama's
// /api/generate refuses raw mode together with a system prompt (raw
// bypasses the template the system prompt would go into); vLLM's
// /v1/completions refuses suffix altogether. (A suffix for a model
// without the insert capability is refused by missingCapability.)
func (s *Server) refuseCompletion(req *Request, ep endpoint) string {
	if ep != endpointGenerate {
		return ""
	}
	switch {
	case req.Dialect == "ollama" && req.Raw && req.System != "":
		return "raw mode does not support template, system, or context"
	case req.Dialect == "openai" && s.flavor == FlavorVLLM && req.Suffix != "":
		return "suffix is not currently supported"
	}
	return ""
}

// WaitRequests waits until at least n requests to path have arrived (they
// may still be being answered), or ctx ends. Completion tests use it to
// act while a request is in flight: to type again, or cancel it.
func (s *Server) WaitRequests(ctx context.Context, path string, n int) error {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.countRequests(path) >= n {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *Server) countRequests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r.Path == path {
			n++
		}
	}
	return n
}
