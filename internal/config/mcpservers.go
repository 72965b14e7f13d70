package config

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MCPServer is one MCP server olly may connect to: a program it starts
// (Command, Args, Env; transport stdio) or a URL (Type http for streamable
// HTTP, sse for the older HTTP+SSE transport). The same shape is read from
// mcp.servers and from a project's .mcp.json.
type MCPServer struct {
	Name    string            `yaml:"-" json:"-"`
	Type    string            `yaml:"type,omitempty" json:"type,omitempty"`
	Command string            `yaml:"command,omitempty" json:"command,omitempty"`
	Args    []string          `yaml:"args,omitempty" json:"args,omitempty"`
	Env     map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	URL     string            `yaml:"url,omitempty" json:"url,omitempty"`
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
}

// MCP transports.
const (
	MCPStdio = "stdio"
	MCPHTTP  = "http"
	MCPSSE   = "sse"
)

var mcpNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// Normalize fills the transport from the fields given ("streamable-http"
// and "streamableHttp" read as http) and checks the entry, saying what to
// fix.
func (s *MCPServer) Normalize() error {
	if !mcpNameRE.MatchString(s.Name) || strings.Contains(s.Name, "__") {
		return fmt.Errorf("MCP server name %q: use letters, digits, - and _ (no \"__\"), at most 64", s.Name)
	}
	switch strings.ToLower(s.Type) {
	case "":
		if s.URL != "" && s.Command == "" {
			s.Type = MCPHTTP
		} else {
			s.Type = MCPStdio
		}
	case "stdio":
		s.Type = MCPStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		s.Type = MCPHTTP
	case "sse":
		s.Type = MCPSSE
	default:
		return fmt.Errorf("MCP server %s: type %q is not stdio, http or sse", s.Name, s.Type)
	}
	if s.Type == MCPStdio {
		if strings.TrimSpace(s.Command) == "" {
			return fmt.Errorf("MCP server %s: a stdio server needs a command (or give a url)", s.Name)
		}
		return nil
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("MCP server %s: url %q is not an http(s) URL", s.Name, s.URL)
	}
	return nil
}

// mcpServersType is mcp.servers' Go type.
var mcpServersType = reflect.TypeFor[[]MCPServer]()

// serversKind reads mcp.servers: a mapping of server name to
// {command, args, env} or {url, type, headers}, held sorted by name.
type serversKind struct{}

func (serversKind) goType() reflect.Type { return mcpServersType }
func (serversKind) typeName() string     { return "MCP servers" }

func (serversKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return []MCPServer(nil), nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, typeProblem(e, describe(n))
	}
	var out []MCPServer
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolveAlias(n.Content[i]), resolveAlias(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.MappingNode {
			return nil, &problem{kind: ErrType, line: k.Line,
				msg: "each MCP server is NAME: {command: …, args: […]} or NAME: {url: …, type: http|sse}"}
		}
		if seen[k.Value] {
			return nil, &problem{kind: ErrDuplicate, line: k.Line, msg: fmt.Sprintf("MCP server %q is listed twice", k.Value)}
		}
		seen[k.Value] = true
		var s MCPServer
		if err := v.Decode(&s); err != nil {
			return nil, &problem{kind: ErrType, line: v.Line, msg: fmt.Sprintf("MCP server %s: %v", k.Value, err)}
		}
		s.Name = k.Value
		if err := s.Normalize(); err != nil {
			return nil, &problem{kind: ErrInvalid, line: v.Line, msg: err.Error()}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (k serversKind) fromText(e *entry, s string) (any, *problem) {
	n, err := parseValueText(s)
	if err != nil {
		return nil, problemf(ErrType, "expected %s: %v", e.expect(), err)
	}
	return k.fromNode(e, n)
}

func (serversKind) toNode(v any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, s := range v.([]MCPServer) {
		var body yaml.Node
		if err := body.Encode(s); err != nil {
			continue // plain strings and maps always encode
		}
		n.Content = append(n.Content, scalar("!!str", s.Name), &body)
	}
	return n
}

// text shows the servers with the values of env and headers masked: they
// are usually tokens (GITHUB_TOKEN, Authorization), and listings must not
// print them.
func (k serversKind) text(v any) string {
	servers := masked(v.([]MCPServer))
	if len(servers) == 0 {
		return "{}"
	}
	n := k.toNode(servers)
	n.Style = yaml.FlowStyle
	return nodeText(n)
}

func (serversKind) jsonValue(v any) any {
	out := map[string]MCPServer{}
	for _, s := range masked(v.([]MCPServer)) {
		out[s.Name] = s
	}
	return out
}

// masked is a copy of servers with env and header values replaced.
func masked(servers []MCPServer) []MCPServer {
	out := cloneServers(servers)
	for i := range out {
		for k := range out[i].Env {
			out[i].Env[k] = "***"
		}
		for k := range out[i].Headers {
			out[i].Headers[k] = "***"
		}
	}
	return out
}

// cloneServers copies the list and the slices and maps inside it.
func cloneServers(in []MCPServer) []MCPServer {
	if in == nil {
		return nil
	}
	out := make([]MCPServer, len(in))
	for i, s := range in {
		s.Args = slices.Clone(s.Args)
		s.Env = cloneMap(s.Env)
		s.Headers = cloneMap(s.Headers)
		out[i] = s
	}
	return out
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
