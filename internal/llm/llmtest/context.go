package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/olly-agent/olly/internal/llm"
)

// Context windows. The fake renders every chat request as the model's
// template would (ChatML, the family of Qwen and many local models), counts
// the rendered prompt with its own tokenizer (Tokens; not olly's
// estimator), and fits it to the window as the real server does:
//
//   - Ollama (/api/chat): the window is num_ctx (default 4096), capped by
//     the trained context. A prompt over it is fitted silently — the
//     oldest messages are dropped (system messages and the last message
//     are kept), then, if the last message alone is still too long, the
//     prompt is cut to about half the window (llama-server's context
//     shift) — and prompt_eval_count is the size of what was kept. With
//     "truncate": false nothing is dropped and the request fails with the
//     runner's 400 passed on inside a string; for a model whose runner may
//     not shift (NoShift) a prompt still too long after dropping messages
//     gets "the prompt is longer than the context length currently
//     available to the model…".
//   - Ollama's /v1 layer has no num_ctx and no truncate: the model runs
//     with its default window (ServerContext, else 4096 capped by the
//     trained context) and the prompt is fitted silently as above.
//   - llama.cpp and vLLM refuse a prompt over the window with their 400.
//
// Each request records what happened: Rendered, PromptTokens, NumCtx,
// Truncated (the server cut the prompt) and Refused.

// ollamaDefaultNumCtx is Ollama's window when a request sets none.
const ollamaDefaultNumCtx = 4096

// ollamaNumKeep is Ollama's default num_keep: the tokens a context shift
// keeps from the start of the prompt.
const ollamaNumKeep = 4

// NoShift marks the model's runner as unable to shift its context (Ollama
// sets "shift": false by default for some model families): a prompt that
// still does not fit once the oldest messages are dropped is refused.
func NoShift() ModelOption { return func(m *model) { m.noShift = true } }

// ServerContext sets the window the server runs the model with when a
// request names none (Ollama's /v1 layer, llama.cpp's -c): default 4096,
// capped by the trained context.
func ServerContext(n int) ModelOption { return func(m *model) { m.serverCtx = n } }

// ContentOverCalls gives the model a qwen2.5-style chat template, which
// renders an assistant message's content *instead of* its tool calls when
// the message has both (`{{ if .Content }}…{{ else if .ToolCalls }}`): the
// model then never sees the call it made. Request.Rendered shows it.
func ContentOverCalls() ModelOption { return func(m *model) { m.contentOverCalls = true } }

// WithTokenizer replaces the fake's token count (see Tokens).
func WithTokenizer(fn func(string) int) Option { return func(s *Server) { s.tokenize = fn } }

// Tokens is the fake's default token count: a deterministic stand-in for
// a BPE tokenizer, deliberately not the agent's estimator and heavier on
// code. Special tokens such as <|im_start|> count one; a run of letters is
// a token per 5 letters started; every digit and every punctuation
// character is a token; a single space joins the next word; other
// whitespace runs are a token each.
func Tokens(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		switch {
		case c == '<' && strings.HasPrefix(s[i:], "<|"):
			if k := strings.Index(s[i:], "|>"); k > 0 && k < 32 {
				j = i + k + 2
			}
			n++
		case isLetter(c):
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			n += 1 + (j-i-1)/5
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
				j++
			}
			if j-i > 1 || c != ' ' {
				n++
			}
		case c >= 0x80:
			for j < len(s) && s[j]&0xC0 == 0x80 {
				j++
			}
			n++
		default: // digits and punctuation
			n++
		}
		i = j
	}
	return n
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

// count counts with the server's tokenizer.
func (s *Server) count(text string) int {
	if s.tokenize != nil {
		return s.tokenize(text)
	}
	return Tokens(text)
}

