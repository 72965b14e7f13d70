package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/rpcproto"
)

// The page's commands besides RPC mode's, for what a person does in the
// page that RPC mode has no command for yet. They are answered like
// protocol commands (a response with the id).
const (
	// cmdForkSession copies a session into a new one: {"sessionId"}.
	// (RPC mode is getting pi's fork command; the page moves to it then.)
	cmdForkSession = "web_fork_session"
)

// webRequest is a page command's fields.
type webRequest struct {
	ID        json.RawMessage `json:"id"`
	Type      string          `json:"type"`
	SessionID string          `json:"sessionId"`
}

// isWebCommand reports whether a message from the page is one of these
// commands (the rest go to the protocol server).
func isWebCommand(b []byte) (webRequest, bool) {
	if !strings.Contains(string(b[:min(len(b), 200)]), `"web_`) {
		return webRequest{}, false
	}
	var r webRequest
	if json.Unmarshal(b, &r) != nil || !strings.HasPrefix(r.Type, "web_") {
		return webRequest{}, false
	}
	return r, true
}

// answer runs a page command and sends its response.
func (c *conn) answer(ctx context.Context, r webRequest) {
	data, err := c.webCommand(ctx, r)
	resp := rpcproto.Response{ID: r.ID, Type: rpcproto.TypeResponse, Command: r.Type, Success: err == nil}
	if err != nil {
		resp.Error = err.Error()
	} else if resp.Data, err = json.Marshal(data); err != nil {
		resp.Success, resp.Error = false, err.Error()
	}
	b, err := json.Marshal(resp)
	if err == nil {
		err = c.send(ctx, b)
	}
	if err != nil {
		c.s.opts.Log.Warn("web: answer a page command", "command", r.Type, "error", err)
	}
}

func (c *conn) webCommand(ctx context.Context, r webRequest) (any, error) {
	svc := c.s.opts.RPC.Sessions
	switch r.Type {
	case cmdForkSession:
		id := r.SessionID
		if id == "" {
			id = c.current()
		}
		sess, _, err := svc.Fork(ctx, id, 0)
		if err != nil {
			return nil, err
		}
		return map[string]any{"sessionId": sess.ID}, nil
	}
	return nil, fmt.Errorf("unknown command %q", r.Type)
}
