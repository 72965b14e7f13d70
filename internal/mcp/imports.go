package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/olly-agent/olly/internal/trust"
)

// Found is a server found in another tool's configuration, offered by
// `olly mcp import`.
type Found struct {
	Server
	// From names the tool and file ("Claude Code (~/.claude.json)").
	From string
}

// ImportSource is one configuration file of another tool.
type ImportSource struct {
	Tool string // "Claude Code", "Cursor", "VS Code"
	File string
	// parse reads the file's servers.
	parse func(data []byte, workspace, file string) ([]Server, []error)
}

// ImportSources are the files `olly mcp import` reads, for home and the
// workspace: Claude Code's ~/.claude.json (its user servers and this
// project's), Cursor's ~/.cursor/mcp.json and .cursor/mcp.json, and VS
// Code's user settings.json ("mcp": {"servers": …}) and .vscode/mcp.json.
func ImportSources(home, workspace string) []ImportSource {
	plain := func(data []byte, _, file string) ([]Server, []error) { return ParseServers(data, SourceUser, file) }
	return []ImportSource{
		{Tool: "Claude Code", File: filepath.Join(home, ".claude.json"), parse: ParseClaude},
		{Tool: "Cursor", File: filepath.Join(home, ".cursor", "mcp.json"), parse: plain},
		{Tool: "Cursor", File: filepath.Join(workspace, ".cursor", "mcp.json"), parse: plain},
		{Tool: "VS Code", File: vscodeSettings(home), parse: ParseVSCodeSettings},
		{Tool: "VS Code", File: filepath.Join(workspace, ".vscode", "mcp.json"), parse: plain},
	}
}

func vscodeSettings(home string) string {
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Code", "User", "settings.json")
	case "windows":
		return filepath.Join(os.Getenv("APPDATA"), "Code", "User", "settings.json")
	}
	return filepath.Join(home, ".config", "Code", "User", "settings.json")
}

// FindImports reads every import source that exists. Files that cannot be
// read or parsed are reported in errs; the rest are still offered.
func FindImports(home, workspace string) (found []Found, errs []error) {
	for _, src := range ImportSources(home, workspace) {
		data, err := trust.ReadConfig(src.File, maxConfigBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		servers, perrs := src.parse(data, workspace, src.File)
		errs = append(errs, perrs...)
		for _, s := range servers {
			s.Source = SourceUser
			found = append(found, Found{Server: s, From: fmt.Sprintf("%s (%s)", src.Tool, src.File)})
		}
	}
	return found, errs
}

// ParseClaude reads Claude Code's ~/.claude.json: its user-level
// "mcpServers" and those of "projects"[workspace].
func ParseClaude(data []byte, workspace, file string) ([]Server, []error) {
	if len(data) > maxConfigBytes {
		return nil, []error{fmt.Errorf("%s: larger than %d MB", file, maxConfigBytes>>20)}
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Projects   map[string]struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, []error{fmt.Errorf("%s: not valid JSON: %v", file, err)}
	}
	servers, errs := parseMap(doc.MCPServers, file)
	if p, ok := doc.Projects[workspace]; ok {
		more, perrs := parseMap(p.MCPServers, file+" (project "+workspace+")")
		servers, errs = append(servers, more...), append(errs, perrs...)
	}
	return servers, errs
}

// ParseVSCodeSettings reads VS Code's settings.json (JSON with comments):
// "mcp": {"servers": …}.
func ParseVSCodeSettings(data []byte, _, file string) ([]Server, []error) {
	if len(data) > maxConfigBytes {
		return nil, []error{fmt.Errorf("%s: larger than %d MB", file, maxConfigBytes>>20)}
	}
	var doc struct {
		MCP struct {
			Servers map[string]json.RawMessage `json:"servers"`
		} `json:"mcp"`
	}
	if err := json.Unmarshal(StripJSONC(data), &doc); err != nil {
		return nil, []error{fmt.Errorf("%s: not valid JSON: %v", file, err)}
	}
	return parseMap(doc.MCP.Servers, file)
}

func parseMap(raw map[string]json.RawMessage, file string) ([]Server, []error) {
	if len(raw) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(map[string]any{"mcpServers": raw})
	if err != nil {
		return nil, []error{err}
	}
	servers, errs := ParseServers(body, SourceUser, file)
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	return servers, errs
}
