package lspserver

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

// startCompletion takes a snapshot of the document now (so the keystrokes
// after it cannot change what is asked), cancels the completion in
// flight, and answers on its own goroutine.
func (s *Server) startCompletion(conn *jsonrpc2.Conn, req *jsonrpc2.Request, inline bool) {
	var p inlineCompletionParams
	if err := unmarshal(req, &p); err != nil {
		_ = conn.ReplyWithError(s.ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()})
		return
	}
	invoked := inline && p.Context.TriggerKind == triggerInvoked
	snap, near, err := s.snapshot(p.TextDocument.URI, p.Position)
	if err != nil {
		_ = conn.ReplyWithError(s.ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()})
		return
	}
	if !s.set.Enabled && !invoked {
		s.reply(conn, req, emptyResult(inline), nil)
		return
	}
	s.cancelInflight(errSuperseded)
	ctx, cancel := context.WithCancelCause(s.ctx)
	key := req.ID.String()
	s.mu.Lock()
	s.inflight = &pending{id: req.ID, cancel: cancel}
	s.byID[key] = func() { cancel(context.Canceled) }
	s.mu.Unlock()
	s.goFn(func() {
		defer func() {
			s.mu.Lock()
			delete(s.byID, key)
			if s.inflight != nil && s.inflight.id == req.ID {
				s.inflight = nil
			}
			s.mu.Unlock()
			cancel(nil)
		}()
		text, err := s.complete(ctx, snap, near)
		if err != nil {
			_ = conn.ReplyWithError(s.ctx, req.ID, &jsonrpc2.Error{Code: codeRequestCancelled, Message: "completion canceled: " + err.Error()})
			return
		}
		s.reply(conn, req, result(inline, text, snap.pos), nil)
	})
}

// cancelInflight cancels the completion in flight, if any.
func (s *Server) cancelInflight(cause error) {
	s.mu.Lock()
	p := s.inflight
	s.inflight = nil
	s.mu.Unlock()
	if p != nil {
		p.cancel(cause)
	}
}

// snapshot copies what a completion at pos needs, and records pos as
// where the person works in that document.
func (s *Server) snapshot(uri lsp.DocumentURI, pos lsp.Position) (*snapshot, []*document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	if d == nil {
		return nil, nil, errors.New("the document is not open (send textDocument/didOpen first)")
	}
	off, err := positionOf(d, pos)
	if err != nil {
		return nil, nil, err
	}
	d.near = off
	snap := &snapshot{uri: uri, lang: d.lang, version: d.version, text: d.text, offset: off, pos: pos}
	// Documents are replaced, never edited in place, under the lock: the
	// other documents' text and near can be read after it is released
	// only through copies.
	var near []*document
	for _, o := range others(s.docs, uri) {
		near = append(near, &document{uri: o.uri, text: o.text, near: o.near})
	}
	return snap, near, nil
}

// complete waits out the debounce, asks the model once, and cleans its
// answer. It returns an error only when canceled (a newer keystroke, or
// the editor); a model that fails or is too slow gives no completion.
func (s *Server) complete(ctx context.Context, snap *snapshot, near []*document) (string, error) {
	if s.set.Debounce > 0 {
		t := time.NewTimer(s.set.Debounce)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return "", context.Cause(ctx)
		}
	}
	c, err := s.model.get(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return "", nil
	}
	p := buildPrompt(snap, near, &s.set)
	budget := ctx
	if s.set.LatencyBudget > 0 {
		var cancel context.CancelFunc
		budget, cancel = context.WithTimeout(ctx, s.set.LatencyBudget)
		defer cancel()
	}
	out, err := s.generate(budget, c, &p)
	switch {
	case ctx.Err() != nil:
		return "", context.Cause(ctx)
	case budget.Err() != nil:
		s.log.Info("lsp: completion dropped: over the latency budget", "budget", s.set.LatencyBudget, "model", c.model)
		return "", nil
	case err != nil:
		s.modelFailed(c, err)
		return "", nil
	}
	return clean(out, &p), nil
}

// generate makes the model call and reads the middle. A one-line
// completion stops reading (and so the server generating) at the first
// line break; every completion stops at a leaked FIM token.
func (s *Server) generate(ctx context.Context, c *choice, p *prompt) (string, error) {
	req := s.request(c, p)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := s.opts.Provider.Generate(ctx, req)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var b strings.Builder
	for {
		ch, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		b.WriteString(ch.Response)
		if ch.Done || enough(b.String(), p) {
			return b.String(), nil
		}
	}
}

// enough reports whether the middle so far is all that will be used.
func enough(out string, p *prompt) bool {
	if !p.multiLine && strings.ContainsAny(out, "\r\n") {
		return true
	}
	for _, t := range leakTokens {
		if strings.Contains(out, t) {
			return true
		}
	}
	return false
}

// request builds the one model call for the choice's mode.
func (s *Server) request(c *choice, p *prompt) *llm.GenerateRequest {
	req := &llm.GenerateRequest{
		Model:     c.model,
		KeepAlive: s.set.KeepAlive,
		Options: llm.Options{
			Temperature: llm.Ptr(s.set.Temperature),
			NumPredict:  llm.Ptr(s.set.MaxTokens),
		},
	}
	if c.family != nil {
		req.Options.Stop = append(req.Options.Stop, c.family.Stop...)
	}
	if !p.multiLine {
		req.Options.Stop = append(req.Options.Stop, "\n")
	}
	switch c.mode {
	case modeInsert, modeSuffix:
		req.Prompt, req.Suffix = p.prefix, p.suffix
	case modeRaw:
		req.Prompt, req.Raw = c.family.Prompt(p.prefix, p.suffix), true
	default:
		req.Prompt = p.prefix
	}
	return req
}

// modelFailed logs a failed completion, and switches away from the
// suffix when the server refused it.
func (s *Server) modelFailed(c *choice, err error) {
	s.log.Warn("lsp: completion failed", "model", c.model, "error", err)
	if c.mode == modeSuffix && errors.Is(err, llm.ErrBadRequest) && strings.Contains(strings.ToLower(err.Error()), "suffix") {
		s.model.noSuffix()
	}
}

func emptyResult(inline bool) any { return result(inline, "", lsp.Position{}) }

// result is the answer in the request's shape: an inline completion list,
// or a completion list whose one item inserts at the cursor.
func result(inline bool, text string, pos lsp.Position) any {
	if inline {
		list := inlineCompletionList{Items: []inlineCompletionItem{}}
		if text != "" {
			list.Items = append(list.Items, inlineCompletionItem{InsertText: text, Range: &lsp.Range{Start: pos, End: pos}})
		}
		return list
	}
	list := completionList{IsIncomplete: true, Items: []completionItem{}}
	if text != "" {
		list.Items = append(list.Items, completionItem{
			Label: label(text), Kind: 1, Detail: "olly", Documentation: text,
			InsertTextFormat: 1, TextEdit: textEdit{Range: lsp.Range{Start: pos, End: pos}, NewText: text},
			SortText: "0", Preselect: true,
		})
	}
	return list
}

// label is a completion's first line, shortened for a menu.
func label(text string) string {
	first, _, more := strings.Cut(strings.TrimLeft(text, " \t\r\n"), "\n")
	first = strings.TrimRight(first, " \t\r")
	if utf8.RuneCountInString(first) > 60 {
		first = string([]rune(first)[:59]) + "…"
	} else if more {
		first += " …"
	}
	return first
}
