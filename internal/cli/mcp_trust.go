package cli

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/mcp"
	"github.com/olly-agent/olly/internal/trust"
)

func newMCPTrustCmd(f *Factory) *cobra.Command {
	var revoke bool
	cmd := &cobra.Command{
		Use:   "trust NAME…",
		Short: "Let project MCP servers (.mcp.json) start in this workspace",
		Long: `A project's .mcp.json names programs the repository wants olly to run. They
start only after you trust them here. The trust is for this workspace and this
exact entry (command, arguments, environment, URL): if .mcp.json changes the
entry, it needs trusting again. --yes never trusts anything. --revoke takes a
trust back.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			e, err := f.mcpEnv()
			if err != nil {
				return err
			}
			project, errs := mcp.LoadProject(e.ws)
			printMCPProblems(f.IO.ErrOut, errs)
			for _, name := range args {
				if revoke {
					if err := e.trust.Revoke(e.ws, trust.KindMCP, name); err != nil {
						return err
					}
					fmt.Fprintf(f.IO.Out, "MCP server %s is no longer trusted in %s\n", name, e.ws)
					continue
				}
				i := slices.IndexFunc(project, func(s mcp.Server) bool { return s.Name == name })
				if i < 0 {
					if slices.ContainsFunc(e.cfg.MCP.Servers, func(s config.MCPServer) bool { return s.Name == name }) {
						fmt.Fprintf(f.IO.Out, "MCP server %s is in your own mcp.servers: it needs no trust\n", name)
						continue
					}
					return usageError("%s has no server named %s", mcp.ProjectFile, name)
				}
				s := project[i]
				if err := e.trust.Trust(e.ws, trust.KindMCP, s.Name, s.Fingerprint()); err != nil {
					return err
				}
				fmt.Fprintf(f.IO.Out, "Trusted MCP server %s in %s: it runs %s\n", s.Name, e.ws, s.Describe())
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "take the trust back")
	return cmd
}

func newMCPImportCmd(f *Factory) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "import [NAME…]",
		Short: "Import MCP servers from Claude Code, Cursor and VS Code into mcp.servers",
		Long: `Without arguments, lists the MCP servers found in Claude Code (~/.claude.json),
Cursor (~/.cursor/mcp.json, .cursor/mcp.json) and VS Code (settings.json "mcp",
.vscode/mcp.json). Name servers to import them into your mcp.servers setting, or
give --all. A name already in mcp.servers is skipped.`,
		RunE: func(_ *cobra.Command, args []string) error {
			e, err := f.mcpEnv()
			if err != nil {
				return err
			}
			home := f.HomeDir
			if home == "" {
				home, _ = os.UserHomeDir()
			}
			found, errs := mcp.FindImports(home, e.ws)
			printMCPProblems(f.IO.ErrOut, errs)
			if len(found) == 0 {
				fmt.Fprintln(f.IO.Out, "No MCP servers found in Claude Code, Cursor or VS Code settings.")
				return nil
			}
			if len(args) == 0 && !all {
				for _, s := range found {
					fmt.Fprintf(f.IO.Out, "%-20s %-50s from %s\n", s.Name, s.Describe(), s.From)
				}
				fmt.Fprintln(f.IO.Out, "\nImport with olly mcp import NAME… or olly mcp import --all.")
				return nil
			}
			return importServers(f, e, found, args, all)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "import every server found")
	return cmd
}

func importServers(f *Factory, e *mcpEnv, found []mcp.Found, names []string, all bool) error {
	have := map[string]bool{}
	for _, s := range e.cfg.MCP.Servers {
		have[s.Name] = true
	}
	var add []config.MCPServer
	for _, s := range found {
		if !all && !slices.Contains(names, s.Name) {
			continue
		}
		if have[s.Name] {
			fmt.Fprintf(f.IO.Out, "Skipped %s: already in mcp.servers (or found twice)\n", s.Name)
			continue
		}
		have[s.Name] = true
		add = append(add, s.MCPServer)
		fmt.Fprintf(f.IO.Out, "Imported %s from %s\n", s.Name, s.From)
	}
	for _, n := range names {
		if !slices.ContainsFunc(found, func(s mcp.Found) bool { return s.Name == n }) {
			return usageError("no server named %s was found (olly mcp import lists them)", n)
		}
	}
	if len(add) == 0 {
		return nil
	}
	return addUserServers(e.cfg, add...)
}
