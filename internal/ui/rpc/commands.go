package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/olly-agent/olly/rpcproto"
)

// command is one command the server answers.
type command struct {
	name  string
	about string
	// req and resp are the command's field and result types (docs).
	req, resp reflect.Type
	// async commands run in their own goroutine: they wait on a model or
	// a shell, and the server keeps reading (abort must get through).
	async bool
	run   func(ctx context.Context, s *Server, c *call) (any, error)
}

// call is one command being answered.
type call struct {
	id   json.RawMessage
	name string
	body json.RawMessage
	// after, when set by the handler, runs once the response is written:
	// work whose events must follow the response.
	after func()
}

// def defines a command whose fields decode into Req and whose result is
// Resp.
func def[Req, Resp any](name, about string, async bool, fn func(context.Context, *Server, *call, Req) (Resp, error)) *command {
	return &command{name: name, about: about, async: async,
		req: reflect.TypeFor[Req](), resp: reflect.TypeFor[Resp](),
		run: func(ctx context.Context, s *Server, c *call) (any, error) {
			var req Req
			if err := decodeBody(c.body, &req); err != nil {
				return nil, err
			}
			if err := checkRequired(&req); err != nil {
				return nil, err
			}
			resp, err := fn(ctx, s, c, req)
			if err != nil {
				return nil, err
			}
			return resp, nil
		}}
}

// commandTable lists every command, in the reference's order.
func commandTable() map[string]*command {
	out := map[string]*command{}
	for _, c := range commandList() {
		out[c.name] = c
	}
	return out
}

// commandList is every command, grouped as docs/rpc.md shows them.
func commandList() []*command {
	cmds := append(append(append(promptCommands(), sessionCommands()...), changeCommands()...), queryCommands()...)
	return append(append(append(append(cmds, parityCommands()...), manageCommands()...), settingsCommands()...), trustCommands()...)
}

// handle answers one line.
func (s *Server) handle(l line) {
	if l.err != nil {
		s.respond(nil, rpcproto.CmdParse, nil, l.err)
		return
	}
	if len(bytes.TrimSpace(l.b)) == 0 {
		return // blank lines are keep-alives
	}
	req, err := decodeRequest(l.b)
	if err != nil {
		name := req.typ
		if name == "" {
			name = rpcproto.CmdParse
		}
		s.respond(req.id, name, nil, err)
		return
	}
	cmd, ok := s.cmds[req.typ]
	if !ok {
		s.respond(req.id, req.typ, nil, fmt.Errorf("unknown command %q: the ready frame lists the commands this olly answers (docs/rpc.md describes them)", req.typ))
		return
	}
	c := &call{id: req.id, name: req.typ, body: req.body}
	run := func(ctx context.Context) {
		data, err := s.safeRun(ctx, cmd, c)
		s.respond(c.id, c.name, data, err)
		if err == nil && c.after != nil {
			c.after()
		}
	}
	if cmd.async {
		s.goWork(run)
		return
	}
	run(s.work)
}

// safeRun runs a command, turning a panic into an error response: one bad
// command must not end the session.
func (s *Server) safeRun(ctx context.Context, cmd *command, c *call) (data any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log().Error("rpc: a command panicked", "command", c.name, "panic", p, "stack", string(debug.Stack()))
			data, err = nil, fmt.Errorf("%s failed inside olly (%v); the log has the details — please report it", c.name, p)
		}
	}()
	return cmd.run(ctx, s, c)
}

// checkRequired refuses a request whose rpc:"required" fields are missing:
// a blank string, a nil pointer, a zero number.
func checkRequired(v any) error {
	rv := reflect.ValueOf(v).Elem()
	if rv.Kind() != reflect.Struct {
		return nil
	}
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Tag.Get("rpc") != "required" {
			continue
		}
		fv := rv.Field(i)
		missing := fv.IsZero()
		if fv.Kind() == reflect.String {
			missing = strings.TrimSpace(fv.String()) == ""
		}
		if missing {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			return fmt.Errorf("missing field %s: %s", name, f.Tag.Get("doc"))
		}
	}
	return nil
}
