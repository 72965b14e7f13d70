package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/tools"
)

// ReadResourceTool reads a resource of a connected server.
const ReadResourceTool = "mcp_read_resource"

// readResource is mcp_read_resource, offered when a connected server
// serves resources. Reading is not an action on the world, so it asks no
// approval: the server was configured (and, for a project's, trusted) by
// the person.
type readResource struct{ m *Manager }

func (r *readResource) Spec() llm.Tool {
	var names []string
	for _, n := range r.m.order {
		if _, _, res := r.m.conns[n].snapshot(); res {
			names = append(names, n)
		}
	}
	return llm.Tool{Name: ReadResourceTool,
		Description: "Read a resource (a file, record or document) an MCP server offers, by its URI. Servers with resources: " +
			strings.Join(names, ", ") + ". Call with uri empty to list a server's resources.",
		Parameters: []byte(`{"type":"object","properties":{"server":{"type":"string","description":"The MCP server's name."},"uri":{"type":"string","description":"The resource's URI; empty lists the server's resources."}},"required":["server"]}`)}
}

func (r *readResource) Describe(args tools.Args) event.ToolAction {
	server, _ := args.String("server")
	uri, _ := args.String("uri")
	return event.ToolAction{Text: "Read MCP resource", Detail: server + " " + uri}
}

func (r *readResource) Run(ctx context.Context, env *tools.Env, args tools.Args) (*tools.Result, error) {
	server, _ := args.String("server")
	uri, _ := args.String("uri")
	c := r.m.conns[server]
	if c == nil {
		return errResult("No MCP server named %q. Servers: %s.", server, strings.Join(r.m.order, ", ")), nil
	}
	s, _, err := c.get(ctx)
	if err != nil {
		return errResult("MCP server %s is not available: %v", server, err), nil
	}
	cctx, cancel := context.WithTimeout(ctx, r.m.opts.CallTimeout)
	defer cancel()
	if uri == "" {
		return listResources(cctx, s, server)
	}
	res, err := s.ReadResource(cctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return errResult("MCP server %s could not read %s: %v", server, uri, err), nil
	}
	var b strings.Builder
	for _, c := range res.Contents {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(resourceText(c))
	}
	if b.Len() == 0 {
		b.WriteString("(empty resource)")
	}
	return &tools.Result{Content: capText(b.String(), maxResultChars)}, nil
}

// listResources lists up to 200 resources of a server.
func listResources(ctx context.Context, s *sdk.ClientSession, server string) (*tools.Result, error) {
	var b strings.Builder
	n := 0
	for res, err := range s.Resources(ctx, nil) {
		if err != nil {
			return errResult("MCP server %s could not list its resources: %v", server, err), nil
		}
		if n == 200 {
			b.WriteString("… more resources not listed\n")
			break
		}
		fmt.Fprintf(&b, "%s  %s %s\n", res.URI, res.Name, res.MIMEType)
		n++
	}
	if n == 0 {
		return &tools.Result{Content: fmt.Sprintf("MCP server %s lists no resources.", server)}, nil
	}
	return &tools.Result{Content: b.String()}, nil
}