// render renders a chat as a ChatML template does; with contentOverCalls
// an assistant message with content shows no tool calls (qwen2.5).
func render(msgs []llm.Message, tools []llm.Tool, contentOverCalls bool) string {
	var b strings.Builder
	start := 0
	if len(tools) > 0 || (len(msgs) > 0 && msgs[0].Role == llm.RoleSystem) {
		b.WriteString("<|im_start|>system\n")
		if len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
			b.WriteString(msgs[0].Content)
			start = 1
		}
		if len(tools) > 0 {
			b.WriteString("\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>")
			for _, t := range tools {
				fn, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
				b.WriteString("\n")
				b.Write(fn)
			}
			b.WriteString("\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>")
		}
		b.WriteString("<|im_end|>\n")
	}
	for _, m := range msgs[start:] {
		switch m.Role {
		case llm.RoleTool:
			b.WriteString("<|im_start|>user\n<tool_response>\n" + m.Content + "\n</tool_response><|im_end|>\n")
		case llm.RoleAssistant:
			b.WriteString("<|im_start|>assistant\n")
			if m.Content != "" {
				b.WriteString(m.Content)
			}
			if len(m.ToolCalls) > 0 && (m.Content == "" || !contentOverCalls) {
				for _, c := range m.ToolCalls {
					args := c.Arguments
					if len(args) == 0 {
						args = json.RawMessage("{}")
					}
					fmt.Fprintf(&b, "\n<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", c.Name, args)
				}
			}
			b.WriteString("<|im_end|>\n")
		default:
			b.WriteString("<|im_start|>" + string(m.Role) + "\n" + m.Content + "<|im_end|>\n")
		}
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

// window is the context the request runs with.
func (m *model) window(req *Request) int {
	n := ollamaDefaultNumCtx
	if m.serverCtx > 0 {
		n = m.serverCtx
	}
	if req.Dialect == "ollama" && req.Options.NumCtx != nil && *req.Options.NumCtx > 0 {
		n = *req.Options.NumCtx
	}
	if m.ctxLen > 0 {
		n = min(n, m.ctxLen)
	}
	return n
}

// fit renders and counts a chat request and fits it to the window as the
// real server would. It reports false when it answered the request (a
// refusal).
func (s *Server) fit(w http.ResponseWriter, req *Request, m *model) bool {
	s.mu.Lock()
	mm := *m
	s.mu.Unlock()
	numCtx := mm.window(req)
	full := render(req.Messages, req.Tools, mm.contentOverCalls)
	tokens := s.count(full)
	s.mu.Lock()
	req.Rendered, req.PromptTokens, req.NumCtx, req.servedTokens = full, tokens, numCtx, tokens
	s.mu.Unlock()
	if tokens < numCtx {
		return true
	}
	refuse := func(status int, body any) bool {
		s.mu.Lock()
		req.Refused = true
		s.mu.Unlock()
		writeJSON(w, status, body)
		return false
	}
	switch {
	case req.Dialect == "openai" && s.flavor == FlavorLlamaCpp:
		return refuse(http.StatusBadRequest, map[string]any{"error": llamaServerOverflow(tokens, numCtx)})
	case req.Dialect == "openai" && s.flavor == FlavorVLLM:
		return refuse(http.StatusBadRequest, map[string]any{"object": "error", "type": "BadRequestError", "code": 400, "param": nil,
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens in the messages, Please reduce the length of the messages.", numCtx, tokens)})
	case req.Dialect == "ollama" && req.Truncate != nil && !*req.Truncate:
		inner, _ := json.Marshal(map[string]any{"error": llamaServerOverflow(tokens, numCtx)})
		return refuse(http.StatusBadRequest, map[string]string{"error": string(inner)})
	}
	kept, cut := s.dropOldest(req, mm, numCtx)
	if cut >= numCtx && mm.noShift {
		if req.Dialect == "openai" {
			return refuse(http.StatusBadRequest, map[string]any{"error": openaiError{Message: promptTooLong, Type: "invalid_request_error"}})
		}
		return refuse(http.StatusBadRequest, map[string]string{"error": promptTooLong})
	}
	if cut >= numCtx {
		cut = numCtx - max((numCtx-ollamaNumKeep)/2, 1)
	}
	s.mu.Lock()
	req.Truncated, req.Rendered, req.servedTokens = true, kept, cut
	s.mu.Unlock()
	return true
}

// dropOldest is Ollama's chatPrompt: drop messages from the front until
// the rest fits, keeping the system messages and always the last message.
func (s *Server) dropOldest(req *Request, m model, numCtx int) (string, int) {
	msgs := req.Messages
	var p string
	var n int
	for i := range msgs {
		var keep []llm.Message
		for _, x := range msgs[:i] {
			if x.Role == llm.RoleSystem {
				keep = append(keep, x)
			}
		}
		keep = append(keep, msgs[i:]...)
		p = render(keep, req.Tools, m.contentOverCalls)
		n = s.count(p)
		if n < numCtx {
			break
		}
	}
	return p, n
}
