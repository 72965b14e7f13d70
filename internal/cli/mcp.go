package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/atomicfile"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/mcp"
	"github.com/olly-agent/olly/internal/trust"
)

func newMCPCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "MCP servers: list, add, remove, test, trust and import them",
		Long: `MCP servers give the agent tools (named mcp__SERVER__TOOL), prompts (slash
commands /mcp__SERVER__PROMPT) and resources. Your own servers live in the
mcp.servers setting; a project's in its .mcp.json, which start only after you
trust them here (olly mcp trust NAME). docs/extensibility.md has the formats.`,
	}
	cmd.AddCommand(newMCPListCmd(f), newMCPAddCmd(f), newMCPRemoveCmd(f), newMCPTestCmd(f),
		newMCPTrustCmd(f), newMCPImportCmd(f))
	return cmd
}

// mcpEnv is what every mcp subcommand reads: settings, workspace, trust.
type mcpEnv struct {
	cfg   *config.Config
	ws    string
	trust *trust.Store
}

func (f *Factory) mcpEnv() (*mcpEnv, error) {
	cfg, err := f.settings()
	if err != nil {
		return nil, err
	}
	ws, err := app.Workspace(f.Flags.Cwd)
	if err != nil {
		return nil, usageError("%v", err)
	}
	st, err := trust.Open(trust.Path(cfg.Paths().StateDir))
	if err != nil {
		return nil, err
	}
	return &mcpEnv{cfg: cfg, ws: ws, trust: st}, nil
}

func (e *mcpEnv) manager() (*mcp.Manager, []error) {
	return app.NewMCPManager(e.cfg, nil, app.SandboxSpec(e.cfg), e.ws, nil)
}

func newMCPListCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers and whether they may start",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			e, err := f.mcpEnv()
			if err != nil {
				return err
			}
			m, errs := e.manager()
			defer m.Close()
			printMCPProblems(f.IO.ErrOut, errs)
			servers := m.Servers()
			if len(servers) == 0 {
				fmt.Fprintln(f.IO.Out, "No MCP servers. Add one with olly mcp add NAME -- COMMAND [ARGS…], or olly mcp import.")
				return nil
			}
			tw := tabwriter.NewWriter(f.IO.Out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tSTATUS\tRUNS")
			for _, s := range servers {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Source, trustWord(m, s), s.Describe())
			}
			return tw.Flush()
		},
	}
}

func trustWord(m *mcp.Manager, s mcp.Server) string {
	switch {
	case !s.NeedsTrust():
		return "ok"
	case m.Trusted(s):
		return "trusted"
	}
	return "not trusted (olly mcp trust " + s.Name + ")"
}

func printMCPProblems(w io.Writer, errs []error) {
	for _, err := range errs {
		fmt.Fprintln(w, "olly: warning:", err)
	}
}

type mcpAddOptions struct {
	scope, url, transport string
	env, headers          []string
}

func newMCPAddCmd(f *Factory) *cobra.Command {
	o := &mcpAddOptions{}
	cmd := &cobra.Command{
		Use:   "add NAME [--url URL] [-- COMMAND [ARGS…]]",
		Short: "Add an MCP server: olly mcp add NAME -- COMMAND [ARGS…], or --url URL",
		Example: `  olly mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .
  olly mcp add docs --url https://example.com/mcp
  olly mcp add legacy --url http://localhost:9000/sse --transport sse
  olly mcp add gh -e GITHUB_TOKEN=… -- github-mcp-server stdio`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			return runMCPAdd(f, o, args, dash)
		},
	}
	cmd.Flags().StringVarP(&o.scope, "scope", "s", "user", "where to add it: user (the mcp.servers setting) or project (.mcp.json)")
	cmd.Flags().StringVar(&o.url, "url", "", "the server's URL (streamable HTTP, or SSE with --transport sse)")
	cmd.Flags().StringVarP(&o.transport, "transport", "t", "", "stdio, http or sse (default: stdio with a command, http with --url)")
	cmd.Flags().StringArrayVarP(&o.env, "env", "e", nil, "an environment variable of a stdio server: KEY=VALUE (repeatable)")
	cmd.Flags().StringArrayVarP(&o.headers, "header", "H", nil, "an HTTP header of a URL server: \"Name: value\" (repeatable)")
	return cmd
}

