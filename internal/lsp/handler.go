package lsp

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/sourcegraph/jsonrpc2"
)

// handler answers what a server sends olly: notifications (diagnostics,
// log messages, progress) and requests (configuration, capability
// registration, progress tokens, workspace folders, message prompts). It
// runs on jsonrpc2's reader goroutine, so publications are recorded in the
// order the server sent them; nothing here blocks on the server.
type handler struct{ c *client }

// Handle implements jsonrpc2.Handler. A request's answer is worked out in
// order, but sent from its own goroutine: were the reader to block on a
// write to a server that is itself blocked writing to olly, neither would
// read again.
func (h *handler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		h.notification(req)
		return
	}
	result, rpcErr := h.request(req)
	if !h.c.addReply() {
		return // shutting down: nobody reads the answer
	}
	go func() {
		defer h.c.replies.Done()
		if rpcErr != nil {
			_ = conn.ReplyWithError(ctx, req.ID, rpcErr)
			return
		}
		_ = conn.Reply(ctx, req.ID, result)
	}()
}

func (h *handler) notification(req *jsonrpc2.Request) {
	c := h.c
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if err := unmarshalParams(req, &p); err != nil {
			c.log.Warn("malformed publishDiagnostics", "err", err)
			return
		}
		path, err := p.URI.Path()
		if err != nil {
			c.log.Debug("diagnostics for a non-file document", "uri", p.URI)
			return
		}
		c.diags.put(path, p.Version, p.Diagnostics)
	case "window/logMessage", "window/showMessage":
		var p logMessageParams
		if unmarshalParams(req, &p) == nil {
			c.log.Log(context.Background(), logLevel(p.Type), "server message", "message", p.Message)
		}
	case "$/progress":
		h.progress(req)
	default:
		c.log.Debug("notification ignored", "method", req.Method)
	}
}

// progress counts work-done reports in flight: while a server reports
// loading, its requests get the warm-up timeout.
func (h *handler) progress(req *jsonrpc2.Request) {
	var p struct {
		Value struct {
			Kind  string `json:"kind"`
			Title string `json:"title"`
		} `json:"value"`
	}
	if unmarshalParams(req, &p) != nil {
		return
	}
	switch p.Value.Kind {
	case "begin":
		h.c.progress.Add(1)
		h.c.log.Debug("progress begins", "title", p.Value.Title)
	case "end":
		if h.c.progress.Add(-1) < 0 {
			h.c.progress.Store(0)
		}
	}
}

func (h *handler) request(req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
	c := h.c
	switch req.Method {
	case "workspace/configuration":
		// olly has no per-server settings: null asks for the defaults.
		var p configurationParams
		if err := unmarshalParams(req, &p); err != nil {
			return nil, invalidParams(err)
		}
		return make([]any, len(p.Items)), nil
	case "client/registerCapability":
		var p registrationParams
		if err := unmarshalParams(req, &p); err != nil {
			return nil, invalidParams(err)
		}
		c.mu.Lock()
		for _, r := range p.Registrations {
			c.regs[r.ID] = r
		}
		c.mu.Unlock()
		return nil, nil
	case "client/unregisterCapability":
		var p unregistrationParams
		if err := unmarshalParams(req, &p); err != nil {
			return nil, invalidParams(err)
		}
		c.mu.Lock()
		for _, r := range p.Unregisterations {
			delete(c.regs, r.ID)
		}
		c.mu.Unlock()
		return nil, nil
	case "workspace/workspaceFolders":
		return c.folders, nil
	case "window/workDoneProgress/create", "window/showMessageRequest",
		"workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh", "workspace/inlineValue/refresh":
		return nil, nil
	case "workspace/applyEdit":
		// Every change to the workspace goes through olly's tools, with
		// checkpoints and approvals; a server may not edit on its own.
		return map[string]any{"applied": false, "failureReason": "olly does not let language servers edit files"}, nil
	}
	c.log.Debug("request not supported", "method", req.Method)
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "olly does not support " + req.Method}
}

func unmarshalParams(req *jsonrpc2.Request, v any) error {
	if req.Params == nil {
		return nil
	}
	return json.Unmarshal(*req.Params, v)
}

func invalidParams(err error) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
}

// logLevel maps the protocol's MessageType (1 error … 4 log) to slog.
func logLevel(t int) slog.Level {
	switch t {
	case 1:
		return slog.LevelError
	case 2:
		return slog.LevelWarn
	case 3:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}
