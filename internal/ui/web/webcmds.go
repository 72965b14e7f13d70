package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/workspace"
	"github.com/olly-agent/olly/rpcproto"
)

// The page's commands besides RPC mode's, for what a person does in the
// sessions panel and the composer that RPC mode has no command for. They
// are answered like protocol commands (a response with the id).
const (
	// cmdDeleteSessions deletes sessions: {"ids": [...]}. The page's own
	// session and sessions generating are refused (each named).
	cmdDeleteSessions = "web_delete_sessions"
	// cmdForkSession copies a session into a new one: {"sessionId"}.
	cmdForkSession = "web_fork_session"
	// cmdCompleteFiles lists workspace files for @file completion:
	// {"query"} → {"files": [...]}.
	cmdCompleteFiles = "web_complete_files"
)

// Limits of file completion: the answers shown, and how much of a large
// workspace is walked to find them.
const (
	completeMax  = 30
	completeWalk = 50000
)

// webRequest is a page command's fields.
type webRequest struct {
	ID        json.RawMessage `json:"id"`
	Type      string          `json:"type"`
	IDs       []string        `json:"ids"`
	SessionID string          `json:"sessionId"`
	Query     string          `json:"query"`
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
	case cmdDeleteSessions:
		if len(r.IDs) == 0 {
			return nil, errors.New("missing field ids: the sessions to delete")
		}
		var deleted []string
		var errs []error
		for _, id := range r.IDs {
			if id == c.current() {
				errs = append(errs, fmt.Errorf("session %s is the one this page shows: open another first", id))
				continue
			}
			if err := svc.Delete(ctx, id); err != nil {
				errs = append(errs, fmt.Errorf("session %s: %w", id, err))
				continue
			}
			deleted = append(deleted, id)
		}
		if len(errs) > 0 {
			return nil, fmt.Errorf("deleted %d of %d: %w", len(deleted), len(r.IDs), errors.Join(errs...))
		}
		return map[string]any{"deleted": deleted}, nil
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
	case cmdCompleteFiles:
		files, err := c.completeFiles(ctx, r.Query)
		return map[string]any{"files": files}, err
	}
	return nil, fmt.Errorf("unknown command %q", r.Type)
}

// completeFiles lists the workspace's files whose path contains query
// (case-insensitive), shortest first; ignored files are left out.
func (c *conn) completeFiles(ctx context.Context, query string) ([]string, error) {
	sess, err := c.s.opts.RPC.Sessions.Open(ctx, c.current())
	if err != nil {
		return nil, err
	}
	ws, err := workspace.New([]string{sess.Workspace})
	if err != nil {
		return nil, err
	}
	files, err := ws.Files(ctx, completeWalk)
	if err != nil {
		return nil, err
	}
	q := strings.ToLower(query)
	var out []string
	for _, f := range files {
		if strings.Contains(strings.ToLower(f), q) {
			out = append(out, f)
		}
	}
	// Shorter paths first: the likelier match for what was typed.
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	return out[:min(len(out), completeMax)], nil
}
