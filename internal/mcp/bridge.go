package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/tools"
)

// ToolPrefix starts every bridged tool's name: mcp__<server>__<tool>.
const ToolPrefix = "mcp__"

// maxResultChars caps what one call returns to the model (the head and
// the tail are kept), as the other tools cap theirs.
const maxResultChars = 24000

// ToolName is the bridged name of a server's tool. Characters model APIs
// refuse in tool names become _, and the name is cut to 64.
func ToolName(server, tool string) string {
	name := ToolPrefix + server + "__" + sanitize(tool)
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	return string(b)
}

// bridged is one server tool as an olly tool. Every call goes through
// approvals unless mcp.allow lists it or its server, or it is annotated
// read-only and mcp.autoApproveReadOnly is on.
type bridged struct {
	m    *Manager
	c    *conn
	tool *sdk.Tool
}

func (b *bridged) Spec() llm.Tool {
	params, err := json.Marshal(b.tool.InputSchema)
	if err != nil || b.tool.InputSchema == nil || string(params) == "null" {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	desc := strings.TrimSpace(b.tool.Description)
	if desc == "" {
		desc = b.tool.Title
	}
	return llm.Tool{Name: ToolName(b.c.srv.Name, b.tool.Name),
		Description: fmt.Sprintf("[MCP server %s] %s", b.c.srv.Name, desc), Parameters: params}
}

// readOnly reports the server's read-only annotation.
func (b *bridged) readOnly() bool {
	return b.tool.Annotations != nil && b.tool.Annotations.ReadOnlyHint
}

func (b *bridged) allowed() bool {
	o := b.m.opts
	return slices.Contains(o.Allow, b.c.srv.Name) || slices.Contains(o.Allow, b.c.srv.Name+"/"+b.tool.Name) ||
		(o.AutoApproveReadOnly && b.readOnly())
}

// Prepare describes the call and the approval it needs.
func (b *bridged) Prepare(_ context.Context, _ *tools.Env, args tools.Args) (*tools.Prepared, error) {
	argv := map[string]any{}
	if err := args.Decode(&argv); err != nil {
		return &tools.Prepared{Done: errResult("Invalid arguments for %s: %v", b.tool.Name, err)}, nil
	}
	argText := compactJSON(argv)
	look := event.ToolAction{Text: fmt.Sprintf("%s · %s", b.c.srv.Name, b.tool.Name), Detail: clip(argText, 120)}
	p := &tools.Prepared{Display: look, Run: func(ctx context.Context, env *tools.Env, _ approval.Decision) (*tools.Result, error) {
		return b.call(ctx, env, argv)
	}}
	if b.allowed() {
		return p, nil
	}
	kind := "may change things"
	if b.readOnly() {
		kind = "says it only reads"
	}
	p.Approval = &approval.Request{Kind: event.ApprovalTool, Tool: ToolName(b.c.srv.Name, b.tool.Name),
		Arguments: clip(argText, 2000), Severity: safety.Medium,
		Reason: fmt.Sprintf("Call %s of MCP server %s (%s configuration; the tool %s)", b.tool.Name, b.c.srv.Name, b.c.srv.Source, kind)}
	return p, nil
}

// Run is a call made outside Execute: only what needs no approval.
func (b *bridged) Run(ctx context.Context, env *tools.Env, args tools.Args) (*tools.Result, error) {
	if !b.allowed() {
		return &tools.Result{Denied: true, Content: "This MCP tool needs the person's approval, which only Registry.Execute can ask for; it was not run."}, nil
	}
	argv := map[string]any{}
	if err := args.Decode(&argv); err != nil {
		return errResult("Invalid arguments for %s: %v", b.tool.Name, err), nil
	}
	return b.call(ctx, env, argv)
}

// call makes the call on the server's live session, reconnecting if the
// server went away since the turn started.
func (b *bridged) call(ctx context.Context, env *tools.Env, argv map[string]any) (*tools.Result, error) {
	s, attempted, err := b.c.get(ctx)
	if err != nil {
		if attempted && env != nil && env.Emit != nil {
			b.m.report(ctx, env.Session, env.Emit, b.c, true, err)
		}
		return errResult("MCP server %s is not available: %v. Its tools cannot be used now; continue without them or ask the person.", b.c.srv.Name, err), nil
	}
	cctx, cancel := context.WithTimeout(ctx, b.m.opts.CallTimeout)
	defer cancel()
	res, err := s.CallTool(cctx, &sdk.CallToolParams{Name: b.tool.Name, Arguments: argv})
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return errResult("MCP tool %s of server %s did not answer within %s (mcp.callTimeout).", b.tool.Name, b.c.srv.Name, b.m.opts.CallTimeout), nil
	case err != nil && isWireError(err):
		return errResult("MCP tool %s of server %s failed: %v", b.tool.Name, b.c.srv.Name, err), nil
	case err != nil:
		// The connection broke (the server died mid-call): drop it so the
		// next use reconnects, and say so.
		b.c.drop(s)
		msg := fmt.Sprintf("MCP server %s stopped during the call of %s: %v%s", b.c.srv.Name, b.tool.Name, err, b.c.stderrTail())
		if env != nil && env.Emit != nil {
			_ = env.Emit(context.WithoutCancel(ctx), event.MCPServerFailed{Server: b.c.srv.Name, Transport: b.c.srv.Type, Error: msg})
		}
		return errResult("%s. The call may or may not have taken effect; olly reconnects on the next use.", msg), nil
	}
	text := ResultText(res)
	out := &tools.Result{Content: text, IsError: res.IsError}
	out.Display = event.ToolAction{Output: clip(text, 2000)}
	return out, nil
}

// isWireError reports an error the server sent as a JSON-RPC error (the
// connection is fine).
func isWireError(err error) bool {
	var we interface{ ErrorCode() int64 }
	if errors.As(err, &we) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "calling \"tools/call\": ") && !strings.Contains(s, "connection closed") &&
		!strings.Contains(s, "EOF") && !strings.Contains(s, "broken pipe")
}

// ResultText converts a tool result for the model: text as it is, images
// and audio as a note, resources and links by URI with their text.
func ResultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(contentText(c))
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if js, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(js)
		}
	}
	if b.Len() == 0 {
		b.WriteString("(the tool returned no content)")
	}
	return capText(b.String(), maxResultChars)
}

func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes: not shown to the model]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes: not given to the model]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link %q: %s %s]", c.Name, c.URI, c.MIMEType)
	case *sdk.EmbeddedResource:
		return resourceText(c.Resource)
	}
	return fmt.Sprintf("[%T content: not shown]", c)
}

func resourceText(r *sdk.ResourceContents) string {
	if r == nil {
		return "[empty resource]"
	}
	if r.Text != "" || len(r.Blob) == 0 {
		return fmt.Sprintf("[resource %s %s]\n%s", r.URI, r.MIMEType, r.Text)
	}
	return fmt.Sprintf("[resource %s %s: %d bytes of binary data, not shown]", r.URI, r.MIMEType, len(r.Blob))
}

// capText keeps the head and tail of a long text, saying what was cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*3/4, n/4
	cut := len(s) - head - tail
	return strings.ToValidUTF8(s[:head], "") + fmt.Sprintf("\n[… %d characters cut …]\n", cut) + strings.ToValidUTF8(s[len(s)-tail:], "")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func errResult(format string, a ...any) *tools.Result {
	return &tools.Result{IsError: true, Content: fmt.Sprintf(format, a...)}
}
