package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/rpcproto"
)

// pageConn is a WebSocket to the server as the page opens it.
type pageConn struct {
	t  *testing.T
	c  *websocket.Conn
	n  int
	to context.Context
}

func dialPage(t *testing.T, s *stack, session string) *pageConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws://"+s.ln.Addr().String()+"/ws?session="+session,
		&websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookieName + "=" + s.srv.Token()}, "Origin": {s.base()}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	return &pageConn{t: t, c: c, to: ctx}
}

// call sends a command and returns its response, skipping other frames.
func (p *pageConn) call(typ string, fields map[string]any) rpcproto.Response {
	p.t.Helper()
	p.n++
	id := "t" + string(rune('0'+p.n))
	msg := map[string]any{"id": id, "type": typ}
	for k, v := range fields {
		msg[k] = v
	}
	b, _ := json.Marshal(msg)
	if err := p.c.Write(p.to, websocket.MessageText, b); err != nil {
		p.t.Fatal(err)
	}
	for {
		_, b, err := p.c.Read(p.to)
		if err != nil {
			p.t.Fatal(err)
		}
		var r rpcproto.Response
		if json.Unmarshal(b, &r) == nil && r.Type == rpcproto.TypeResponse && string(r.ID) == `"`+id+`"` {
			return r
		}
	}
}

// The protocol commands the page uses besides prompting, over its WebSocket.
func TestPageCommands(t *testing.T) {
	s := newStack(t, map[string]string{"internal/parse/parse.go": "package parse\n", "README.md": "# x\n", "docs/parse.md": "x\n"})
	ctx := context.Background()
	other, err := s.app.Sessions.Create(ctx, session.CreateOptions{Workspace: s.ws, Mode: "agent", Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := s.app.Sessions.Emit(ctx, s.sess.ID, 1, event.UserMessage{Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	p := dialPage(t, s, s.sess.ID)

	r := p.call(rpcproto.CmdCompleteFiles, map[string]any{"query": "PARSE"})
	if !r.Success || !strings.Contains(string(r.Data), `"files":["docs/parse.md","internal/parse/parse.go"]`) {
		t.Errorf("complete files: %+v (%s)", r, r.Data)
	}

	r = p.call(rpcproto.CmdDeleteSessions, map[string]any{"ids": []string{s.sess.ID, other.ID}})
	var del rpcproto.DeleteSessionsResult
	if !r.Success || json.Unmarshal(r.Data, &del) != nil || len(del.Deleted) != 1 || del.Deleted[0] != other.ID ||
		len(del.Refused) != 1 || del.Refused[0].SessionID != s.sess.ID || !strings.Contains(del.Refused[0].Error, "current session") {
		t.Errorf("delete with the page's own session: %+v (%s)", r, r.Data)
	}
	if _, err := s.app.Sessions.Open(ctx, other.ID); err == nil {
		t.Error("the other session was not deleted")
	}
	if _, err := s.app.Sessions.Open(ctx, s.sess.ID); err != nil {
		t.Errorf("the page's own session was deleted: %v", err)
	}

	r = p.call("web_nonsense", nil)
	if r.Success || !strings.Contains(r.Error, "unknown command") {
		t.Errorf("unknown command: %+v", r)
	}
	// fork (pi's) moves the page's protocol server to the new session.
	r = p.call(rpcproto.CmdFork, map[string]any{"entryId": strconv.FormatInt(ev.Seq, 10)})
	var fork rpcproto.ForkResult
	if !r.Success || json.Unmarshal(r.Data, &fork) != nil || fork.SessionID == "" || fork.SessionID == s.sess.ID || fork.Text != "hello" {
		t.Fatalf("fork: %+v (%s)", r, r.Data)
	}
	r = p.call("get_state", nil)
	if !r.Success || !strings.Contains(string(r.Data), fork.SessionID) {
		t.Errorf("get_state after fork: %+v (%s)", r, r.Data)
	}
}