func runMCPAdd(f *Factory, o *mcpAddOptions, args []string, dash int) error {
	s := config.MCPServer{Name: args[0], Type: o.transport, URL: o.url}
	switch {
	case dash == 1 && len(args) > 1:
		s.Command, s.Args = args[1], args[2:]
	case dash < 0 && len(args) == 2 && o.url == "" && (o.transport == "http" || o.transport == "sse"):
		s.URL = args[1] // Claude Code's form: add --transport http NAME URL
	case len(args) > 1:
		return usageError("put the server's command after --: olly mcp add %s -- COMMAND [ARGS…]", args[0])
	}
	if s.Command == "" && s.URL == "" {
		return usageError("give the server's command after -- or its --url")
	}
	if s.Command != "" && s.URL != "" {
		return usageError("give either a command or --url, not both")
	}
	var err error
	if s.Env, err = pairs(o.env, "="); err != nil {
		return err
	}
	if s.Headers, err = pairs(o.headers, ":"); err != nil {
		return err
	}
	if err := s.Normalize(); err != nil {
		return usageError("%v", err)
	}
	e, err := f.mcpEnv()
	if err != nil {
		return err
	}
	switch o.scope {
	case "user":
		err = addUserServers(e.cfg, s)
	case "project":
		err = addProjectServer(e.ws, s)
	default:
		return usageError("--scope is user or project, not %q", o.scope)
	}
	if err != nil {
		return err
	}
	where := e.cfg.Paths().GlobalFile
	if o.scope == "project" {
		where = filepath.Join(e.ws, mcp.ProjectFile) + " (run olly mcp trust " + s.Name + " to let it start here)"
	}
	fmt.Fprintf(f.IO.Out, "Added MCP server %s to %s\n", s.Name, where)
	return nil
}

func pairs(items []string, sep string) (map[string]string, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, it := range items {
		k, v, ok := strings.Cut(it, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageError("%q: expected NAME%sVALUE", it, sep)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// addUserServers writes servers into the mcp.servers setting of the
// global settings file; a name already there is an error.
func addUserServers(cfg *config.Config, add ...config.MCPServer) error {
	servers := slices.Clone(cfg.MCP.Servers)
	for _, s := range add {
		if slices.ContainsFunc(servers, func(x config.MCPServer) bool { return x.Name == s.Name }) {
			return usageError("an MCP server named %s is already in mcp.servers: olly mcp remove %s first", s.Name, s.Name)
		}
		servers = append(servers, s)
	}
	return writeUserServers(cfg, servers)
}

func writeUserServers(cfg *config.Config, servers []config.MCPServer) error {
	text := "{}"
	if len(servers) > 0 {
		body := map[string]config.MCPServer{}
		for _, s := range servers {
			s2 := s
			body[s.Name] = s2
		}
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		text = string(b)
	}
	return config.SetInFile(cfg.Paths().GlobalFile, "mcp.servers", text)
}

// addProjectServer adds s to the workspace's .mcp.json, keeping what else
// the file holds.
func addProjectServer(ws string, s config.MCPServer) error {
	file := filepath.Join(ws, mcp.ProjectFile)
	doc := map[string]json.RawMessage{}
	servers := map[string]json.RawMessage{}
	if data, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(mcp.StripJSONC(data), &doc); err != nil {
			return fmt.Errorf("%s is not valid JSON (%v): fix it first", file, err)
		}
		if raw := doc["mcpServers"]; raw != nil {
			if err := json.Unmarshal(raw, &servers); err != nil {
				return fmt.Errorf("%s: mcpServers is not an object: %v", file, err)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if _, dup := servers[s.Name]; dup {
		return usageError("%s already has a server named %s", file, s.Name)
	}
	if s.Type == config.MCPStdio {
		s.Type = "" // the common format names no type for a command
	}
	body, err := json.Marshal(s)
	if err != nil {
		return err
	}
	servers[s.Name] = body
	if doc["mcpServers"], err = json.Marshal(servers); err != nil {
		return err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(file, append(out, '\n'), 0o644)
}

func newMCPRemoveCmd(f *Factory) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from mcp.servers (or --scope project: .mcp.json)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			e, err := f.mcpEnv()
			if err != nil {
				return err
			}
			name := args[0]
			if scope == "project" {
				return removeProjectServer(f.IO.Out, e, name)
			}
			servers := slices.DeleteFunc(slices.Clone(e.cfg.MCP.Servers), func(s config.MCPServer) bool { return s.Name == name })
			if len(servers) == len(e.cfg.MCP.Servers) {
				return usageError("no MCP server named %s in mcp.servers (project servers: --scope project)", name)
			}
			if err := writeUserServers(e.cfg, servers); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Removed MCP server %s from %s\n", name, e.cfg.Paths().GlobalFile)
			return nil
		},
	}
	cmd.Flags().StringVarP(&scope, "scope", "s", "user", "user (mcp.servers) or project (.mcp.json)")
	return cmd
}

func removeProjectServer(w io.Writer, e *mcpEnv, name string) error {
	file := filepath.Join(e.ws, mcp.ProjectFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return usageError("no %s here: %v", mcp.ProjectFile, err)
	}
	var doc map[string]json.RawMessage
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(mcp.StripJSONC(data), &doc); err != nil || json.Unmarshal(doc["mcpServers"], &servers) != nil {
		return fmt.Errorf("%s is not valid: fix it by hand", file)
	}
	if _, ok := servers[name]; !ok {
		return usageError("%s has no server named %s", file, name)
	}
	delete(servers, name)
	doc["mcpServers"], _ = json.Marshal(servers)
	out, _ := json.MarshalIndent(doc, "", "  ")
	if err := atomicfile.Write(file, append(out, '\n'), 0o644); err != nil {
		return err
	}
	_ = e.trust.Revoke(e.ws, trust.KindMCP, name)
	fmt.Fprintf(w, "Removed MCP server %s from %s\n", name, file)
	return nil
}

func newMCPTestCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "test [NAME…]",
		Short: "Connect to MCP servers (all, or those named) and list their tools",
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.mcpEnv()
			if err != nil {
				return err
			}
			m, errs := e.manager()
			defer m.Close()
			printMCPProblems(f.IO.ErrOut, errs)
			failed := 0
			for _, s := range m.Servers() {
				if len(args) > 0 && !slices.Contains(args, s.Name) {
					continue
				}
				if !testServer(cmd.Context(), f.IO.Out, m, s) {
					failed++
				}
			}
			if failed > 0 {
				return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d MCP server(s) failed", failed)}
			}
			return nil
		},
	}
}

func testServer(ctx context.Context, w io.Writer, m *mcp.Manager, s mcp.Server) bool {
	if ctx == nil {
		ctx = context.Background()
	}
	if !m.Trusted(s) {
		fmt.Fprintf(w, "%s: not started: a project server you have not trusted here (olly mcp trust %s)\n", s.Name, s.Name)
		return false
	}
	n, err := m.Connect(ctx, s.Name)
	if err != nil {
		fmt.Fprintf(w, "%s: FAILED: %v\n", s.Name, err)
		return false
	}
	fmt.Fprintf(w, "%s: ok, %d tools: %s\n", s.Name, n, strings.Join(m.ToolNames(s.Name), ", "))
	return true
}
